import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, open, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentCache, type DownloadProgress } from '../../../sdk/src/cache/content-cache.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { acquireLock } from '../../../sdk/src/util/lock.js';
import { TestServer } from '../../helpers/test-server.js';
import { useCacheFixture } from '../../helpers/cache-fixture.js';
import { rejection } from '../../helpers/errors.js';

function blob(size: number): { data: Buffer; sha256: string; size: number } {
  const data = randomBytes(size);
  return { data, sha256: sha256Hex(data), size };
}

describe('ContentCache over HTTPS (test CA)', () => {
  let server: TestServer;
  let dir: string;
  let cache: ContentCache;
  useCacheFixture('arcotheon-cache-', (fx) => {
    ({ server, dir, cache } = fx);
  });

  it('stores a blob at cache/sha256/<2 hex>/<64 hex>, read-only, and never fetches it again', async () => {
    const b = blob(200_000);
    server.serveBytes('/a.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/a.bin')] });
    expect(path).toBe(join(dir, 'cache', 'sha256', b.sha256.slice(0, 2), b.sha256));
    expect((await readFile(path)).equals(b.data)).toBe(true);
    expect((await stat(path)).mode & 0o222).toBe(0);
    const again = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/a.bin')] });
    expect(again).toBe(path);
    expect(server.statsFor('/a.bin').requests).toBe(1);
    expect(await cache.has(b.sha256, b.size)).toBe(true);
    expect(await cache.entries()).toEqual([b.sha256]);
  });

  it('mirror-fallback-after-wrong-bytes: a mirror serving other bytes fails and the next mirror is used', async () => {
    const b = blob(50_000);
    const wrong = Buffer.from(b.data);
    wrong[100] = (wrong[100] ?? 0) ^ 0xff;
    server.serveBytes('/wrong.bin', wrong);
    server.serveBytes('/good.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/wrong.bin'), server.url('/good.bin')] });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    expect(server.statsFor('/wrong.bin').requests).toBe(1);
    expect(server.statsFor('/good.bin').requests).toBe(1);
    // The good mirror started from zero: nothing of the wrong mirror's bytes was kept.
    expect(server.statsFor('/good.bin').ranges).toEqual([]);
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });

  it('fails with E_DOWNLOAD naming what each mirror did when every mirror fails', async () => {
    const b = blob(1000);
    server.serveBytes('/short.bin', b.data.subarray(0, 10), { range: false });
    server.serveBytes('/other.bin', randomBytes(1000));
    const error = await rejection(
      cache.fetchBlob({
        sha256: b.sha256,
        size: b.size,
        sources: [server.url('/missing.bin'), server.url('/other.bin'), 'http://example.com/x.bin'],
        what: 'resource "r"',
      }),
    );
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('Could not download resource "r" (1000 bytes');
    expect(error.message).toMatch(/\(1\) https:\/\/127\.0\.0\.1:\d+\/missing\.bin: .*HTTP 404/);
    expect(error.message).toMatch(/\(2\) https:\/\/127\.0\.0\.1:\d+\/other\.bin: it sent bytes with SHA-256 [0-9a-f]{64}, not the pinned/);
    expect(error.message).toMatch(/\(3\) http:\/\/example\.com\/x\.bin: .*plain http is allowed only for loopback/);
    expect(await cache.has(b.sha256)).toBe(false);
  });

  it('endless-response-cut-at-pinned-size: reads at most the pinned size, fails that mirror in bounded time', async () => {
    const b = blob(100_000);
    server.serveEndless('/endless.bin');
    const started = Date.now();
    const error = await rejection(cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/endless.bin')] }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('it sent more than the pinned 100000 bytes');
    expect(await readdir(cache.tmpDir)).toEqual([]);
    // With a good mirror after it, the download still succeeds.
    server.serveBytes('/good.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/endless.bin'), server.url('/good.bin')] });
    expect((await readFile(path)).equals(b.data)).toBe(true);
  });

  it('refuses a mirror whose Content-Length is larger than the pin before reading the body', async () => {
    const b = blob(1000);
    server.serveBytes('/long.bin', Buffer.concat([b.data, Buffer.from('extra')]));
    const error = await rejection(cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/long.bin')] }));
    expect(error.message).toContain('it declared 1005 bytes, more than the pinned 1000');
  });

  it('a body that lies about its length (none sent) and is one byte too long is cut and fails', async () => {
    const b = blob(1000);
    server.serveBytes('/chunked.bin', Buffer.concat([b.data, Buffer.from('!')]), { contentLength: null });
    const error = await rejection(cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/chunked.bin')] }));
    expect(error.message).toContain('it sent more than the pinned 1000 bytes');
  });

  it('resume-after-dropped-connection: continues with a Range request and transfers about the size once', async () => {
    const b = blob(1024 * 1024);
    server.serveBytes('/big.bin', b.data, { dropAfterBytes: 400_000 });
    const events: DownloadProgress[] = [];
    const path = await cache.fetchBlob({
      sha256: b.sha256,
      size: b.size,
      sources: [server.url('/big.bin')],
      onProgress: (p) => events.push(p),
    });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    const stats = server.statsFor('/big.bin');
    expect(stats.requests).toBe(2);
    expect(stats.ranges).toHaveLength(1);
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(stats.ranges[0] ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(400_000);
    const ratio = stats.bytes / b.size;
    console.log(
      `resume: requests=${stats.requests} range=${stats.ranges[0]} bytesSent=${stats.bytes} size=${b.size} ratio=${ratio.toFixed(4)}`,
    );
    expect(ratio).toBeGreaterThanOrEqual(1);
    expect(ratio).toBeLessThan(1.05);
    expect(events.every((e) => e.phase === 'download' && e.total === b.size)).toBe(true);
    expect(events.at(-1)?.done).toBe(b.size);
  });

  it('falls back to a full download when the server ignores Range (200)', async () => {
    const b = blob(300_000);
    server.serveBytes('/norange.bin', b.data, { range: false, dropAfterBytes: 100_000 });
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/norange.bin')] });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    const stats = server.statsFor('/norange.bin');
    expect(stats.requests).toBe(2);
    expect(stats.ranges).toHaveLength(1);
  });

  it('restarts from zero when a 206 names other bytes than were asked for', async () => {
    const b = blob(20_000);
    let calls = 0;
    server.route('/badrange.bin', (req, res) => {
      calls += 1;
      if (calls === 1) {
        res.setHeader('content-length', String(b.size));
        res.write(b.data.subarray(0, 5_000));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      if (typeof req.headers.range === 'string') {
        res.statusCode = 206;
        res.setHeader('content-range', `bytes 0-${b.size - 1}/${b.size}`);
        res.end(b.data);
        return;
      }
      res.end(b.data);
    });
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/badrange.bin')] });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    expect(calls).toBe(3);
    expect(server.requests.filter((r) => r.path === '/badrange.bin').map((r) => r.headers.range ?? null)).toEqual([
      null,
      'bytes=5000-',
      null,
    ]);
  });

  it('concurrent fetches of one blob share one download and all hear progress', async () => {
    const b = blob(500_000);
    server.serveBytes('/shared.bin', b.data);
    const heard = [0, 0, 0, 0, 0];
    const paths = await Promise.all(
      heard.map((_, i) =>
        cache.fetchBlob({
          sha256: b.sha256,
          size: b.size,
          sources: [server.url('/shared.bin')],
          onProgress: () => (heard[i] = (heard[i] ?? 0) + 1),
        }),
      ),
    );
    expect(new Set(paths).size).toBe(1);
    expect(server.statsFor('/shared.bin').requests).toBe(1);
    expect(server.statsFor('/shared.bin').bytes).toBe(b.size);
    expect(heard[0]).toBeGreaterThan(0);
  });

  it('when another process holds the partial download, downloads into a private temp file instead', async () => {
    const b = blob(40_000);
    server.serveBytes('/locked.bin', b.data);
    await mkdir(cache.tmpDir, { recursive: true });
    const partial = join(cache.tmpDir, `${b.sha256}.partial`);
    await writeFile(partial, Buffer.from('someone else is writing this'));
    const lock = await acquireLock(`${partial}.lock`, 'another process downloading it');
    try {
      const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/locked.bin')] });
      expect((await readFile(path)).equals(b.data)).toBe(true);
      expect((await readFile(partial)).toString()).toBe('someone else is writing this');
      expect(server.statsFor('/locked.bin').ranges).toEqual([]);
      expect((await cache.gc(new Set([b.sha256]))).tempFilesRemoved).toBe(0);
    } finally {
      await lock.release();
    }
  });

  it('verifyEntry detects a corrupted entry, removes it, and the next use refetches it', async () => {
    const b = blob(10_000);
    server.serveBytes('/c.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/c.bin')] });
    expect(await cache.verifyEntry(b.sha256)).toEqual({ sha256: b.sha256, state: 'ok', size: b.size });
    await chmod(path, 0o644);
    const bad = Buffer.from(b.data);
    bad[0] = (bad[0] ?? 0) ^ 1;
    await writeFile(path, bad);
    const result = await cache.verifyEntry(b.sha256);
    expect(result.state).toBe('corrupt');
    expect(result.actualSha256).toBe(sha256Hex(bad));
    expect(await cache.has(b.sha256)).toBe(false);
    expect(await cache.verifyEntry(b.sha256)).toEqual({ sha256: b.sha256, state: 'missing' });
    await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/c.bin')] });
    expect(server.statsFor('/c.bin').requests).toBe(2);
    expect(await cache.verifyEntry(b.sha256)).toMatchObject({ state: 'ok' });
  });

  it('a same-size entry damaged on disk is detected on read (hashed, like cacache), removed and refetched', async () => {
    const b = blob(10_000);
    server.serveBytes('/same.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/same.bin')] });
    await chmod(path, 0o644);
    const bad = Buffer.from(b.data);
    bad[5000] = (bad[5000] ?? 0) ^ 0xff;
    await writeFile(path, bad);
    // The size check alone passes; the read hashes the entry and refuses to hand it out.
    expect(await cache.has(b.sha256, b.size)).toBe(true);
    expect(await cache.cachedPath(b.sha256, b.size)).toBeNull();
    expect(await cache.has(b.sha256)).toBe(false);
    await writeFile(path, bad);
    const again = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/same.bin')] });
    expect((await readFile(again)).equals(b.data)).toBe(true);
    expect(server.statsFor('/same.bin').requests).toBe(2);
    expect(await cache.cachedPath(b.sha256, b.size)).toBe(path);
  });

  it('a caller that hashes what it reads (readerHashes) gets the cached path on the size check alone', async () => {
    const b = blob(4_000);
    server.serveBytes('/reader.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/reader.bin')] });
    await chmod(path, 0o644);
    const bad = Buffer.from(b.data);
    bad[0] = (bad[0] ?? 0) ^ 1;
    await writeFile(path, bad);
    expect(await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/reader.bin')], readerHashes: true })).toBe(path);
    expect(server.statsFor('/reader.bin').requests).toBe(1);
  });

  it('an entry truncated on disk (wrong size) is dropped and refetched on the next fetch', async () => {
    const b = blob(10_000);
    server.serveBytes('/t.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/t.bin')] });
    await chmod(path, 0o644);
    await writeFile(path, b.data.subarray(0, 10));
    await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/t.bin')] });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    expect(server.statsFor('/t.bin').requests).toBe(2);
  });

  it('a pin whose size contradicts an intact entry is E_DOWNLOAD and does not evict the entry', async () => {
    const b = blob(2_000);
    server.serveBytes('/pin.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/pin.bin')] });
    const error = await rejection(cache.fetchBlob({ sha256: b.sha256, size: b.size + 1, sources: [server.url('/pin.bin')] }));
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain(`says ${b.size + 1} bytes, but the content with that SHA-256 has ${b.size}`);
    expect((await readFile(path)).equals(b.data)).toBe(true);
    expect(server.statsFor('/pin.bin').requests).toBe(1);
  });

  it('gc keeps what is asked, removes the rest and stale temp files, and reports bytes freed', async () => {
    const kept = blob(1000);
    // Random blobs share a prefix directory once in 256 draws; this test needs them apart.
    let dropped = blob(3000);
    while (dropped.sha256.slice(0, 2) === kept.sha256.slice(0, 2)) dropped = blob(3000);
    server.serveBytes('/k.bin', kept.data);
    server.serveBytes('/d.bin', dropped.data);
    await cache.fetchBlob({ sha256: kept.sha256, size: kept.size, sources: [server.url('/k.bin')] });
    await cache.fetchBlob({ sha256: dropped.sha256, size: dropped.size, sources: [server.url('/d.bin')] });
    const orphanSha = 'ab'.repeat(32);
    await writeFile(join(cache.tmpDir, `${orphanSha}.partial`), Buffer.alloc(500));
    const staleTemp = join(cache.tmpDir, '.x.1.abc.tmp');
    await writeFile(staleTemp, Buffer.alloc(200));
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(staleTemp, old, old);
    const freshTemp = join(cache.tmpDir, '.y.1.def.tmp');
    await writeFile(freshTemp, Buffer.alloc(100));
    const result = await cache.gc(new Set([kept.sha256]));
    expect(result).toEqual({ removed: [dropped.sha256], freedBytes: 3000 + 500 + 200, tempFilesRemoved: 2 });
    expect(await cache.entries()).toEqual([kept.sha256]);
    expect(await readdir(cache.tmpDir)).toEqual(['.y.1.def.tmp']);
    await expect(stat(join(dir, 'cache', 'sha256', dropped.sha256.slice(0, 2)))).rejects.toThrow();
  });

  it('an empty blob (size 0) is fetched and verified', async () => {
    const b = blob(0);
    server.serveBytes('/empty.bin', b.data);
    const path = await cache.fetchBlob({ sha256: b.sha256, size: 0, sources: [server.url('/empty.bin')] });
    expect((await readFile(path)).length).toBe(0);
  });

  it('refuses plain http to a non-loopback host without contacting it', async () => {
    const b = blob(10);
    const error = await rejection(cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: ['http://cdn.example.com/r.bin'] }));
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('plain http is allowed only for loopback addresses (127.0.0.0/8, ::1, localhost); use an https:// URL');
  });

  it('rejects malformed pins with E_USAGE', async () => {
    await expect(cache.fetchBlob({ sha256: 'ABC', size: 1, sources: [] })).rejects.toMatchObject({ code: 'E_USAGE' });
    await expect(cache.fetchBlob({ sha256: 'a'.repeat(64), size: -1, sources: [] })).rejects.toMatchObject({ code: 'E_USAGE' });
    await expect(cache.fetchBlob({ sha256: 'a'.repeat(64), size: 1, sources: [] })).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
  });
});

