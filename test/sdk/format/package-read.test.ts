/** readPackage: verification results, staging extraction, progress (spec §2, §4). */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestDigest } from '../../../sdk/src/format/canonical-json.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import type { Progress } from '../../../sdk/src/util/progress.js';
import { manifestFor, packageBytes } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-read-'));
});
afterAll(async () => {
  await rm(join(work), { recursive: true, force: true });
});

const files = [
  { path: 'README.md', data: '# hi\n' },
  { path: 'bin/tool', data: '#!/bin/sh\necho hi\n', executable: true },
  { path: 'data/large.bin', data: Buffer.alloc(700_000, 7) },
];

describe('readPackage', () => {
  it('returns the manifest, its digest, archive hash and entries without extracting', async () => {
    const bytes = packageBytes({ files });
    const file = join(work, 'p.adcap');
    await writeFile(file, bytes);
    const result = await readPackage(file);
    const manifest = manifestFor(files);
    expect(result.manifest).toEqual(manifest);
    expect(result.manifestSha256).toBe(manifestDigest(manifest));
    expect(result.entries).toEqual(['capability.json', 'README.md', 'bin/tool', 'data/large.bin']);
    expect(result.size).toBe(bytes.length);
    expect(result.signatureBytes).toBeNull();
    expect(result.dir).toBeUndefined();
  });

  it('extracts into a staging sibling and renames it into place, modes from files[].executable', async () => {
    const parent = await mkdtemp(join(work, 'x-'));
    const target = join(parent, 'pkg');
    const result = await readPackage(Readable.from([packageBytes({ files })]), { extractTo: target });
    expect(result.dir).toBe(target);
    expect(await readdir(parent)).toEqual(['pkg']);
    expect((await readdir(target)).sort()).toEqual(['README.md', 'bin', 'capability.json', 'data']);
    expect(await readFile(join(target, 'README.md'), 'utf8')).toBe('# hi\n');
    expect((await readFile(join(target, 'data/large.bin'))).equals(Buffer.alloc(700_000, 7))).toBe(true);
    expect((await stat(join(target, 'bin/tool'))).mode & 0o111).not.toBe(0);
    expect((await stat(join(target, 'README.md'))).mode & 0o111).toBe(0);
    // The SHA-256 of the capability.json bytes that were checked is that of the file written.
    expect(result.manifestFileSha256).toBe(
      createHash('sha256')
        .update(await readFile(join(target, 'capability.json')))
        .digest('hex'),
    );
  });

  it('makes files and directories read-only when asked', async () => {
    const parent = await mkdtemp(join(work, 'ro-'));
    const target = join(parent, 'pkg');
    await readPackage(Readable.from([packageBytes({ files })]), { extractTo: target, readOnly: true });
    expect((await stat(join(target, 'README.md'))).mode & 0o777).toBe(0o444);
    expect((await stat(join(target, 'bin/tool'))).mode & 0o777).toBe(0o555);
    expect((await stat(join(target, 'bin'))).mode & 0o777).toBe(0o555);
    expect((await stat(target)).mode & 0o777).toBe(0o555);
  });

  it('removes the staging directory when the last entry fails, after earlier files were extracted', async () => {
    const parent = await mkdtemp(join(work, 'fail-'));
    const manifest = manifestFor(files);
    const tampered = files.map((f) => (f.path === 'data/large.bin' ? { ...f, data: Buffer.alloc(700_000, 8) } : f));
    const error = await readPackage(Readable.from([packageBytes({ manifest, files: tampered })]), { extractTo: join(parent, 'pkg') }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'E_HASH' });
    expect(await readdir(parent)).toEqual([]);
  });

  it('refuses an extraction target that already exists (E_IO) and leaves it alone', async () => {
    const parent = await mkdtemp(join(work, 'exists-'));
    await mkdir(join(parent, 'pkg'));
    await writeFile(join(parent, 'pkg', 'mine.txt'), 'keep');
    await expect(readPackage(Readable.from([packageBytes({ files })]), { extractTo: join(parent, 'pkg') })).rejects.toMatchObject({
      code: 'E_IO',
    });
    expect(await readdir(join(parent, 'pkg'))).toEqual(['mine.txt']);
    expect(await readdir(parent)).toEqual(['pkg']);
  });

  it('reports progress in compressed bytes with the file size as total', async () => {
    const file = join(work, 'progress.adcap');
    const bytes = packageBytes({ files });
    await writeFile(file, bytes);
    const seen: Progress[] = [];
    await readPackage(file, { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ phase: 'verify', done: bytes.length, total: bytes.length });
  });

  it('a missing package file is E_IO', async () => {
    await expect(readPackage(join(work, 'nope.adcap'))).rejects.toMatchObject({ code: 'E_IO' });
  });
});
