/**
 * Small schema combinators for the host API's arguments: each schema checks a JSON value and
 * carries its TypeScript type, so one definition gives both the validator (host side, before
 * anything runs) and the argument types of the typed client (renderer side). Plain code, no Node
 * and no SDK: the renderer may import it (DESIGN §2).
 *
 * A check returns null when the value fits, else one sentence naming the path of the first
 * problem ("args[1].approvedDigest must be a string of 64 hexadecimal characters").
 */

export interface Schema<T> {
  /** Null when `value` fits, else what is wrong with it, naming `path`. */
  check(value: unknown, path: string): string | null;
  /** A short human description ("string", "{ id: string }"), for error messages and docs. */
  readonly describe: string;
  /** Set by `optional()`: the value may be absent (object members, trailing tuple elements). */
  readonly optional?: boolean;
  /** Type carrier only; never set at run time. */
  readonly __type?: T;
}

type Infer<S> = S extends Schema<infer T> ? T : never;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

export function string(options: { min?: number; max?: number; pattern?: RegExp; what?: string } = {}): Schema<string> {
  const min = options.min ?? 0;
  const max = options.max ?? 4096;
  const what = options.what ?? (min > 0 ? 'a non-empty string' : 'a string');
  return {
    describe: 'string',
    check(value, path) {
      if (typeof value !== 'string') return `${path} must be ${what}`;
      if (value.length < min) return `${path} must be ${what}`;
      if (value.length > max) return `${path} must be at most ${max} characters long`;
      if (options.pattern !== undefined && !options.pattern.test(value)) return `${path} must be ${what}`;
      return null;
    },
  };
}

