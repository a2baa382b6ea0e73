// E_INPUT names the fields a tool accepts, and advice meant for the format's
// own documents ("vendor data belongs under x") never appears for a publisher's schema.
import { describe, expect, it } from 'vitest';
import { acceptedFields, acceptedFieldsSentence, assertMatches, prepareValidator } from '../../../sdk/src/run/schemas.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import type { AdcapError } from '../../../sdk/src/errors.js';

function thrown(fn: () => void): AdcapError {
  try {
    fn();
  } catch (error) {
    return error as AdcapError;
  }
  throw new Error('expected a throw');
}

const schema = {
  type: 'object',
  properties: { path: { type: 'string', description: 'the file' }, limit: { type: ['integer', 'null'] }, raw: {} },
  required: ['path'],
  additionalProperties: false,
};

describe('acceptedFields', () => {
  it('lists the top-level fields in the schema order with type, required and description', () => {
    expect(acceptedFields(schema)).toEqual([
      { name: 'path', required: true, type: 'string', description: 'the file' },
      { name: 'limit', required: false, type: 'integer|null' },
      { name: 'raw', required: false, type: '' },
    ]);
    expect(acceptedFields({ type: 'object' })).toBeNull();
    expect(acceptedFields({ type: 'object', properties: {} })).toEqual([]);
  });

  it('says it in one sentence, quoting names (they come from a package)', () => {
    expect(acceptedFieldsSentence(acceptedFields(schema) ?? [])).toBe(
      'It accepts: "path" (string, required), "limit" (integer|null), "raw".',
    );
    expect(acceptedFieldsSentence([])).toBe('It accepts no fields: pass {}.');
    expect(acceptedFieldsSentence([{ name: 'a\u001b[2J', required: false, type: 'string' }])).toBe('It accepts: "a\\u001b[2J" (string).');
    const many = Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, required: false, type: '' }));
    expect(acceptedFieldsSentence(many)).toMatch(/"f19" and 5 more\.$/);
  });
});

describe('assertMatches', () => {
  it("E_INPUT for an unknown field names the accepted fields, without the format's vendor-data advice", () => {
    const error = thrown(() => assertMatches(schema, { pth: 'a.txt' }, 'E_INPUT', 'The input of tool read', 'inputSchema'));
    expect(error.code).toBe('E_INPUT');
    expect(error.message).toBe(
      'The input of tool read does not match its inputSchema: / is missing the required ' +
        'field "path" (required); / has the unknown field "pth" (additionalProperties). ' +
        'It accepts: "path" (string, required), "limit" (integer|null), "raw".',
    );
    expect(error.details['accepted']).toEqual(acceptedFields(schema));
  });

  it("E_OUTPUT (the tool's fault, not the caller's) lists no accepted fields", () => {
    const error = thrown(() => assertMatches(schema, { path: 'a', extra: 1 }, 'E_OUTPUT', 'The output of tool read', 'outputSchema'));
    expect(error.message).toBe(
      'The output of tool read does not match its outputSchema: / has the unknown field "extra" (additionalProperties).',
    );
    expect(error.details['accepted']).toBeUndefined();
  });

  it('the manifest, a format document, still explains where vendor data goes (spec §3.3)', () => {
    const error = thrown(() =>
      validateManifest({ adcap: '1.0', id: 'acme/x', version: '1.0.0', name: 'X', summary: 'X.', files: [], vendor: 1 }),
    );
    expect(error.message).toContain(
      'has the unknown field "vendor"; version 1.0 accepts only the fields of the format, and vendor data belongs under "x"',
    );
  });
});

describe('a publisher schema that does not compile', () => {
  // The meta-schema check runs ahead-of-time code (format/json-schema.ts metaSchemaProblem); the
  // sentence is still the one a stock Ajv's compile gives.
  it('is E_SCHEMA with the words of a stock Ajv compile, for draft 2020-12 and for another $schema', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const bad = [
      { type: 'object', properties: { n: { type: 'integer', minimum: 'zero' } } },
      { type: 'strin' },
      { $schema: 'https://example.com/not-a-meta-schema', type: 'object' },
    ];
    for (const schema of bad) {
      const stock = thrown(() => new Ajv2020({ strict: false }).compile(schema)).message.split('\n')[0];
      const error = thrown(() => assertMatches(schema, {}, 'E_INPUT', 'The input of tool x', 'inputSchema'));
      expect(error.code, JSON.stringify(schema)).toBe('E_SCHEMA');
      expect(error.message).toBe(`The inputSchema of tool x cannot be compiled (${stock}); the publisher must fix it.`);
    }
    expect(() =>
      assertMatches({ type: 'object', properties: { n: { minimum: 0 } } }, { n: 1 }, 'E_INPUT', 'x', 'inputSchema'),
    ).not.toThrow();
  });
});

describe('a publisher schema that refers to the draft 2020-12 meta-schema', () => {
  // Compiled by the instance that holds the meta-schemas (format/json-schema.ts needsMetaSchemas).
  it('checks data against it: a tool whose input holds a JSON Schema', () => {
    const input = { type: 'object', properties: { schema: { $ref: 'https://json-schema.org/draft/2020-12/schema' } } };
    expect(() =>
      assertMatches(input, { schema: { type: 'string', minLength: 1 } }, 'E_INPUT', 'The input of tool x', 'inputSchema'),
    ).not.toThrow();
    const error = thrown(() => assertMatches(input, { schema: { type: 5 } }, 'E_INPUT', 'The input of tool x', 'inputSchema'));
    expect(error.code).toBe('E_INPUT');
    expect(error.message).toContain('/schema/type');
  });

  it('a schema that declares it as its $schema and names no other is checked as any other', () => {
    const declared = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['n'] };
    expect(() => assertMatches(declared, { n: 1 }, 'E_INPUT', 'The input of tool x', 'inputSchema')).not.toThrow();
    expect(thrown(() => assertMatches(declared, {}, 'E_INPUT', 'The input of tool x', 'inputSchema')).code).toBe('E_INPUT');
  });
});

describe('prepareValidator (an output schema compiled while the tool starts)', () => {
  it('never throws, and leaves a schema that does not compile to assertMatches, which reports it as before', () => {
    const bad = { type: 'object', properties: { n: { type: 'integer', minimum: 'not a number' } } };
    expect(() => prepareValidator(bad)).not.toThrow();
    const error = thrown(() => assertMatches(bad, {}, 'E_OUTPUT', 'The output of tool x', 'outputSchema'));
    expect(error.code).toBe('E_SCHEMA');
    expect(error.message).toMatch(/^The outputSchema of tool x cannot be compiled \(/);
  });

  it('compiles a schema that assertMatches then checks data with, refusals included', () => {
    const output = { type: 'object', required: ['echoed'], properties: { echoed: { type: 'string' } } };
    prepareValidator(output);
    expect(() => assertMatches(output, { echoed: 'hi' }, 'E_OUTPUT', 'The output of tool x', 'outputSchema')).not.toThrow();
    const error = thrown(() => assertMatches(output, { echoed: 1 }, 'E_OUTPUT', 'The output of tool x', 'outputSchema'));
    expect(error.code).toBe('E_OUTPUT');
    expect(error.message).toContain('/echoed must be a string');
  });
});
