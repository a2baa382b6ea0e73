// ContentCache.withBlob lets install verify a download and extract it in one read.
// A file:// mirror is read by the caller, who writes what it reads to the cache's copy (or, where
// the file system shares blocks, reads a reflink clone; not on this machine's ext4); the copy becomes
// the cache entry only after the caller's read accepted the pin; a mirror with wrong bytes passes on
// to the next one; a package refused although its bytes are the pinned ones is kept in the cache and
// its error stands, also when the read stopped before the end; a caller that copies nothing gets a
// checked copy all the same.
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentCache, type BlobCopy } from '../../../sdk/src/cache/content-cache.js';
import { AdcapError } from '../../../sdk/src/errors.js';

let dir: string;
let cache: ContentCache;
const blob = Buffer.from('the pinned bytes of an archive\n'.repeat(1000));
const pin = { sha256: createHash('sha256').update(blob).digest('hex'), size: blob.length };

/**
 * A `use` that reads the path once in chunks, writing each to the copy as it is read, and refuses
 * bytes other than the pinned ones at the end, as readPackage's copyArchive and expectArchive do.
 */
async function checkingUse(path: string, copy?: BlobCopy): Promise<string> {
  const bytes = await readFile(path);
  const chunk = 4096;
  await Promise.all(
    Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => copy?.write(bytes.subarray(i * chunk, (i + 1) * chunk), i * chunk)),
  );
  if (createHash('sha256').update(bytes).digest('hex') !== pin.sha256) throw new AdcapError('E_HASH', 'not the pinned archive');
  return bytes.toString('utf8').slice(0, 9);
}

