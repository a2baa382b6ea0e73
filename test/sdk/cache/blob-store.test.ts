// The store half of the content cache (blob-store.ts, DESIGN §6), on its own: no downloader, no
// network. What goes in is checked against its address, a damaged entry is dropped on read, and gc
// keeps what it is told to keep and what the caller says is busy.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../../sdk/src/cache/blob-store.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { acquireLock } from '../../../sdk/src/util/lock.js';
import { rejection } from '../../helpers/errors.js';

describe('BlobStore', () => {
  let dir: string;
  let store: BlobStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'arcotheon-blob-store-'));
    store = new BlobStore(join(dir, 'cache'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function put(size: number): Promise<{ sha256: string; size: number; data: Buffer; path: string }> {
    const data = randomBytes(size);
    const source = join(dir, `source-${size}`);
    await writeFile(source, data);
    const sha256 = sha256Hex(data);
    const path = await store.putFile(source, { sha256, size });
    return { sha256, size, data, path };
  }

  it('puts a file at its content address only when its bytes match the pin', async () => {
    const blob = await put(4096);
    expect(blob.path).toBe(join(dir, 'cache', 'sha256', blob.sha256.slice(0, 2), blob.sha256));
    expect((await readFile(blob.path)).equals(blob.data)).toBe(true);
    const other = join(dir, 'other');
    await writeFile(other, randomBytes(4096));
    const error = await rejection(store.putFile(other, { sha256: '0'.repeat(64), size: 4096 }));
    expect(error).toMatchObject({ code: 'E_HASH' });
    expect(await store.has('0'.repeat(64))).toBe(false);
    expect(await readdir(store.tmpDir)).toEqual([]);
  });

  it('drops an entry whose bytes changed on disk when it is read, and keeps an intact one', async () => {
    const good = await put(1000);
    const bad = await put(1000);
    expect(await store.present(good.path, good.size)).toBe(true);
    await chmod(bad.path, 0o644);
    await writeFile(bad.path, randomBytes(1000));
    expect(await store.present(bad.path, bad.size)).toBe(false);
    expect(await store.has(bad.sha256)).toBe(false);
    expect(await store.verifyEntry(good.sha256)).toEqual({ sha256: good.sha256, state: 'ok', size: 1000 });
    expect(await store.verifyEntry(bad.sha256)).toEqual({ sha256: bad.sha256, state: 'missing' });
  });

  it('refuses a size pin that contradicts an intact entry instead of evicting it', async () => {
    const blob = await put(512);
    const error = await rejection(store.present(blob.path, 513));
    expect(error).toMatchObject({ code: 'E_DOWNLOAD' });
    expect(await store.has(blob.sha256, 512)).toBe(true);
  });

  it('gc removes what is neither kept nor busy, and leaves a partial download whose lock is held', async () => {
    const kept = await put(100);
    const busy = await put(200);
    const dropped = await put(300);
    await mkdir(store.tmpDir, { recursive: true });
    const heldPartial = join(store.tmpDir, `${'a'.repeat(64)}.partial`);
    const orphanPartial = join(store.tmpDir, `${'b'.repeat(64)}.partial`);
    await writeFile(heldPartial, 'x');
    await writeFile(orphanPartial, 'yy');
    const lock = await acquireLock(`${heldPartial}.lock`, 'test download');
    const freshTemp = join(store.tmpDir, 'fresh.tmp');
    const staleTemp = join(store.tmpDir, 'stale.tmp');
    await writeFile(freshTemp, 'z');
    await writeFile(staleTemp, 'zz');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(staleTemp, twoHoursAgo, twoHoursAgo);
    try {
      const result = await store.gc(new Set([kept.sha256]), (sha256) => sha256 === busy.sha256);
      expect(result.removed).toEqual([dropped.sha256]);
      expect(result.tempFilesRemoved).toBe(2);
      expect(result.freedBytes).toBe(300 + 2 + 2);
      expect((await store.entries()).sort()).toEqual([kept.sha256, busy.sha256].sort());
      expect(await readFile(heldPartial, 'utf8')).toBe('x');
      expect(await readFile(freshTemp, 'utf8')).toBe('z');
    } finally {
      await lock.release();
    }
  });
});
