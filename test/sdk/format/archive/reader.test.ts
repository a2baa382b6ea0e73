/**
 * The reader's compressed side: a package file is read into a few buffers that are reused, and
 * the gzip framer must not keep views of them. These tests make the reuse visible: a buffer
 * overwritten too early would change what is inflated, hashed or checked.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GzipMemberFramer } from '../../../../sdk/src/format/archive/gzip.js';
import { readArchive } from '../../../../sdk/src/format/archive/reader.js';
import type { ArchiveEntryHeader, ArchiveVisitor } from '../../../../sdk/src/format/archive/tar-parser.js';
import { gzipBytes, rawTar, sha256 } from '../../../helpers/tar-writer.js';

const MiB = 1024 * 1024;

/** Records each entry's path, size and SHA-256 of the data the reader delivered. */
function recorder(): { visitor: ArchiveVisitor; seen: { path: string; size: number; sha256: string }[] } {
  const seen: { path: string; size: number; sha256: string }[] = [];
  let current: { header: ArchiveEntryHeader; chunks: Buffer[] } | undefined;
  const visitor: ArchiveVisitor = {
    entry: (header) => {
      current = { header, chunks: [] };
    },
    data: (chunk) => {
      current!.chunks.push(Buffer.from(chunk));
    },
    entryEnd: () => {
      seen.push({ path: current!.header.path, size: current!.header.size, sha256: sha256(Buffer.concat(current!.chunks)) });
    },
  };
  return { visitor, seen };
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-reader-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('readArchive from a file path (reused read buffers)', () => {
  // Incompressible data, so the compressed file spans many more read chunks than there are buffers.
  const entries = [
    { name: 'a.bin', data: randomBytes(3 * MiB + 17) },
    { name: 'b.txt', data: Buffer.from('small entry between two large ones\n') },
    { name: 'c.bin', data: randomBytes(4 * MiB - 5) },
  ];
  const gz = gzipBytes(rawTar(entries), 1);

  it('inflates, hashes and checks every byte of a file many read chunks long', async () => {
    expect(gz.length).toBeGreaterThan(6 * MiB);
    const file = join(work, 'big.adcap');
    await writeFile(file, gz);
    const { visitor, seen } = recorder();
    const summary = await readArchive(file, visitor);
    expect(summary).toMatchObject({ sha256: sha256(gz), size: gz.length, entries: 3 });
    expect(seen).toEqual(entries.map((e) => ({ path: e.name, size: e.data.length, sha256: sha256(e.data) })));
  });

  it('gives the same summary for the file and for a stream of its bytes', async () => {
    const file = join(work, 'same.adcap');
    await writeFile(file, gz);
    const fromFile = await readArchive(file, recorder().visitor);
    const fromStream = await readArchive(Readable.from([gz.subarray(0, 1000), gz.subarray(1000)]), recorder().visitor);
    expect(fromFile).toEqual(fromStream);
  });

  it('still checks the CRC-32 in the trailer of a large file', async () => {
    const corrupt = Buffer.from(gz);
    corrupt[corrupt.length - 8]! ^= 0xff;
    const file = join(work, 'crc.adcap');
    await writeFile(file, corrupt);
    await expect(readArchive(file, recorder().visitor)).rejects.toMatchObject({ code: 'E_GZIP', message: /CRC-32/ });
  });

  it('refuses data after the gzip stream of a large file', async () => {
    const file = join(work, 'trailing.adcap');
    await writeFile(file, Buffer.concat([gz, Buffer.from('garbage after the trailer')]));
    await expect(readArchive(file, recorder().visitor)).rejects.toMatchObject({ code: 'E_GZIP' });
  });
});

describe("readArchive from a caller's stream", () => {
  it('fails at once on a corrupt entry even when the stream then stalls without ending', async () => {
    const gz = gzipBytes(rawTar([{ name: 'bad', data: 'x', checksumDelta: 1 }]));
    const stalled = new Readable({ read: () => undefined });
    stalled.push(gz);
    await expect(readArchive(stalled, recorder().visitor)).rejects.toMatchObject({ code: 'E_TAR' });
    expect(stalled.destroyed).toBe(true);
  });
});

describe('GzipMemberFramer keeps no view of the chunks it is given', () => {
  it('frames a header and trailer delivered byte by byte through one reused buffer', () => {
    const body = zlib.deflateRawSync(Buffer.from('hello, framer'));
    // FNAME set: a header of variable length, which has to be buffered across chunks.
    const header = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 255]), Buffer.from('name.tar\0', 'latin1')]);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(zlib.crc32('hello, framer'), 0);
    trailer.writeUInt32LE(13, 4);
    const member = Buffer.concat([header, body, trailer]);
    const inflater = zlib.createInflateRaw();
    const framer = new GzipMemberFramer(inflater);
    const reused = Buffer.alloc(1);
    const bodyOut: number[] = [];
    for (const byte of member) {
      reused[0] = byte;
      for (const b of framer.accept(reused)) bodyOut.push(b); // copied out at once, as the inflater consumes it
      reused[0] = 0xee; // what a reused read buffer would hold next
    }
    framer.end();
    expect(Buffer.from(bodyOut)).toEqual(Buffer.concat([body, trailer]));
    // The trailer check reads the framer's own copy of the last 8 bytes, not the overwritten buffer.
    Object.defineProperty(inflater, 'bytesWritten', { value: body.length });
    expect(() => framer.finish(zlib.crc32('hello, framer'), 13)).not.toThrow();
    expect(() => framer.finish(zlib.crc32('hello, framer'), 14)).toThrow(/length check/);
  });
});
