import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { HOST_METHODS, METHODS } from '../../../electron/common/methods.js';

/** docs/host-api.md lists every method of the table with its kind, so the documentation cannot fall behind. */
describe('docs/host-api.md', () => {
  it('has a row for every method, with its kind', async () => {
    const doc = await readFile(new URL('../../../docs/host-api.md', import.meta.url), 'utf8');
    for (const method of HOST_METHODS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${method}\` |`));
      expect(row, method).toBeDefined();
      expect(row, method).toContain(METHODS[method].kind === 'operation' ? '| operation' : '| call |');
    }
  });
});
