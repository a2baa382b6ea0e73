// The JSON Schemas of the format documents (capability.json, workflow documents, the organisation
// policy): sdk/src/format/json-schema.ts compiles them without checking them against the draft
// 2020-12 meta-schema at run time, so that check is made here, with a stock Ajv.
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../../../sdk/src/format/json-schema.js';

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
