// spec §7: input and output are validated against the publisher's schemas, formats included. The
// format definitions are added to the validator only before the first schema that can name one
// (run/schemas.ts): a schema compiled earlier in the same process must never leave them out.
import { describe, expect, it } from 'vitest';
import { assertMatches } from '../../../sdk/src/run/schemas.js';

const check = (schema: object, value: unknown): void => assertMatches(schema, value, 'E_INPUT', 'The input of tool t', 'inputSchema');

describe('formats are checked whichever schema this process compiled first', () => {
  it('a schema without formats first, then formats at the top, nested in properties, items and $defs', () => {
    check({ type: 'object', properties: { text: { type: 'string' } } }, { text: 'x' });
    const cases: Array<{ schema: object; good: unknown; bad: unknown; pointer: string }> = [
      {
        schema: { type: 'object', properties: { to: { type: 'string', format: 'email' } } },
        good: { to: 'a@example.com' },
        bad: { to: 'not an address' },
        pointer: '/to',
      },
      {
        schema: { type: 'object', properties: { when: { type: 'array', items: { type: 'string', format: 'date-time' } } } },
        good: { when: ['2026-12-01T18:00:00Z'] },
        bad: { when: ['yesterday'] },
        pointer: '/when/0',
      },
      {
        schema: { type: 'object', $defs: { link: { type: 'string', format: 'uri' } }, properties: { home: { $ref: '#/$defs/link' } } },
        good: { home: 'https://example.com/' },
        bad: { home: 'not a uri' },
        pointer: '/home',
      },
    ];
    for (const { schema, good, bad, pointer } of cases) {
      expect(() => check(schema, good)).not.toThrow();
      expect(() => check(schema, bad)).toThrow(
        expect.objectContaining({ code: 'E_INPUT', details: expect.objectContaining({ pointer, keyword: 'format' }) }),
      );
    }
  });

  it('a property named "format" is data, not a keyword: it is validated as its schema says', () => {
    const schema = { type: 'object', properties: { format: { type: 'string', enum: ['pdf', 'png'] } }, required: ['format'] };
    expect(() => check(schema, { format: 'pdf' })).not.toThrow();
    expect(() => check(schema, { format: 'gif' })).toThrow(expect.objectContaining({ code: 'E_INPUT' }));
  });
});
