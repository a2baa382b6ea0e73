// The JSON Schemas of the format documents (capability.json, workflow documents, the organisation
// policy): sdk/src/format/json-schema.ts compiles them without checking them against the draft
// 2020-12 meta-schema at run time, so that check is made here, with a stock Ajv. And a publisher's
// tool schema is judged as a stock Ajv's compile judges it, although the SDK checks it against the
// meta-schema with a validator compiled ahead of time.
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { needsMetaSchemas, schemaCompileProblem, schemaValidator } from '../../../sdk/src/format/json-schema.js';

const SCHEMAS = ['capability-1.json', 'workflow-1.json', 'policy-1.json'];

describe('the format schemas shipped with the SDK', () => {
  it.each(SCHEMAS)('%s is a valid draft 2020-12 schema, and the SDK compiles it', async (file) => {
    const schema = JSON.parse(await readFile(new URL(`../../../sdk/schema/${file}`, import.meta.url), 'utf8')) as object;
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, strictTuples: false, validateFormats: false });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(schemaValidator(file)).toBeTypeOf('function');
  });

  it('a schema the meta-schema refuses is caught by that check', () => {
    const ajv = new Ajv2020({ validateFormats: false });
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'strng' } } })).toBe(false);
    expect(ajv.validateSchema({ type: 'object', required: 'a' })).toBe(false);
  });
});

describe("a publisher's tool schema", () => {
  /** What a stock Ajv (the options the SDK compiles tool schemas with) says when compiling it. */
  function stockAjvSays(schema: object): string | undefined {
    try {
      new Ajv2020({ strict: false, allErrors: false, validateFormats: false }).compile(schema);
      return undefined;
    } catch (error) {
      return (error as Error).message.split('\n')[0];
    }
  }

  it.each([
    ['a usable schema', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    ['one that names the 2020-12 meta-schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }],
    ['a misspelt type', { type: 'object', properties: { a: { type: 'strng' } } }],
    ['a required that is not a list', { type: 'object', required: 'a' }],
    ['a negative minLength', { type: 'string', minLength: -1 }],
    ['a dangling $ref', { $ref: '#/$defs/missing' }],
    ['a remote $ref', { $ref: 'https://schemas.example/x.json' }],
    ['another meta-schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }],
    ['a $schema that is not a string', { $schema: 7, type: 'string' }],
    // These need the meta-schemas, which the instance for every other schema is made without (needsMetaSchemas).
    ['a $ref to the 2020-12 meta-schema', { type: 'object', properties: { s: { $ref: 'https://json-schema.org/draft/2020-12/schema' } } }],
    ['a $ref to one of its vocabularies', { $ref: 'https://json-schema.org/draft/2020-12/meta/validation' }],
    ['the 2020-12 meta-schema named with a "#"', { $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'string' }],
  ])('%s: the same verdict and words as Ajv compiling it', (_label, schema) => {
    const expected = stockAjvSays(schema);
    expect(schemaCompileProblem(schema)).toBe(expected);
  });

  it('needs the meta-schemas only for a schema that names one other than by its own default $schema', () => {
    expect(needsMetaSchemas({ type: 'object', properties: { a: { type: 'string', format: 'email' } } })).toBe(false);
    expect(needsMetaSchemas({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' })).toBe(false);
    expect(needsMetaSchemas({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' })).toBe(true);
    expect(needsMetaSchemas({ properties: { s: { $ref: 'https://json-schema.org/draft/2020-12/schema' } } })).toBe(true);
    expect(needsMetaSchemas({ $schema: 7 })).toBe(true);
  });

  it("refuses with the meta-schema's words", () => {
    expect(schemaCompileProblem({ type: 'object', properties: { a: { type: 'strng' } } })).toMatch(
      /^schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/,
    );
    expect(schemaCompileProblem({ type: 'string' })).toBeUndefined();
  });
});
