/**
 * The form validator for @rjsf/core, on @cfworker/json-schema: it interprets schemas instead of
 * compiling them to code, so it works under the host's strict CSP (no 'unsafe-eval'; Ajv's
 * compiled validators would need it) and never turns package text into a function. The host
 * validates the input again against the tool's schema before anything runs; this is for the form.
 */
import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import {
  createErrorHandler,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';

/** Keywords that only say "something below failed": the leaf error says what. */
const WRAPPERS = new Set([
  'properties',
  'items',
  'prefixItems',
  'allOf',
  '$ref',
  'dependentSchemas',
  'if',
  'then',
  'else',
  'additionalItems',
  'unevaluatedItems',
  'contains',
]);

const cache = new WeakMap<object, Validator>();

function validatorFor(schema: RJSFSchema, rootSchema?: RJSFSchema): Validator {
  const key = rootSchema !== undefined && rootSchema !== schema ? undefined : schema;
  const cached = key === undefined ? undefined : cache.get(key);
  if (cached !== undefined) return cached;
  // Local $refs (#/definitions/…, #/$defs/…) of a sub-schema resolve against the root's.
  const merged =
    rootSchema !== undefined && rootSchema !== schema
      ? {
          ...schema,
          ...(rootSchema.definitions === undefined ? {} : { definitions: rootSchema.definitions }),
          ...(rootSchema['$defs'] === undefined ? {} : { $defs: rootSchema['$defs'] }),
        }
      : schema;
  const validator = new Validator(merged as Schema, '2020-12', false);
  if (key !== undefined) cache.set(key, validator);
  return validator;
}

/** `#/a/0/b` → ['a', '0', 'b'] (JSON Pointer segments, unescaped). */
function segmentsOf(instanceLocation: string): string[] {
  return instanceLocation
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p.length > 0)
    .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** "columns › 2 › name": the field in words, array indexes counted from 1. */
function labelOf(segments: string[]): string {
  return segments.map((p) => (/^\d+$/.test(p) ? String(Number(p) + 1) : p)).join(' › ');
}

/**
 * @cfworker/json-schema reports a missing required property at the object that lacks it; rjsf
 * shows an error under the field its `property` names, so the object's error would show under its
 * last field (a missing `path` appeared under `maxRows`). The property is moved to the missing
 * field itself, where the user types it.
 */
const REQUIRED = /required property "(.*)"\.?$/;

function toRjsfErrors(units: OutputUnit[]): RJSFValidationError[] {
  return units
    .filter((u) => !WRAPPERS.has(u.keyword))
    .map((u) => {
      const segments = segmentsOf(u.instanceLocation);
      const missing = u.keyword === 'required' ? REQUIRED.exec(u.error)?.[1] : undefined;
      if (missing !== undefined) segments.push(missing);
      const property = segments.map((p) => `.${p}`).join('');
      const message =
        missing !== undefined
          ? 'needs a value'
          : u.error.replace(/^Instance (does not|has)/, (_m, verb: string) => (verb === 'has' ? 'has' : 'does not'));
      return {
        name: u.keyword,
        property,
        message,
        stack: `${segments.length === 0 ? 'The input' : labelOf(segments)}${missing !== undefined ? ' ' : ': '}${message}`,
        schemaPath: u.keywordLocation,
        params: missing === undefined ? {} : { missingProperty: missing },
      };
    });
}

export const cfworkerValidator: ValidatorType = {
  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator,
    transformErrors?: ErrorTransformer,
    uiSchema?: UiSchema,
  ): ValidationData<unknown> {
    let errors = toRjsfErrors(validatorFor(schema).validate(formData ?? {}).errors);
    if (transformErrors !== undefined) errors = transformErrors(errors, uiSchema);
    const data: ValidationData<unknown> = { errors, errorSchema: toErrorSchema(errors) };
    if (customValidate === undefined) return data;
    const handler = customValidate(formData, createErrorHandler(formData), uiSchema);
    return validationDataMerge(data, unwrapErrorHandler(handler));
  },
  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    try {
      return validatorFor(schema, rootSchema).validate(formData).valid;
    } catch {
      return false;
    }
  },
  rawValidation<Result = unknown>(schema: RJSFSchema, formData?: unknown): { errors?: Result[]; validationError?: Error } {
    try {
      return { errors: validatorFor(schema).validate(formData).errors as Result[] };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  },
};
