// readPackage checks the archive's pin (spec §2: registries pin the SHA-256 and
// size of the compressed file) in the read that verifies and extracts it: a read of other bytes is
// E_HASH and nothing appears at the target; the pinned bytes extract with their final read-only
// modes (files created that way, directories set at publishing), nested directories included.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';
import { packageBytes } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-read-pin-'));
});
afterAll(async () => {
  await removeTree(work);
});

const files = [
  { path: 'README.md', data: '# hi\n' },
  { path: 'bin/tool', data: '#!/bin/sh\necho hi\n', executable: true },
  { path: 'docs/a/b/deep.md', data: 'deep\n' },
  // Over 256 KiB and several inflate chunks: written behind the stream.
  { path: 'data/large.bin', data: Buffer.alloc(3_000_000, 7) },
];

describe('readPackage with expectArchive', () => {
  it('refuses bytes that are not the pinned archive with E_HASH, before anything is extracted', async () => {
    const bytes = packageBytes({ files });
    const file = join(work, 'p.adcap');
    await writeFile(file, bytes);
    const target = join(work, 'refused');
    const wrongSha = createHash('sha256').update('something else').digest('hex');
    for (const pin of [
      { sha256: wrongSha, size: bytes.length },
      { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length + 1 },
    ]) {
      const error = await readPackage(file, { extractTo: target, expectArchive: pin }).then(
        () => null,
        (e: unknown) => e as { code?: string; details?: Record<string, unknown> },
      );
      expect(error?.code).toBe('E_HASH');
      expect(error?.details?.['expected']).toBe(pin.sha256);
      await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await readdir(work)).sort()).toEqual(['p.adcap']);
    }
  });

  it('extracts the pinned archive read-only: files 0444/0555, every directory 0555', async () => {
    const bytes = packageBytes({ files });
    const file = join(work, 'q.adcap');
    await writeFile(file, bytes);
    const target = join(work, 'extracted');
    const result = await readPackage(file, {
      extractTo: target,
      readOnly: true,
      expectArchive: { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length },
    });
    expect(result.dir).toBe(target);
    const mode = async (p: string): Promise<number> => (await stat(join(target, p))).mode & 0o777;
    expect(await mode('README.md')).toBe(0o444);
    expect(await mode('bin/tool')).toBe(0o555);
    expect(await mode('data/large.bin')).toBe(0o444);
    expect((await stat(join(target, 'data/large.bin'))).size).toBe(3_000_000);
    for (const dir of ['.', 'bin', 'data', 'docs', 'docs/a', 'docs/a/b']) expect(await mode(dir)).toBe(0o555);
  });
});
