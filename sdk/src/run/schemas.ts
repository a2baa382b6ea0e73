/**
 * Tool and workflow data validation (spec §7: the host validates input against inputSchema before
 * starting the tool and output against outputSchema afterwards). Publisher schemas are compiled
 * by their own Ajv 2020-12 instance (not the format's strict one: publishers may use keywords
 * Ajv does not know), with formats checked, nothing fetched, and compiled once per schema text.
 * The schema is checked against its meta-schema first, as Ajv's compile does, but by the validator
 * of draft 2020-12 compiled ahead of time (format/json-schema.ts metaSchemaProblem): compiling the
 * meta-schema at run time cost every `adcap run` and every first MCP call of a tool ~60 ms.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AdcapError, type ErrorCode } from '../errors.js';
import { describeSchemaErrors, metaSchemaProblem, publisherAjv, type PublisherAjvs } from '../format/json-schema.js';

const ajvs: PublisherAjvs = {};
/** The instances the formats were added to (each once a schema needs them). */
const withFormats = new WeakSet<Ajv2020>();
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

function validatorFor(schema: object, what: string): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate !== undefined) return validate;
  const ajv = publisherAjv(ajvs, { strict: false, allErrors: true, verbose: true, validateFormats: true, validateSchema: false }, schema);
  // The formats (ajv-formats: ~40 definitions and their patterns) are added before the first schema
  // that can use one: every "format" keyword shows in the schema's text as a "format" key, so no
  // schema is ever compiled without them when it names one (a property called "format" only adds them early).
  if (!withFormats.has(ajv) && key.includes('"format":')) {
    addFormatsModule.default(ajv);
    withFormats.add(ajv);
  }
  try {
    // A schema's $id would be registered globally; compile a copy without it so two tools that
    // reuse one $id never collide.
    const { $id: _ignored, ...rest } = schema as Record<string, unknown>;
    const problem = metaSchemaProblem(ajv, rest);
    if (problem !== undefined) throw new Error(problem);
    validate = ajv.compile(rest);
  } catch (error) {
    throw new AdcapError(
      'E_SCHEMA',
      `${what} cannot be compiled (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the publisher must fix it.`,
    );
  }
  if (compiled.size >= MAX_COMPILED) {
    const oldest = compiled.keys().next();
    if (oldest.done !== true) compiled.delete(oldest.value);
  }
  compiled.set(key, validate);
  return validate;
}

/**
 * Compiles `schema` ahead of its first assertMatches (the output schema while the tool starts), so
 * that check finds it compiled. A schema that does not compile is left to assertMatches, which
 * reports it as it always does.
 */
export function prepareValidator(schema: object): void {
  try {
    validatorFor(schema, 'The schema');
  } catch {
    // reported by the assertMatches that needs it
  }
}

/**
 * Throws `code` (E_INPUT or E_OUTPUT) naming the JSON pointer and keyword of the first problems.
 * `what` names the data ("The input of tool x").
 */
export function assertMatches(
  schema: object,
  value: unknown,
  code: Extract<ErrorCode, 'E_INPUT' | 'E_OUTPUT'>,
  what: string,
  schemaName: string,
): void {
  const validate = validatorFor(schema, `The ${schemaName} of ${what.replace(/^The (input|output|inputs) of /, '')}`);
  if (validate(value)) return;
  // A publisher's schema, not a format document: no "vendor data belongs under x" advice.
  const problems = describeSchemaErrors(validate.errors ?? [], '', { formatDocument: false });
  const first = problems[0];
  const listed = problems
    .slice(0, 3)
    .map((p) => p.text)
    .join('; ');
  const more = problems.length > 3 ? `; and ${problems.length - 3} more` : '';
  const fields = code === 'E_INPUT' ? acceptedFields(schema) : null;
  const accepted = fields === null ? '' : ` ${acceptedFieldsSentence(fields)}`;
  throw new AdcapError(code, `${what} does not match its ${schemaName}: ${listed}${more}.${accepted}`, {
    details: {
      pointer: first?.pointer ?? '',
      keyword: first?.keyword ?? '',
      problems: problems.slice(0, 3),
      ...(fields === null ? {} : { accepted: fields }),
    },
  });
}

/** A top-level field an object schema names: what a caller may pass (E_INPUT names them). */
export interface AcceptedField {
  name: string;
  required: boolean;
  /** The JSON type(s) the schema states for it, or "" when it states none. */
  type: string;
  description?: string;
}

/**
 * The top-level fields of an object schema (`properties` and `required`), in the schema's order;
 * null when the schema does not list properties (then there is nothing useful to name).
 */
export function acceptedFields(schema: unknown): AcceptedField[] | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const { properties, required } = schema as { properties?: unknown; required?: unknown };
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return null;
  const needed = new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(properties as Record<string, unknown>).map(([name, sub]) => {
    const s = typeof sub === 'object' && sub !== null ? (sub as { type?: unknown; description?: unknown }) : {};
    const type = typeof s.type === 'string' ? s.type : Array.isArray(s.type) ? s.type.filter((t) => typeof t === 'string').join('|') : '';
    return { name, required: needed.has(name), type, ...(typeof s.description === 'string' ? { description: s.description } : {}) };
  });
}

/** "It accepts: "name" (string, required), "loud" (boolean)." – names JSON-quoted (they come from a package). */
export function acceptedFieldsSentence(fields: readonly AcceptedField[]): string {
  if (fields.length === 0) return 'It accepts no fields: pass {}.';
  const shown = fields.slice(0, 20).map((f) => {
    const notes = [f.type, f.required ? 'required' : ''].filter((n) => n !== '').join(', ');
    return `${JSON.stringify(f.name)}${notes === '' ? '' : ` (${notes})`}`;
  });
  const more = fields.length > shown.length ? ` and ${fields.length - shown.length} more` : '';
  return `It accepts: ${shown.join(', ')}${more}.`;
}
