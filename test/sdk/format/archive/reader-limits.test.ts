/**
 * spec §2: readers MUST enforce limits on entry count and total expanded size before and while
 * decompressing (reference limits 20,000 entries and 512 MiB). These are the big cases.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ARCHIVE_LIMITS } from '../../../../sdk/src/format/archive/limits.js';
import { readArchive } from '../../../../sdk/src/format/archive/reader.js';
import type { ArchiveVisitor } from '../../../../sdk/src/format/archive/tar-parser.js';
import { readPackage } from '../../../../sdk/src/format/package-read.js';
import { END_OF_ARCHIVE, gzipBytes, manifestFor, padded, rawEntry, rawHeader, rawTar } from '../../../helpers/tar-writer.js';

const MiB = 1024 * 1024;
const acceptAll: ArchiveVisitor = { entry: () => undefined, data: () => undefined, entryEnd: () => undefined };

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-limits-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** gzip of `prefix` followed by `zeroBytes` zeros, produced in 1 MiB steps so the test itself stays small. */
async function gzipWithZeros(prefix: Buffer, zeroBytes: number): Promise<Buffer> {
  // Run-length matching makes the same ~1000:1 stream as level 9 (same size) about five times
  // faster: the test spends its time in the reader, not in making the bomb.
  const gzip = zlib.createGzip({ level: 9, strategy: zlib.constants.Z_RLE });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  gzip.write(prefix);
  const zeros = Buffer.alloc(MiB);
  for (let left = zeroBytes; left > 0; left -= MiB) {
    if (!gzip.write(left >= MiB ? zeros : zeros.subarray(0, left))) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  const bytes = Buffer.concat(out);
  bytes[9] = 255;
  return bytes;
}

describe('spec §2 entry-count limit (20,000)', () => {
  it('archive-rejects-20001-entries: the reader stops at entry 20,001', async () => {
    const header = rawHeader({ name: 'f', size: 0 });
    const blocks: Buffer[] = [];
    for (let i = 0; i < 20_001; i++) blocks.push(rawHeader({ name: `f/${i}`, size: 0 }));
    blocks.push(END_OF_ARCHIVE);
    expect(header.length).toBe(512);
    const error = await readArchive(Readable.from([gzipBytes(Buffer.concat(blocks))]), acceptAll).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_LIMIT', details: { limit: 'maxEntries' } });
  });

  it('accepts exactly 20,000 entries', async () => {
    const blocks: Buffer[] = [];
    for (let i = 0; i < 20_000; i++) blocks.push(rawHeader({ name: `f/${i}`, size: 0 }));
    blocks.push(END_OF_ARCHIVE);
    const summary = await readArchive(Readable.from([gzipBytes(Buffer.concat(blocks))]), acceptAll);
    expect(summary.entries).toBe(20_000);
  });

  it('package-rejects-20001-entries: a package listing 20,000 files plus capability.json is over the limit', async () => {
    const files = Array.from({ length: 20_000 }, (_, i) => ({ path: `f/${String(i).padStart(5, '0')}`, data: '' }));
    const manifest = JSON.stringify(manifestFor(files));
    const tar = Buffer.concat([
      rawEntry({ name: 'capability.json', data: manifest }),
      ...files.map((f) => rawHeader({ name: f.path, size: 0 })),
      END_OF_ARCHIVE,
    ]);
    // Verify only: extracting 20,000 files before the limit fires would only measure the file system.
    const error = await readPackage(Readable.from([gzipBytes(tar)])).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_LIMIT', details: { limit: 'maxEntries' } });
  });

  it('applies a configured entry limit', async () => {
    const tar = rawTar([
      { name: 'a', data: '1' },
      { name: 'b', data: '2' },
      { name: 'c', data: '3' },
    ]);
    await expect(readArchive(Readable.from([gzipBytes(tar)]), acceptAll, { limits: { maxEntries: 2 } })).rejects.toMatchObject({
      code: 'E_LIMIT',
    });
    await expect(readArchive(Readable.from([gzipBytes(tar)]), acceptAll, { limits: { maxEntries: 3 } })).resolves.toMatchObject({
      entries: 3,
    });
  });
});

describe('spec §2 expanded-size limit (512 MiB)', () => {
  it('archive-rejects-gzip-bomb: 600 MiB of zeros is refused after at most 512 MiB inflated, quickly and with bounded memory', async () => {
    // A valid-looking start, then 600 MiB of zero blocks: every block passes as end-of-archive
    // padding, so only counting inflated bytes can stop it.
    const bomb = await gzipWithZeros(rawTar([{ name: 'capability.json', data: '{}' }], { end: false }), 600 * MiB);
    expect(bomb.length).toBeLessThan(2 * MiB);
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = performance.now();
    let inflated = 0;
    const counting: ArchiveVisitor = {
      entry: () => undefined,
      data: (chunk) => void (inflated += chunk.length),
      entryEnd: () => undefined,
    };
    const error = await readArchive(Readable.from([bomb]), counting).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(error).toMatchObject({ code: 'E_LIMIT', details: { limit: 'maxExpandedBytes' } });
    expect(elapsed, 'refused quickly').toBeLessThan(15_000);
    expect(peak - baseline, `RSS grew by ${((peak - baseline) / MiB).toFixed(1)} MiB`).toBeLessThan(64 * MiB);
  });

  it('package-rejects-gzip-bomb: the same bomb through readPackage writes nothing', async () => {
    const manifest = JSON.stringify(manifestFor([]));
    const bomb = await gzipWithZeros(Buffer.concat([rawEntry({ name: 'capability.json', data: manifest }), END_OF_ARCHIVE]), 520 * MiB);
    const parent = await mkdtemp(join(work, 'bomb-'));
    const error = await readPackage(Readable.from([bomb]), { extractTo: join(parent, 'out') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_LIMIT' });
    expect(await readdir(parent)).toEqual([]);
  });

  it('archive-rejects-declared-size-over-limit before inflating the entry', async () => {
    // The header declares 600 MiB; the data is never produced, so only the declared check can fire.
    const header = rawHeader({ name: 'huge.bin', size: 600 * MiB });
    const started = performance.now();
    const error = await readArchive(Readable.from([gzipBytes(Buffer.concat([header, padded(Buffer.from('x'))]))]), acceptAll).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'E_LIMIT', details: { limit: 'maxExpandedBytes' } });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('applies a configured expanded-size limit to the inflated bytes', async () => {
    const tar = rawTar([{ name: 'a', data: 'x'.repeat(5000) }]);
    await expect(
      readArchive(Readable.from([gzipBytes(tar)]), acceptAll, { limits: { maxExpandedBytes: tar.length - 1 } }),
    ).rejects.toMatchObject({ code: 'E_LIMIT' });
    await expect(
      readArchive(Readable.from([gzipBytes(tar)]), acceptAll, { limits: { maxExpandedBytes: tar.length } }),
    ).resolves.toMatchObject({ expandedBytes: tar.length });
  });

  it('uses the reference limits by default', () => {
    expect(DEFAULT_ARCHIVE_LIMITS.maxEntries).toBe(20_000);
    expect(DEFAULT_ARCHIVE_LIMITS.maxExpandedBytes).toBe(512 * MiB);
  });
});
