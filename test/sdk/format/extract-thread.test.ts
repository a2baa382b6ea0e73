/**
 * The writer thread of a large extraction (sdk/src/format/extract-thread.ts): a package of 256
 * files or more (or 64 MiB) is written by one worker thread. The same results as the thread-pool
 * path of package-read.test.ts, the same cleanup when a check fails after files were written, and
 * the writer's own failure (an existing file: O_EXCL) stops it and is the read's error. The files the
 * creator thread makes ahead of the writer: in the manifest's order or another, their modes (also
 * for a user who is not root, whom a read-only file refuses), at most AHEAD ahead, and its failures.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { AHEAD, ThreadWriter, type WriterError } from '../../../sdk/src/format/extract-thread.js';
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

  it("writes a package in its manifest's order (the creator ahead of the writer) with the archive's modes", async () => {
    const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
    for (const readOnly of [false, true]) {
      const parent = await mkdtemp(join(work, 'sorted-'));
      const target = join(parent, 'pkg');
      await readPackage(Readable.from([packageBytes({ files: sorted })]), { extractTo: target, readOnly });
      expect(await listTree(target)).toEqual([...files.map((f) => f.path), 'capability.json'].sort());
      for (const file of files) expect((await readFile(join(target, file.path))).equals(Buffer.from(file.data)), file.path).toBe(true);
      // The umask narrows them as tar(1)'s do: what it leaves of a file created 0777.
      const probe = join(parent, 'probe');
      await writeFile(probe, '', { mode: 0o777 });
      const umask = 0o777 & ~(await stat(probe)).mode;
      expect((await stat(join(target, 'bin/tool'))).mode & 0o777).toBe((readOnly ? 0o555 : 0o755) & ~umask);
      expect((await stat(join(target, 'docs/s0/f0.md'))).mode & 0o777).toBe((readOnly ? 0o444 : 0o644) & ~umask);
      expect((await stat(join(target, 'data/large.bin'))).mode & 0o777).toBe((readOnly ? 0o444 : 0o644) & ~umask);
    }
  });

  it('writes read-only files for a user who is not root (who may not open a 0444 file for writing)', async () => {
    // Beside the test's own temporary folders, whose 0700 ancestors that user could not pass.
    const parent = await mkdtemp(join('/tmp', 'adcap-unprivileged-'));
    onTestFinished(() => rm(parent, { recursive: true, force: true }));
    const pkg = join(parent, 'package.adcap');
    await writeFile(pkg, packageBytes({ files: [...files].sort((a, b) => (a.path < b.path ? -1 : 1)) }));
    await chmod(parent, 0o777);
    const script = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'helpers', 'read-package-child.ts');
    const args = ['--import', 'tsx', script, pkg, join(parent, 'pkg')];
    // Root may write any file, so as root the read runs as nobody (setpriv, util-linux); else as this user.
    const root = process.getuid?.() === 0;
    // TMPDIR: tsx's cache, somewhere that user may write.
    const options = { encoding: 'utf8' as const, env: { ...process.env, TMPDIR: parent } };
    const out = root
      ? execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args], options)
      : execFileSync(process.execPath, args, options);
    expect(JSON.parse(out)).toMatchObject({ entries: files.length + 1 });
    if (root) expect((await stat(join(parent, 'pkg', 'docs/s0/f0.md'))).uid).toBe(65534);
    expect((await stat(join(parent, 'pkg', 'docs/s0/f0.md'))).mode & 0o777).toBe(0o444);
    expect((await readFile(join(parent, 'pkg', 'docs/s3/f15.md'))).equals(Buffer.from(files[15]!.data))).toBe(true);
  });

  it('removes the files made ahead when the archive lacks some its manifest lists (E_MISSING)', async () => {
    const parent = await mkdtemp(join(work, 'missing-'));
    const read = readPackage(Readable.from([packageBytes({ manifest: manifestFor(files), files: files.slice(0, 200) })]), {
      extractTo: join(parent, 'pkg'),
    });
    await expect(read).rejects.toMatchObject({ code: 'E_MISSING' });
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

  it('makes at most its bound of files ahead of the writer (AHEAD unless told), and nothing once stopped', async () => {
    expect(AHEAD).toBe(4096);
    const dir = await mkdtemp(join(work, 'ahead-'));
    const bound = 200;
    const targets = Array.from({ length: 500 }, (_, i) => join(dir, `d${i % 10}`, `f${i}`));
    const writer = new ThreadWriter(FLAGS, (error) => error, { targets, modes: targets.map(() => 0o644), bound });
    const made = async (): Promise<number> => {
      let n = 0;
      for (const sub of await readdir(dir)) n += (await readdir(join(dir, sub))).length;
      return n;
    };
    // Waits until `count` files are there (a loaded machine may take a while to start a thread),
    // then a little longer, to see that no more come.
    const reaches = async (count: number): Promise<number> => {
      for (let tries = 0; (await made()) < count && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 300));
      return made();
    };
    // The creator works on its own: it stops at its bound while the writer has reached nothing.
    expect(await reaches(bound)).toBe(bound);
    // Reaching file 150 lets it go on to 150 + 1 + bound; a file it made is written like any other.
    await writer.file(targets[150]!, 0o644, 'f150', [Buffer.from('one fifty')], 9, undefined, 150);
    await writer.flush();
    expect(await reaches(150 + 1 + bound)).toBe(150 + 1 + bound);
    expect(await readFile(targets[150]!, 'utf8')).toBe('one fifty');
    expect(await writer.stop()).toBeUndefined();
    expect(await made()).toBe(150 + 1 + bound);
  });

  it('does not wait for ever on a creator thread that died (its file under way is left to the writer)', async () => {
    const dir = await mkdtemp(join(work, 'creator-died-'));
    const targets = Array.from({ length: 3000 }, (_, i) => join(dir, `d${i % 30}`, `f${i}`));
    const writer = new ThreadWriter(FLAGS, (error) => error, { targets, modes: targets.map(() => 0o644) });
    const creator = (writer as unknown as { creator: { worker: Worker } }).creator.worker;
    for (let tries = 0; tries < 200; tries++) {
      const made = await readdir(dir).then((subs) => subs.length);
      if (made >= 10) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await creator.terminate();
    const writeAll = async (): Promise<string> => {
      try {
        for (let i = 0; i < targets.length; i++) await writer.file(targets[i]!, 0o644, `f${i}`, [Buffer.from('x')], 1, undefined, i);
        await writer.flush();
        return 'written';
      } catch (error) {
        // Once the writer failed, the next call throws its failure too.
        return `failed ${(error as WriterError).code}`;
      }
    };
    const outcome = await Promise.race([writeAll(), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 20_000))]);
    // Written, or (the thread died between a file's creation and its mark) that one file clashes.
    expect(['written', 'failed EEXIST']).toContain(outcome);
    await writer.stop();
  });

  it('makes a file the creator could not make itself, and its failure is the error', async () => {
    const dir = await mkdtemp(join(work, 'creator-failed-'));
    await writeFile(join(dir, 'plain'), 'a file, not a folder');
    const targets = [join(dir, 'ok', 'a.txt'), join(dir, 'plain', 'b.txt')];
    const seen: WriterError[] = [];
    const writer = new ThreadWriter(
      FLAGS,
      (error) => {
        seen.push(error);
        return new Error(`explained: ${error.path}`);
      },
      { targets, modes: [0o644, 0o644] },
    );
    await writer.file(targets[0]!, 0o644, 'ok/a.txt', [Buffer.from('a')], 1, undefined, 0);
    await writer.file(targets[1]!, 0o644, 'plain/b.txt', [Buffer.from('b')], 1, undefined, 1);
    await expect(writer.flush()).rejects.toThrow('explained: plain/b.txt');
    // The writer's own call failed as it does without a creator (its folder is a file).
    expect(seen.map((e) => [e.code, e.path])).toEqual([['EEXIST', 'plain/b.txt']]);
    await writer.stop();
    expect(await readFile(targets[0]!, 'utf8')).toBe('a');
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
