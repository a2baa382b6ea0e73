import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import { AdcapError } from '../errors.js';
import { escapePointer } from './canonical-json.js';
import { draft2020 } from '../generated/meta-schema-validator.js';
import { capability, policy, workflow } from '../generated/manifest-schema-validators.js';

/**
 * Shared JSON Schema machinery for the format documents (capability.json, workflow documents, the
 * organisation policy): their validators, and ajv errors turned into sentences that name the JSON
 * pointer, the failed keyword and what is wrong in plain words.
 */

/**
 * The validators of `sdk/schema/<file>`, compiled ahead of time with every problem reported
 * (generated/manifest-schema-validators.ts, from build/schema-validators.mjs: compiling capability-1.json at
 * run time was ~0.2 s of every CLI start that reads a manifest). The schemas are checked against the
 * draft 2020-12 meta-schema, and the generated code against a fresh generation, by the tests
 * (test/sdk/format/json-schema.test.ts, test/build/schema-validators.test.ts).
 */
const VALIDATORS: ReadonlyMap<string, ValidateFunction> = new Map([
  ['capability-1.json', capability],
  ['workflow-1.json', workflow],
  ['policy-1.json', policy],
]);

/** The validator of `sdk/schema/<file>`. */
export function schemaValidator(file: string): ValidateFunction {
  const validate = VALIDATORS.get(file);
  if (validate === undefined) throw new Error(`no validator is generated for sdk/schema/${file} (build/schema-validators.mjs)`);
  return validate;
}

/** How many schema problems one error message lists. */
const MAX_LISTED = 3;

/**
 * Validates `value` and throws E_SCHEMA listing the first few problems. `what` names the document
 * ("The manifest"), `pointerPrefix` is prepended to every pointer (for documents inside a package).
 */
export function assertSchema(validate: ValidateFunction, value: unknown, what: string, pointerPrefix = ''): void {
  if (validate(value)) return;
  const problems = describeSchemaErrors(validate.errors ?? [], pointerPrefix);
  const listed = problems.slice(0, MAX_LISTED);
  const more = problems.length > listed.length ? `; and ${problems.length - listed.length} more` : '';
  const first = problems[0];
  throw new AdcapError('E_SCHEMA', `${what} does not match its schema: ${listed.map((p) => p.text).join('; ')}${more}.`, {
    details: { pointer: first?.pointer ?? pointerPrefix, keyword: first?.keyword ?? '', problems: listed },
  });
}

export interface SchemaProblem {
  pointer: string;
  keyword: string;
  text: string;
}

const COMBINATORS = new Set(['oneOf', 'anyOf']);

interface DescribeOptions {
  /**
   * Whether an unknown top-level field is explained with the format's rule (spec §3.3: vendor data
   * goes under "x"). True for the format's own documents; false for data checked against a
   * publisher's schema (tool input and output), where that advice is wrong.
   */
  formatDocument?: boolean;
}

/** Turns ajv errors into plain sentences, dropping the noise of if/then and combinator branches. */
export function describeSchemaErrors(errors: readonly ErrorObject[], pointerPrefix = '', options: DescribeOptions = {}): SchemaProblem[] {
  // A oneOf/anyOf that carries its own description explains the problem better than its branches.
  // Errors inside a combinator's branches are noise next to the combinator (or a sibling error).
  const combinators = errors.filter((e) => COMBINATORS.has(e.keyword));
  const explained = combinators.filter((e) => describedBy(e) !== undefined);
  const covered = (e: ErrorObject): boolean =>
    combinators.some((c) => c !== e && e.instancePath === c.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`)) ||
    explained.some((c) => c !== e && e.instancePath === c.instancePath);
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || covered(error)) continue;
    if (COMBINATORS.has(error.keyword) && !explained.includes(error)) {
      // An unexplained combinator is only useful when nothing more specific was reported there.
      if (errors.some((o) => o !== error && o.instancePath === error.instancePath && !COMBINATORS.has(o.keyword))) continue;
    }
    const pointer = pointerPrefix + error.instancePath;
    const text = `${pointer || '/'} ${plainWords(error, options.formatDocument !== false)} (${error.keyword})`;
    if (seen.has(text)) continue;
    seen.add(text);
    problems.push({ pointer, keyword: error.keyword, text });
  }
  return problems;
}

function describedBy(error: ErrorObject): string | undefined {
  const parent: unknown = error.parentSchema;
  if (typeof parent === 'object' && parent !== null && 'description' in parent && typeof parent.description === 'string') {
    return parent.description;
  }
  return undefined;
}

function param(error: ErrorObject, name: string): unknown {
  return (error.params as Record<string, unknown>)[name];
}

function plainWords(error: ErrorObject, formatDocument: boolean): string {
  const described = describedBy(error);
  const propertyName = error.propertyName ?? param(error, 'propertyName');
  if (typeof propertyName === 'string') {
    return `has the key ${JSON.stringify(propertyName)}, which is not ${described ?? 'an allowed name'}`;
  }
  switch (error.keyword) {
    case 'required':
      return `is missing the required field ${JSON.stringify(param(error, 'missingProperty'))}`;
    case 'additionalProperties': {
      const field = JSON.stringify(param(error, 'additionalProperty'));
      return formatDocument && error.instancePath === '' && error.schemaPath === '#/additionalProperties'
        ? `has the unknown field ${field}; version 1.0 accepts only the fields of the format, and vendor data belongs under "x"`
        : `has the unknown field ${field}`;
    }
    case 'type': {
      const type = String(param(error, 'type'));
      return `must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
    }
    case 'maxLength':
      return `is longer than ${String(param(error, 'limit'))} characters`;
    case 'minLength':
      return param(error, 'limit') === 1 ? 'must not be empty' : `is shorter than ${String(param(error, 'limit'))} characters`;
    case 'maxItems':
      return `has more than ${String(param(error, 'limit'))} items`;
    case 'minItems':
      return `has fewer than ${String(param(error, 'limit'))} items`;
    case 'minProperties':
      return `has fewer than ${String(param(error, 'limit'))} entries`;
    case 'uniqueItems':
      return `lists the same value twice (items ${String(param(error, 'j'))} and ${String(param(error, 'i'))})`;
    case 'enum':
      return described !== undefined
        ? `must be ${described}`
        : `must be one of ${(param(error, 'allowedValues') as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${described ?? JSON.stringify(param(error, 'allowedValue'))}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${error.message ?? 'is out of range'}${described !== undefined ? ` (expected ${described})` : ''}`;
    default:
      return described !== undefined ? `must be ${described}` : (error.message ?? 'is not valid');
  }
}

