/**
 * The writer thread of a large extraction (sdk/src/format/extract-thread.ts): a package of 256
 * files or more (or 64 MiB) is written by one worker thread. The same results as the thread-pool
 * path of package-read.test.ts, the same cleanup when a check fails after files were written, and
 * the writer's own failure (an existing file: O_EXCL) stops it and is the read's error.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadWriter, type WriterError } from '../../../sdk/src/format/extract-thread.js';
import { readPackage, THREAD_MIN_FILES } from '../../../sdk/src/format/package-read.js';
import { manifestFor, packageBytes, sha256 } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-thread-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** 300 small files in 12 folders, an executable, and a 3 MiB file streamed in chunks. */
const files = [
  ...Array.from({ length: 300 }, (_, i) => ({ path: `docs/s${i % 12}/f${i}.md`, data: `# file ${i}\n${'x'.repeat(i * 37)}\n` })),
  { path: 'bin/tool', data: '#!/bin/sh\necho hi\n', executable: true },
  { path: 'data/large.bin', data: Buffer.alloc(3 * 1024 * 1024, 7) },
];

async function listTree(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listTree(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

describe('a large package is extracted by the writer thread', () => {
  it('is a package of enough files for the writer thread', () => {
    expect(files.length).toBeGreaterThanOrEqual(THREAD_MIN_FILES);
  });

  it('writes every file with its bytes and its read-only mode, folders 0555', async () => {
    const parent = await mkdtemp(join(work, 'ok-'));
    const target = join(parent, 'pkg');
    await readPackage(Readable.from([packageBytes({ files })]), { extractTo: target, readOnly: true });
    expect(await readdir(parent)).toEqual(['pkg']);
    expect(await listTree(target)).toEqual([...files.map((f) => f.path), 'capability.json'].sort());
    for (const file of files) expect((await readFile(join(target, file.path))).equals(Buffer.from(file.data)), file.path).toBe(true);
    expect((await stat(join(target, 'bin/tool'))).mode & 0o777).toBe(0o555);
    expect((await stat(join(target, 'docs/s0/f0.md'))).mode & 0o777).toBe(0o444);
    expect((await stat(join(target, 'docs/s3'))).mode & 0o777).toBe(0o555);
    expect((await stat(target)).mode & 0o777).toBe(0o555);
  });

  it('removes everything written when the last file fails its hash, after the others were written (E_HASH)', async () => {
    const parent = await mkdtemp(join(work, 'hash-'));
    const tampered = files.map((f) => (f.path === 'data/large.bin' ? { ...f, data: Buffer.alloc(3 * 1024 * 1024, 8) } : f));
    const read = readPackage(Readable.from([packageBytes({ manifest: manifestFor(files), files: tampered })]), {
      extractTo: join(parent, 'pkg'),
    });
    await expect(read).rejects.toMatchObject({ code: 'E_HASH' });
    expect(await readdir(parent)).toEqual([]);
  });

  it('a small file whose bytes hash otherwise is refused (E_HASH naming it) and never written', async () => {
    const parent = await mkdtemp(join(work, 'small-hash-'));
    // The same size (it passes the size check), other bytes.
    const tampered = files.map((f) => (f.path === 'docs/s5/f17.md' ? { ...f, data: String(f.data).replace('#', '$') } : f));
    const read = readPackage(Readable.from([packageBytes({ manifest: manifestFor(files), files: tampered })]), {
      extractTo: join(parent, 'pkg'),
    });
    await expect(read).rejects.toMatchObject({ code: 'E_HASH', details: { path: 'docs/s5/f17.md' } });
    expect(await readdir(parent)).toEqual([]);
  });

  it('the first failure in archive order is the error: a file that hashes otherwise before an unlisted entry', async () => {
    const parent = await mkdtemp(join(work, 'order-'));
    const tampered = files.map((f) => (f.path === 'docs/s0/f0.md' ? { ...f, data: '# file 0\n?' } : f));
    const read = readPackage(
      Readable.from([
        packageBytes({ manifest: manifestFor(files), files: tampered, extra: [{ name: 'zz-extra.md', data: 'not listed' }] }),
      ]),
      { extractTo: join(parent, 'pkg') },
    );
    await expect(read).rejects.toMatchObject({ code: 'E_HASH', details: { path: 'docs/s0/f0.md' } });
    expect(await readdir(parent)).toEqual([]);
  });

  it('removes everything written when an unlisted entry follows (E_UNLISTED), with extractInto too', async () => {
    const parent = await mkdtemp(join(work, 'unlisted-'));
    const read = readPackage(Readable.from([packageBytes({ files, extra: [{ name: 'zz-extra.md', data: 'not listed' }] })]), {
      extractInto: join(parent, 'pkg'),
    });
    await expect(read).rejects.toMatchObject({ code: 'E_UNLISTED' });
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('ThreadWriter', () => {
  const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

  it('streams a file larger than all its slabs in order', async () => {
    const dir = await mkdtemp(join(work, 'ring-'));
    const writer = new ThreadWriter(FLAGS, (error) => error);
    const chunk = (i: number): Buffer => Buffer.alloc(200_000 + (i % 7) * 1000, i % 251);
    writer.open(join(dir, 'a', 'big.bin'), 0o644, 'a/big.bin');
    const expected: Buffer[] = [];
    for (let i = 0; i < 120; i++) {
      expected.push(chunk(i));
      await writer.write(chunk(i));
    }
    writer.close();
    await writer.file(join(dir, 'a', 'small.txt'), 0o644, 'a/small.txt', [Buffer.from('one '), Buffer.from('two')], 7);
    await writer.flush();
    await writer.stop();
    expect((await readFile(join(dir, 'a', 'big.bin'))).equals(Buffer.concat(expected))).toBe(true);
    expect(await readFile(join(dir, 'a', 'small.txt'), 'utf8')).toBe('one two');
  });

  it('creates a file only when its bytes hash to the SHA-256 given, and checks a streamed one at its close', async () => {
    const dir = await mkdtemp(join(work, 'sha-'));
    const seen: WriterError[] = [];
    const writer = new ThreadWriter(FLAGS, (error) => {
      seen.push(error);
      return new Error(`explained: ${error.path}`);
    });
    const bytes = Buffer.from('checked');
    await writer.file(join(dir, 'ok.txt'), 0o644, 'ok.txt', [bytes], bytes.length, sha256(bytes));
    await writer.file(join(dir, 'bad.txt'), 0o644, 'bad.txt', [bytes], bytes.length, sha256('other'));
    await expect(writer.flush()).rejects.toThrow('explained: bad.txt');
    expect(seen.map((e) => [e.path, e.actualSha256])).toEqual([['bad.txt', sha256(bytes)]]);
    expect(await writer.stop()).toBeInstanceOf(Error);
    expect(await readdir(dir)).toEqual(['ok.txt']);

    const streamed = new ThreadWriter(FLAGS, (error) => new Error(`streamed: ${error.path} ${error.actualSha256}`));
    streamed.open(join(dir, 'big.bin'), 0o644, 'big.bin', sha256('abc'));
    await streamed.write(Buffer.from('ab'));
    await streamed.write(Buffer.from('d'));
    streamed.close();
    await expect(streamed.flush()).rejects.toThrow(`streamed: big.bin ${sha256('abd')}`);
    await streamed.stop();
  });

  it('stops at its first failure, names the entry, and writes nothing after it', async () => {
    const dir = await mkdtemp(join(work, 'fail-'));
    await mkdir(join(dir, 'd'));
    await writeFile(join(dir, 'd', 'taken.txt'), 'already here');
    const seen: WriterError[] = [];
    const writer = new ThreadWriter(FLAGS, (error) => {
      seen.push(error);
      return new Error(`explained: ${error.path}`);
    });
    await writer.file(join(dir, 'd', 'first.txt'), 0o644, 'd/first.txt', [Buffer.from('1')], 1);
    await writer.file(join(dir, 'd', 'taken.txt'), 0o644, 'd/taken.txt', [Buffer.from('2')], 1);
    await writer.file(join(dir, 'd', 'after.txt'), 0o644, 'd/after.txt', [Buffer.from('3')], 1);
    await expect(writer.flush()).rejects.toThrow('explained: d/taken.txt');
    expect(seen.map((e) => [e.code, e.path])).toEqual([['EEXIST', 'd/taken.txt']]);
    expect(() => writer.close()).toThrow('explained: d/taken.txt');
    await writer.stop();
    expect((await readdir(join(dir, 'd'))).sort()).toEqual(['first.txt', 'taken.txt']);
    expect(await readFile(join(dir, 'd', 'taken.txt'), 'utf8')).toBe('already here');
  });
});