export function number(options: { integer?: boolean; min?: number; max?: number } = {}): Schema<number> {
  return {
    describe: options.integer === true ? 'integer' : 'number',
    check(value, path) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${path} must be a number`;
      if (options.integer === true && !Number.isInteger(value)) return `${path} must be a whole number`;
      if (options.min !== undefined && value < options.min) return `${path} must be at least ${options.min}`;
      if (options.max !== undefined && value > options.max) return `${path} must be at most ${options.max}`;
      return null;
    },
  };
}

export function boolean(): Schema<boolean> {
  return { describe: 'boolean', check: (value, path) => (typeof value === 'boolean' ? null : `${path} must be true or false`) };
}

export function literal<const L extends string | number | boolean | null>(...values: L[]): Schema<L> {
  const text = values.map((v) => JSON.stringify(v)).join(' | ');
  return { describe: text, check: (value, path) => ((values as unknown[]).includes(value) ? null : `${path} must be one of ${text}`) };
}

export function optional<T>(schema: Schema<T>): Schema<T | undefined> {
  return { describe: schema.describe, optional: true, check: (value, path) => (value === undefined ? null : schema.check(value, path)) };
}

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return { describe: `${schema.describe} | null`, check: (value, path) => (value === null ? null : schema.check(value, path)) };
}

export function array<T>(item: Schema<T>, options: { max?: number; min?: number } = {}): Schema<T[]> {
  const max = options.max ?? 10_000;
  return {
    describe: `${item.describe}[]`,
    check(value, path) {
      if (!Array.isArray(value)) return `${path} must be a list`;
      if (value.length < (options.min ?? 0)) return `${path} must have at least ${options.min} item(s)`;
      if (value.length > max) return `${path} must have at most ${max} items`;
      for (let i = 0; i < value.length; i++) {
        const problem = item.check(value[i], `${path}[${i}]`);
        if (problem !== null) return problem;
      }
      return null;
    },
  };
}

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends { optional: true } ? K : undefined extends Infer<S[K]> ? K : never;
}[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type InferShape<S extends Shape> = Simplify<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined> }
>;

/** An object with exactly these members: unknown members are refused (a typo is an error, not ignored). */
export function object<S extends Shape>(shape: S): Schema<InferShape<S>> {
  const keys = Object.keys(shape);
  return {
    describe: `{ ${keys.map((k) => `${k}${shape[k]?.optional === true ? '?' : ''}: ${shape[k]?.describe ?? ''}`).join(', ')} }`,
    check(value, path) {
      if (!isPlainObject(value)) return `${path} must be an object`;
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(shape, key))
          return `${path} has an unknown member "${key.slice(0, 64)}" (allowed: ${keys.join(', ') || 'none'})`;
      }
      for (const key of keys) {
        const member = shape[key] as Schema<unknown>;
        const present = Object.hasOwn(value, key) && value[key] !== undefined;
        if (!present) {
          if (member.optional === true) continue;
          return `${path}.${key} is required`;
        }
        const problem = member.check(value[key], `${path}.${key}`);
        if (problem !== null) return problem;
      }
      return null;
    },
  };
}

/** A map from strings to values of one schema. */
export function record<T>(value: Schema<T>, options: { maxKeys?: number } = {}): Schema<Record<string, T>> {
  const maxKeys = options.maxKeys ?? 1000;
  return {
    describe: `{ [key: string]: ${value.describe} }`,
    check(v, path) {
      if (!isPlainObject(v)) return `${path} must be an object`;
      const keys = Object.keys(v);
      if (keys.length > maxKeys) return `${path} must have at most ${maxKeys} members`;
      for (const key of keys) {
        const problem = value.check(v[key], `${path}.${key.slice(0, 64)}`);
        if (problem !== null) return problem;
      }
      return null;
    },
  };
}

export function union<const M extends readonly Schema<unknown>[]>(...members: M): Schema<Infer<M[number]>> {
  const text = members.map((m) => m.describe).join(' | ');
  return {
    describe: text,
    check(value, path) {
      for (const member of members) if (member.check(value, path) === null) return null;
      // Name the problem of the closest member when there is only one candidate shape of this kind.
      const kinds = members.map((m) => m.check(value, path));
      return kinds.length === 1 ? (kinds[0] ?? null) : `${path} must be ${text}`;
    },
  };
}

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Any JSON value (a tool's input, which the tool's own input schema checks later), bounded in
 * depth and size so a hostile page cannot make the host walk a huge structure.
 */
export function json(options: { maxDepth?: number; maxNodes?: number } = {}): Schema<JsonValue> {
  const maxDepth = options.maxDepth ?? 64;
  const maxNodes = options.maxNodes ?? 100_000;
  return {
    describe: 'JSON value',
    check(value, path) {
      let nodes = 0;
      const walk = (v: unknown, depth: number): string | null => {
        if (++nodes > maxNodes) return `${path} is too large (over ${maxNodes} values)`;
        if (depth > maxDepth) return `${path} is nested too deeply (over ${maxDepth} levels)`;
        if (v === null || typeof v === 'string' || typeof v === 'boolean') return null;
        if (typeof v === 'number') return Number.isFinite(v) ? null : `${path} contains a number that is not finite`;
        if (Array.isArray(v)) {
          for (const item of v) {
            const p = walk(item, depth + 1);
            if (p !== null) return p;
          }
          return null;
        }
        if (isPlainObject(v)) {
          for (const key of Object.keys(v)) {
            const p = walk(v[key], depth + 1);
            if (p !== null) return p;
          }
          return null;
        }
        return `${path} must be plain JSON`;
      };
      return walk(value, 0);
    },
  };
}

type InferTuple<R extends readonly Schema<unknown>[]> = { [K in keyof R]: Infer<R[K]> };
type InferOptionalTuple<O extends readonly Schema<unknown>[]> = O extends readonly [
  infer H,
  ...infer Rest extends readonly Schema<unknown>[],
]
  ? [Exclude<Infer<H>, undefined>?, ...InferOptionalTuple<Rest>]
  : [];

type TupleType<R extends readonly Schema<unknown>[], O extends readonly Schema<unknown>[]> = [...InferTuple<R>, ...InferOptionalTuple<O>];

/** Positional arguments: the required ones, then optional trailing ones; nothing more. */
export interface ArgsSchema<T extends unknown[]> extends Schema<T> {
  readonly required: readonly Schema<unknown>[];
  readonly optionalArgs: readonly Schema<unknown>[];
}

export function args<const R extends readonly Schema<unknown>[], const O extends readonly Schema<unknown>[] = []>(
  required: R,
  optionalArgs?: O,
): ArgsSchema<TupleType<R, O>> {
  const opt: readonly Schema<unknown>[] = optionalArgs ?? [];
  const all = [...required, ...opt];
  const signature = `(${[...required.map((s) => s.describe), ...opt.map((s) => `${s.describe}?`)].join(', ')})`;
  return {
    required,
    optionalArgs: opt,
    describe: signature,
    check(value, path) {
      if (!Array.isArray(value)) return `the arguments must be a list ${signature}`;
      // Trailing undefined (JSON null never becomes undefined) counts as absent.
      let length = value.length;
      while (length > required.length && value[length - 1] === undefined) length--;
      if (length < required.length || length > all.length) return `expects ${signature}, got ${value.length} argument(s)`;
      for (let i = 0; i < length; i++) {
        const schema = all[i] as Schema<unknown>;
        const v: unknown = value[i];
        if (i >= required.length && v === undefined) continue;
        const problem = schema.check(v, `${path}[${i}]`);
        if (problem !== null) return problem;
      }
      return null;
    },
  };
}