/** A `use` that reads the path and copies nothing. */
async function plainUse(path: string): Promise<string> {
  return (await readFile(path)).toString('utf8').slice(0, 9);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-with-blob-'));
  cache = new ContentCache(join(dir, 'cache'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('ContentCache.withBlob over file:// mirrors', () => {
  it('has the caller read the mirror once, copying what it reads, and keeps the copy as the cache entry, read-only', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    const seen: string[] = [];
    const progress: string[] = [];
    const value = await cache.withBlob(
      { ...pin, sources: [pathToFileURL(source).href], onProgress: (p) => progress.push(`${p.phase} ${p.done}/${p.total}`) },
      async (path, copy) => {
        seen.push(path);
        expect(copy).toBeDefined();
        return checkingUse(path, copy);
      },
    );
    expect(value).toBe('the pinne');
    // No file system here shares blocks (ext4): the caller read the mirror itself and copied it.
    expect(seen).toEqual([source]);
    expect(await readFile(cache.pathFor(pin.sha256))).toEqual(blob);
    expect((await stat(cache.pathFor(pin.sha256))).mode & 0o222).toBe(0);
    // A clone, not a hard link: the mirror's file keeps its own inode and mode.
    expect((await stat(source)).ino).not.toBe((await stat(cache.pathFor(pin.sha256))).ino);
    expect((await stat(source)).mode & 0o200).not.toBe(0);
    expect(progress).toEqual([`download 0/${pin.size}`, `download ${pin.size}/${pin.size}`]);
    expect(await readdir(cache.tmpDir)).toEqual([]);
    // Cached now: the next call reads the entry, and nothing is cloned again.
    const again: string[] = [];
    await cache.withBlob({ ...pin, sources: [pathToFileURL(join(dir, 'gone.adcap')).href] }, async (path) => {
      again.push(path);
      return checkingUse(path);
    });
    expect(again).toEqual([cache.pathFor(pin.sha256)]);
  });

  it('copies and checks the mirror itself for a caller that copies nothing of what it read', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    expect(await cache.withBlob({ ...pin, sources: [pathToFileURL(source).href] }, plainUse)).toBe('the pinne');
    expect(await readFile(cache.pathFor(pin.sha256))).toEqual(blob);
    expect(await readdir(cache.tmpDir)).toEqual([]);
    // ... and refuses a mirror that is not the pinned blob, though that caller checked nothing.
    const other = new ContentCache(join(dir, 'other-cache'));
    const wrong = join(dir, 'wrong.adcap');
    await writeFile(wrong, Buffer.alloc(blob.length, 0x41));
    const error = await other.withBlob({ ...pin, sources: [pathToFileURL(wrong).href] }, plainUse).then(
      () => null,
      (e: unknown) => e as AdcapError,
    );
    expect(error?.code).toBe('E_DOWNLOAD');
    expect(await other.has(pin.sha256)).toBe(false);
    expect(await readdir(other.tmpDir)).toEqual([]);
  });

  it('keeps the pinned bytes when the caller refused the package before reading it all, and that refusal is the error', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    const error = await cache
      .withBlob({ ...pin, sources: [pathToFileURL(source).href] }, async (path, copy) => {
        const bytes = await readFile(path);
        await copy?.write(bytes.subarray(0, 1000), 0);
        throw new AdcapError('E_UNLISTED', 'an entry its manifest does not list');
      })
      .then(
        () => null,
        (e: unknown) => e as AdcapError,
      );
    expect(error?.code).toBe('E_UNLISTED');
    expect(await readFile(cache.pathFor(pin.sha256))).toEqual(blob);
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });

  it('passes a mirror with other bytes of the same size on to the next mirror, and keeps none of its bytes', async () => {
    const wrong = join(dir, 'wrong.adcap');
    const right = join(dir, 'right.adcap');
    await writeFile(wrong, Buffer.alloc(blob.length, 0x41));
    await writeFile(right, blob);
    const value = await cache.withBlob({ ...pin, sources: [pathToFileURL(wrong).href, pathToFileURL(right).href] }, checkingUse);
    expect(value).toBe('the pinne');
    expect(await readFile(cache.pathFor(pin.sha256))).toEqual(blob);
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });

  it('refuses with E_DOWNLOAD naming every mirror when none has the pinned bytes (a longer file is not read at all)', async () => {
    const longer = join(dir, 'longer.adcap');
    await writeFile(longer, Buffer.concat([blob, Buffer.from('x')]));
    let calls = 0;
    const error = await cache
      .withBlob(
        { ...pin, sources: [pathToFileURL(longer).href, pathToFileURL(join(dir, 'missing.adcap')).href], what: 'acme/x@1.0.0' },
        (path) => {
          calls += 1;
          return checkingUse(path);
        },
      )
      .then(
        () => null,
        (e: unknown) => e as AdcapError,
      );
    expect(error?.code).toBe('E_DOWNLOAD');
    expect(error?.message).toContain('acme/x@1.0.0');
    expect((error?.details['attempts'] as unknown[]).length).toBe(2);
    expect(calls).toBe(0);
    expect(await cache.has(pin.sha256)).toBe(false);
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });

  it('keeps intact bytes in the cache when the caller refuses the package itself, and that refusal is the error', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    const error = await cache
      .withBlob({ ...pin, sources: [pathToFileURL(source).href] }, () =>
        Promise.reject(new AdcapError('E_SIGNATURE', 'the package is signed by nobody we know')),
      )
      .then(
        () => null,
        (e: unknown) => e as AdcapError,
      );
    expect(error?.code).toBe('E_SIGNATURE');
    expect(await readFile(cache.pathFor(pin.sha256))).toEqual(blob);
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });
});

describe('ContentCache.withBlob over a damaged cache entry', () => {
  it('drops an entry whose bytes changed on disk and fetches it again once', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    await cache.withBlob({ ...pin, sources: [pathToFileURL(source).href] }, checkingUse);
    const entry = cache.pathFor(pin.sha256);
    await chmod(entry, 0o644);
    await writeFile(entry, Buffer.alloc(blob.length, 0x42)); // same size: has() cannot tell
    const value = await cache.withBlob({ ...pin, sources: [pathToFileURL(source).href] }, checkingUse);
    expect(value).toBe('the pinne');
    expect(await readFile(entry)).toEqual(blob);
  });
});
