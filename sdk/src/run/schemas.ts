/**
 * Tool and workflow data validation (spec §7: the host validates input against inputSchema before
 * starting the tool and output against outputSchema afterwards). Publisher schemas are compiled
 * by their own Ajv 2020-12 instance (not the format's strict one: publishers may use keywords
 * Ajv does not know), with formats checked, nothing fetched, and compiled once per schema text.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AdcapError, type ErrorCode } from '../errors.js';
import { describeSchemaErrors } from '../format/json-schema.js';

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

function validatorFor(schema: object, what: string): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate !== undefined) return validate;
  ajv ??= (() => {
    const instance = new Ajv2020({ strict: false, allErrors: true, verbose: true, validateFormats: true });
    addFormatsModule.default(instance);
    return instance;
  })();
  try {
    // A schema's $id would be registered globally; compile a copy without it so two tools that
    // reuse one $id never collide.
    const { $id: _ignored, ...rest } = schema as Record<string, unknown>;
    validate = ajv.compile(rest);
  } catch (error) {
    throw new AdcapError('E_SCHEMA', `${what} cannot be compiled (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the publisher must fix it.`);
  }
  if (compiled.size >= MAX_COMPILED) {
    const oldest = compiled.keys().next();
    if (oldest.done !== true) compiled.delete(oldest.value);
  }
  compiled.set(key, validate);
  return validate;
}

/**
 * Throws `code` (E_INPUT or E_OUTPUT) naming the JSON pointer and keyword of the first problems.
 * `what` names the data ("The input of tool x").
 */
export function assertMatches(schema: object, value: unknown, code: Extract<ErrorCode, 'E_INPUT' | 'E_OUTPUT'>, what: string, schemaName: string): void {
  const validate = validatorFor(schema, `The ${schemaName} of ${what.replace(/^The (input|output|inputs) of /, '')}`);
  if (validate(value)) return;
  const problems = describeSchemaErrors(validate.errors ?? []);
  const first = problems[0];
  const listed = problems.slice(0, 3).map((p) => p.text).join('; ');
  const more = problems.length > 3 ? `; and ${problems.length - 3} more` : '';
  throw new AdcapError(code, `${what} does not match its ${schemaName}: ${listed}${more}.`, {
    details: { pointer: first?.pointer ?? '', keyword: first?.keyword ?? '', problems: problems.slice(0, 3) },
  });
}
