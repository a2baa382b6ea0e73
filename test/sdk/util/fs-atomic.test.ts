import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeJsonAtomic } from '../../../sdk/src/util/fs-atomic.js';

describe('writeFileAtomic', () => {
  it('writes, replaces, sets the mode and leaves no temp files behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-atomic-'));
    const file = join(dir, 'nested', 'a.json');
    await writeJsonAtomic(file, { a: 1 });
    await writeFileAtomic(file, 'second', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('second');
    expect(await readdir(join(dir, 'nested'))).toEqual(['a.json']);
    // The mode applies to the new file that replaced the old one.
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('writes parts one after the other, as the file of their bytes joined, without a temp file left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-atomic-'));
    const file = join(dir, 'parts.bin');
    // Larger than one write of the kernel's, so each part must be written in full before the next.
    const head = Buffer.alloc(3 * 1024 * 1024 + 7, 0x41);
    const tail = Buffer.from('the tail');
    await writeFileAtomic(file, [head, new Uint8Array(0), tail]);
    expect((await readFile(file)).equals(Buffer.concat([head, tail]))).toBe(true);
    expect(await readdir(dir)).toEqual(['parts.bin']);
  });
});
