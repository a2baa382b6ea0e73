// ContentCache.withBlob lets install verify a download and extract it in one read.
// A file:// mirror is cloned into the cache in the kernel; the clone becomes the cache entry only
// after the caller's read accepted the pin; a mirror with wrong bytes passes on to the next one; a
// package refused although its bytes are the pinned ones is kept in the cache and its error stands.
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { AdcapError } from '../../../sdk/src/errors.js';

let dir: string;
let cache: ContentCache;
const blob = Buffer.from('the pinned bytes of an archive\n'.repeat(1000));
const pin = { sha256: createHash('sha256').update(blob).digest('hex'), size: blob.length };

/** A `use` that reads the path once and refuses bytes other than the pinned ones, as readPackage's expectArchive does. */
async function checkingUse(path: string): Promise<string> {
  const bytes = await readFile(path);
  if (createHash('sha256').update(bytes).digest('hex') !== pin.sha256) throw new AdcapError('E_HASH', 'not the pinned archive');
  return bytes.toString('utf8').slice(0, 9);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-with-blob-'));
  cache = new ContentCache(join(dir, 'cache'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('ContentCache.withBlob over file:// mirrors', () => {
  it('reads a clone of the mirror once and keeps it as the cache entry, read-only, with download progress', async () => {
    const source = join(dir, 'archive.adcap');
    await writeFile(source, blob);
    const seen: string[] = [];
    const progress: string[] = [];
    const value = await cache.withBlob(
      { ...pin, sources: [pathToFileURL(source).href], onProgress: (p) => progress.push(`${p.phase} ${p.done}/${p.total}`) },
      async (path) => {
        seen.push(path);
        return checkingUse(path);
      },
    );
    expect(value).toBe('the pinne');
    // The caller read a private clone in cache/tmp, not the mirror itself.
    expect(seen[0]).not.toBe(source);
    expect(seen[0]?.startsWith(join(dir, 'cache', 'tmp'))).toBe(true);
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