describe('ContentCache with file:// sources, loopback http and putFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'arcotheon-cache-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches from file:// and falls back past a wrong file', async () => {
    const b = blob(70_000);
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'good.bin'), b.data);
    await writeFile(join(dir, 'src', 'bad.bin'), randomBytes(70_000));
    const cache = new ContentCache(join(dir, 'cache'));
    const path = await cache.fetchBlob({
      sha256: b.sha256,
      size: b.size,
      sources: [pathToFileURL(join(dir, 'src', 'bad.bin')).href, pathToFileURL(join(dir, 'src', 'good.bin')).href],
    });
    expect((await readFile(path)).equals(b.data)).toBe(true);
  });

  it('survives a dropped connection over loopback http with the default global fetch (undici)', async () => {
    const server = await TestServer.start({ protocol: 'http' });
    try {
      const b = blob(600_000);
      server.serveBytes('/r.bin', b.data, { dropAfterBytes: 250_000, dropDelayMs: 200 });
      const cache = new ContentCache(join(dir, 'cache'));
      const path = await cache.fetchBlob({ sha256: b.sha256, size: b.size, sources: [server.url('/r.bin')] });
      expect((await readFile(path)).equals(b.data)).toBe(true);
      const stats = server.statsFor('/r.bin');
      console.log(`undici resume: requests=${stats.requests} ranges=${stats.ranges.join(',')} bytesSent=${stats.bytes} size=${b.size}`);
      expect(stats.requests).toBe(2);
      // undici drops body bytes it had queued but not yet handed over when the connection breaks, so
      // how much is resumed depends on timing (the HTTPS test above pins it exactly); at worst the
      // first attempt's bytes are transferred twice, never more.
      expect(stats.ranges.every((r) => /^bytes=[1-9]\d*-$/.test(r))).toBe(true);
      expect(stats.bytes).toBeLessThanOrEqual(b.size + 250_000);
    } finally {
      await server.close();
    }
  });

  it('streams: memory does not grow with the blob size (48 MiB via file://)', async () => {
    const size = 48 * 1024 * 1024;
    const source = join(dir, 'large.bin');
    const chunk = randomBytes(1024 * 1024);
    const handle = await open(source, 'w');
    const hash = createHash('sha256');
    for (let i = 0; i < 48; i += 1) {
      await handle.write(chunk);
      hash.update(chunk);
    }
    await handle.close();
    const cache = new ContentCache(join(dir, 'cache'));
    // Garbage chunks count until collected, so collect before each sample.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let next = 0;
    const path = await cache.fetchBlob({
      sha256: hash.digest('hex'),
      size,
      sources: [pathToFileURL(source).href],
      onProgress: (p) => {
        if (p.done < next) return;
        next = p.done + 4 * 1024 * 1024;
        gc();
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
      },
    });
    expect((await stat(path)).size).toBe(size);
    console.log(`memory: peak arrayBuffers growth ${(peak / 1024 / 1024).toFixed(1)} MiB for a ${size / 1024 / 1024} MiB blob`);
    expect(peak).toBeLessThan(8 * 1024 * 1024);
  });

  it('putFile copies a matching file in and refuses a mismatching one with E_HASH', async () => {
    const b = blob(5000);
    await writeFile(join(dir, 'x.bin'), b.data);
    const cache = new ContentCache(join(dir, 'cache'));
    const path = await cache.putFile(join(dir, 'x.bin'), { sha256: b.sha256, size: b.size });
    expect((await readFile(path)).equals(b.data)).toBe(true);
    await expect(cache.putFile(join(dir, 'x.bin'), { sha256: 'c'.repeat(64), size: b.size })).rejects.toMatchObject({ code: 'E_HASH' });
    await expect(cache.putFile(join(dir, 'x.bin'), { sha256: 'c'.repeat(64), size: 10 })).rejects.toMatchObject({ code: 'E_HASH' });
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });
});
