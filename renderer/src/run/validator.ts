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

/** `#/a/0/b` → `.a.0.b` (rjsf's property path). */
function propertyOf(instanceLocation: string): string {
  const parts = instanceLocation
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p.length > 0);
  return parts.map((p) => `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`).join('');
}

function toRjsfErrors(units: OutputUnit[]): RJSFValidationError[] {
  return units
    .filter((u) => !WRAPPERS.has(u.keyword))
    .map((u) => {
      const property = propertyOf(u.instanceLocation);
      const message = u.error.replace(/^Instance (does not|has)/, (_m, verb: string) => (verb === 'has' ? 'has' : 'does not'));
      return {
        name: u.keyword,
        property,
        message,
        stack: `${property === '' ? 'input' : property.slice(1)}: ${message}`,
        schemaPath: u.keywordLocation,
        params: {},
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
