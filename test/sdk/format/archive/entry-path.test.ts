import { describe, expect, it } from 'vitest';
import { checkEntryPath, comparePaths } from '../../../../sdk/src/format/archive/entry-path.js';

describe('checkEntryPath (spec §2 path rules)', () => {
  it.each(['a', 'capability.json', 'skills/pdf/SKILL.md', 'a b/c~d.txt', 'x'.repeat(240)])('accepts %j', (path) => {
    expect(checkEntryPath(path)).toBe(path);
  });
  it.each(['', '/abs', 'a/../b', '..', '.', './a', 'a/./b', 'a//b', 'a/', 'a\\b', 'caf\u00e9', 'tab\there', 'del\u007f', 'x'.repeat(241)])(
    'rejects %j with E_PATH',
    (path) => {
      expect(() => checkEntryPath(path)).toThrowError(expect.objectContaining({ code: 'E_PATH' }));
    },
  );
  it('judges raw bytes, so a latin1 byte cannot pass as a character', () => {
    expect(() => checkEntryPath(Buffer.from([0x61, 0xe9]))).toThrowError(expect.objectContaining({ code: 'E_PATH' }));
  });
  it('orders paths by bytes', () => {
    expect(['b', 'B', 'a/b', 'a-b', 'a'].sort(comparePaths)).toEqual(['B', 'a', 'a-b', 'a/b', 'b']);
  });
});
