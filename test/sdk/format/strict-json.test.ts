import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../../sdk/src/format/strict-json.js';

const bad = (text: string) => () => parseStrictJson(text, 'capability.json');

describe('parseStrictJson (DESIGN §3: signed JSON)', () => {
  it('parses ordinary JSON the same way JSON.parse does', () => {
    const text = '{"a":[1,-2,0,"x\\u00e9\\n",true,false,null],"b":{"c":{}}, "d" : [] }';
    expect(parseStrictJson(text, 't')).toEqual(JSON.parse(text));
    expect(parseStrictJson(Buffer.from('"\\ud800"'), 't')).toBe('\ud800');
  });

  it('refuses duplicate keys, naming the pointer', () => {
    expect(bad('{"a":1,"a":2}')).toThrow(expect.objectContaining({ code: 'E_JSON', message: expect.stringContaining('"a" twice') }));
    expect(bad('{"x":{"b":1,"b":1}}')).toThrow(
      expect.objectContaining({ code: 'E_JSON', details: expect.objectContaining({ pointer: '/x/b' }) }),
    );
  });

  it('refuses non-integer numbers as written, even when their value is integral', () => {
    for (const n of ['1.5', '1.0', '1e3', '-0.0', '2E-1']) expect(bad(`{"n":${n}}`)).toThrow(expect.objectContaining({ code: 'E_JSON' }));
    expect(bad('[9007199254740992]')).toThrow(expect.objectContaining({ code: 'E_JSON' }));
  });

  it('refuses what RFC 8259 does not allow', () => {
    for (const text of ['', '{', '[1,]', '{"a":1,}', '01', '+1', '"\u0001"', '"\\x"', "{'a':1}", 'NaN', '{"a":1} x', '\ufeff{}', '"abc']) {
      expect(bad(text), text).toThrow(expect.objectContaining({ code: 'E_JSON' }));
    }
  });

  it('keeps a "__proto__" key as plain data', () => {
    const value = parseStrictJson('{"__proto__":{"polluted":1}}', 't') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('refuses invalid UTF-8 and absurd nesting', () => {
    expect(() => parseStrictJson(Buffer.from([0x22, 0xff, 0x22]), 't')).toThrow(expect.objectContaining({ code: 'E_JSON' }));
    expect(bad('['.repeat(10_000) + ']'.repeat(10_000))).toThrow(expect.objectContaining({ code: 'E_JSON' }));
  });
});