/**
 * spec §4 / DESIGN §3: signed data holds integers only. Parsed documents already refuse floats
 * (strict JSON), but a value built in memory can still carry one; find the first such number.
 */
export function findNonInteger(value: unknown, pointer = ''): string | undefined {
  // The path is kept as keys and indexes and joined only when a number is found: a manifest of
  // 2,000 files is searched without building a pointer string for each of its values.
  const path: Array<string | number> = [];
  return nonIntegerIn(value, path)
    ? pointer + path.map((part) => `/${typeof part === 'number' ? part : escapePointer(part)}`).join('')
    : undefined;
}

/** Whether `value` holds a number that is not a safe integer; `path` is left pointing at it when so. */
function nonIntegerIn(value: unknown, path: Array<string | number>): boolean {
  if (typeof value === 'number') return !Number.isSafeInteger(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      if (nonIntegerIn(value[i], path)) return true;
      path.pop();
    }
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    path.push(key);
    if (nonIntegerIn((value as Record<string, unknown>)[key], path)) return true;
    path.pop();
  }
  return false;
}

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * Whether compiling `schema` needs an Ajv instance that holds the draft 2020-12 meta-schemas: when
 * it declares another `$schema` (Ajv checks it against that one) or names a json-schema.org
 * document anywhere else (a `$ref` to a meta-schema). Any other schema is compiled by an instance
 * made without them (`meta: false`), which is how a publisher schema is compiled in every process
 * that checks one: adding the meta-schemas was a third of making the instance (4-7 ms of a profile
 * of `adcap run`); the default `$schema` is checked by the validator compiled ahead of time
 * (metaSchemaProblem), which an instance with the meta-schemas would not use either.
 */
export function needsMetaSchemas(schema: object): boolean {
  const { $schema, ...rest } = schema as Record<string, unknown>;
  return ($schema !== undefined && $schema !== DRAFT_2020_12) || JSON.stringify(rest).includes('json-schema.org');
}

/** Where a caller keeps its two publisher-schema instances (publisherAjv): without the meta-schemas, and with them. */
export interface PublisherAjvs {
  lean?: Ajv2020;
  full?: Ajv2020;
}

/** The instance of `ajvs` that compiles `schema` (needsMetaSchemas), made with `options` when first needed. */
export function publisherAjv(ajvs: PublisherAjvs, options: Options, schema: object): Ajv2020 {
  return needsMetaSchemas(schema) ? (ajvs.full ??= new Ajv2020(options)) : (ajvs.lean ??= new Ajv2020({ ...options, meta: false }));
}

const toolAjvs: PublisherAjvs = {};

/**
 * Whether a schema a publisher wrote (a tool's inputSchema/outputSchema) can actually be compiled,
 * as the host must do before each run (spec §7): the meta-schema does not catch a `$ref` that
 * resolves nowhere. Returns the compiler's complaint, or undefined. Nothing is fetched.
 */
export function schemaCompileProblem(schema: object): string | undefined {
  const ajv = publisherAjv(toolAjvs, { strict: false, allErrors: false, validateFormats: false, validateSchema: false }, schema);
  try {
    const problem = metaSchemaProblem(ajv, schema);
    if (problem !== undefined) return problem;
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  } finally {
    // Compiled schemas are cached by object and by $id; drop them so manifests never collide or pile up.
    ajv.removeSchema(schema);
    const id = (schema as { $id?: unknown }).$id;
    if (typeof id === 'string') ajv.removeSchema(id);
  }
}

/**
 * What Ajv's compile checks first, in its words: the schema against the meta-schema it declares.
 * The draft 2020-12 meta-schema (the default) is checked by its validator compiled ahead of time
 * (generated/meta-schema-validator.ts, Ajv's own code with this instance's options); another
 * `$schema` goes to Ajv, which throws as compile would (an unknown one is refused).
 */
export function metaSchemaProblem(ajv: Ajv2020, schema: object): string | undefined {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared !== undefined && declared !== DRAFT_2020_12) {
    ajv.validateSchema(schema, true);
    return undefined;
  }
  return draft2020(schema) ? undefined : `schema is invalid: ${ajv.errorsText(draft2020.errors)}`;
}
