import { describe, expect, it } from 'vitest';
import { canonicalJson, manifestDigest } from '../../../sdk/src/format/canonical-json.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';

describe('canonicalJson (spec §4)', () => {
  it('sorts keys and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 0, y: -3 } })).toBe('{"a":[true,null,"x"],"b":1,"c":{"y":-3,"z":0}}');
  });

  it('orders keys by UTF-16 code unit, so an astral key sorts before a high BMP key', () => {
    // U+1F600 is the surrogate pair D83D DE00; U+FF5E is one code unit FF5E. By code point the
    // emoji would sort last; by UTF-16 code unit it sorts first.
    const value = { '\uff5e': 1, '\u{1f600}': 2, a: 3, é: 4 };
    expect(canonicalJson(value)).toBe('{"a":3,"é":4,"\u{1f600}":2,"\uff5e":1}');
  });

  it('escapes strings exactly as JSON.stringify does, including lone surrogates', () => {
    expect(canonicalJson({ s: 'quote " backslash \\ nl \n tab \t ctrl \u0001 slash /' })).toBe(
      '{"s":"quote \\" backslash \\\\ nl \\n tab \\t ctrl \\u0001 slash /"}',
    );
    expect(canonicalJson('\ud800')).toBe('"\\ud800"');
    expect(canonicalJson('\udc00x')).toBe('"\\udc00x"');
    expect(canonicalJson('\u{1f600}')).toBe('"\u{1f600}"');
  });

  it('writes integers, including negative zero as 0 and the safe limits', () => {
    expect(canonicalJson([0, -0, 1, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])).toBe(
      '[0,0,1,-1,9007199254740991,-9007199254740991]',
    );
  });

  it('refuses floats, unsafe integers and non-JSON values with E_JSON naming the pointer', () => {
    expect(() => canonicalJson({ a: { b: 1.5 } })).toThrow(
      expect.objectContaining({ code: 'E_JSON', message: expect.stringContaining('/a/b') }),
    );
    expect(() => canonicalJson([2 ** 53])).toThrow(expect.objectContaining({ code: 'E_JSON' }));
    expect(() => canonicalJson(Number.NaN)).toThrow(expect.objectContaining({ code: 'E_JSON' }));
    expect(() => canonicalJson({ f: () => 1 })).toThrow(expect.objectContaining({ code: 'E_JSON' }));
  });

  it('computes manifestDigest as the SHA-256 of the canonical bytes', () => {
    const manifest = { version: '1.0.0', id: 'acme/x', files: [] };
    expect(manifestDigest(manifest)).toBe(sha256Hex('{"files":[],"id":"acme/x","version":"1.0.0"}'));
    // A fixed vector, so a change in serialisation can never slip through unnoticed.
    expect(manifestDigest({ a: 'é', b: [1, 2] })).toBe(sha256Hex(Buffer.from('{"a":"é","b":[1,2]}', 'utf8')));
  });
});
