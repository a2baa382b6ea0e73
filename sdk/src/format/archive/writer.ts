import { constants, createWriteStream } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib, { type InputType, type ZlibOptions } from 'node:zlib';
import { AdcapError, asAdcapError } from '../../errors.js';
import { fsyncDir, tempPathFor } from '../../util/fs-atomic.js';
import { createSha256 } from '../../util/hash.js';
import { BLOCK_SIZE, encodeHeader, RECORD_SIZE } from './ustar.js';

/** One file to write. Entries are written in the order given (the caller sorts them). */
export interface ArchiveEntrySource {
  path: string;
  size: number;
  executable: boolean;
  /** The file's bytes; a stream must produce exactly `size` bytes. A promise suits small files read whole. */
  open(): Readable | Uint8Array | Promise<Uint8Array>;
}

/**
 * The compression settings are part of the toolchain that spec §2 says makes builds
 * byte-identical: changing them changes every archive hash, so they are constants, not options.
 *
 * The tar stream is cut into CHUNK_BYTES pieces that are deflated independently on the libuv
 * thread pool (several cores at once, as pigz does): each piece is primed with the last 32 KiB of
 * the previous one as its dictionary and ends with a sync flush, so the pieces concatenate into
 * one ordinary deflate stream that any gunzip reads. The cut points depend only on the bytes, so
 * the output is still deterministic.
 */
const ARCHIVE_GZIP_LEVEL = 6;
const CHUNK_BYTES = 1 << 20;
const DICTIONARY_BYTES = 32 * 1024;
const PARALLEL_DEFLATES = 4;

/**
 * How many pieces are deflated at once: one per core that is free now, at most
 * PARALLEL_DEFLATES, at least one. On a busy machine more deflates at once only compete with each
 * other (and with this thread, which reads files, builds the tar stream and hashes); one at a time
 * then costs what one gzip costs. The pieces and so the archive bytes are the same whatever this
 * number is: it changes only how many run at the same time.
 */
export function deflateConcurrency(cores: number = os.availableParallelism(), load: number = os.loadavg()[0] ?? 0): number {
  // The 1-minute load counts runnable threads on the whole machine, this build's own included.
  const free = Math.floor(cores - load + 0.5);
  return Math.max(1, Math.min(PARALLEL_DEFLATES, free));
}
/** Small entries are batched into one buffer before compression to avoid per-write overhead. */
const BATCH_BYTES = 256 * 1024;
/** spec §2 / DESIGN §4: no name, no time, OS unknown (255). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

/**
 * Writes a deterministic .adcap archive (spec §2, DESIGN §4): ustar headers from `encodeHeader`
 * (mtime/uid/gid 0, empty owner names, mode 0644/0755), two zero blocks and zero padding to a
 * full record, gzip with FLG 0, MTIME 0 and OS 255. When `out` is a path the file is written to
 * a temp sibling, fsynced and renamed, so a crash never leaves half a package at `out`.
 */
export async function writeArchive(
  entries: ArchiveEntrySource[],
  out: NodeJS.WritableStream | string,
): Promise<{ sha256: string; size: number }> {
  const hash = createSha256();
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const gzip = Readable.from(gzipMember(tarStream(entries)), { objectMode: false, highWaterMark: CHUNK_BYTES });

  if (typeof out !== 'string') {
    await runPipeline(gzip, measure, out as Writable);
    return { sha256: hash.digest('hex'), size };
  }

  const temp = tempPathFor(out);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    const file = createWriteStream('', { fd: handle.fd, autoClose: false, highWaterMark: 1 << 20 });
    await runPipeline(gzip, measure, file);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, out);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw asAdcapError(error, `Cannot write the package ${out}`);
  }
  await fsyncDir(dirname(out));
  return { sha256: hash.digest('hex'), size };
}

async function runPipeline(gzip: Readable, measure: Transform, out: Writable): Promise<void> {
  try {
    await pipeline(gzip, measure, out);
  } catch (error) {
    throw asAdcapError(error, 'Cannot write the package');
  }
}

const deflateRaw = promisify<InputType, ZlibOptions, Buffer>(zlib.deflateRaw);

/** One gzip member (RFC 1952) around the tar stream, deflated in parallel pieces. */
async function* gzipMember(tar: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield GZIP_HEADER;
  let crc = 0;
  let length = 0;
  let dictionary: Buffer | undefined;
  const inFlight: Promise<Buffer>[] = [];
  // At most `concurrency` deflates run; one more piece waits ready, so the deflater never waits
  // for this thread to cut the next one.
  const concurrency = deflateConcurrency();
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async (): Promise<void> => {
    if (running < concurrency) {
      running += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next(); // the slot passes on
  };
  const start = (piece: Buffer, last: boolean): void => {
    crc = zlib.crc32(piece, crc);
    length += piece.length;
    const options: ZlibOptions = {
      level: ARCHIVE_GZIP_LEVEL,
      ...(last ? {} : { finishFlush: zlib.constants.Z_SYNC_FLUSH }),
      ...(dictionary ? { dictionary } : {}),
    };
    const job = slot().then(() => deflateRaw(piece, options).finally(release));
    job.catch(() => undefined); // awaited in order below
    inFlight.push(job);
    dictionary = Buffer.from(piece.subarray(Math.max(0, piece.length - DICTIONARY_BYTES)));
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of tar) {
    pending.push(chunk);
    pendingBytes += chunk.length;
    while (pendingBytes >= CHUNK_BYTES + 1) {
      // Keep at least one byte back, so the final piece (Z_FINISH) is never empty.
      const joined = Buffer.concat(pending, pendingBytes);
      start(joined.subarray(0, CHUNK_BYTES), false);
      pending = [joined.subarray(CHUNK_BYTES)];
      pendingBytes -= CHUNK_BYTES;
      if (inFlight.length > concurrency) yield await inFlight.shift()!;
    }
  }
  start(Buffer.concat(pending, pendingBytes), true);
  while (inFlight.length > 0) yield await inFlight.shift()!;
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  yield trailer;
}

const PREFETCH_ENTRIES = 16;

/** The uncompressed tar stream, with small pieces batched into buffers of about BATCH_BYTES. */
async function* tarStream(entries: ArchiveEntrySource[]): AsyncGenerator<Buffer> {
  const batch: Buffer[] = [];
  let batched = 0;
  let written = 0;
  function* push(piece: Buffer): Generator<Buffer> {
    written += piece.length;
    if (piece.length >= BATCH_BYTES) {
      if (batched > 0) yield flush();
      yield piece;
      return;
    }
    batch.push(piece);
    batched += piece.length;
    if (batched >= BATCH_BYTES) yield flush();
  }
  function flush(): Buffer {
    const joined = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
    batch.length = 0;
    batched = 0;
    return joined;
  }

  // Entries are opened a few ahead, so small files (read whole) are read while the compressor
  // works; a stream is only opened there and read when its turn comes.
  const ahead = new Map<number, ReturnType<ArchiveEntrySource['open']>>();
  let nextAhead = 0;
  const prefetch = (upTo: number): void => {
    for (; nextAhead < Math.min(upTo, entries.length); nextAhead++) {
      const opened = entries[nextAhead]!.open();
      if (opened instanceof Promise) opened.catch(() => undefined); // awaited below; never unhandled
      ahead.set(nextAhead, opened);
    }
  };

  try {
    yield* entryPieces();
  } finally {
    // A failed or abandoned write: release the streams that were opened ahead.
    for (const opened of ahead.values()) if (!(opened instanceof Promise) && !(opened instanceof Uint8Array)) opened.destroy();
  }
  // End-of-archive: two zero blocks, then zeros up to a whole record as tar(1) writes them.
  const end = 2 * BLOCK_SIZE;
  const total = written + end;
  yield* push(Buffer.alloc(end + ((RECORD_SIZE - (total % RECORD_SIZE)) % RECORD_SIZE)));
  if (batched > 0) yield flush();

  async function* entryPieces(): AsyncGenerator<Buffer> {
    for (const [index, entry] of entries.entries()) {
      yield* push(encodeHeader(entry));
      prefetch(index + PREFETCH_ENTRIES);
      const opened = ahead.get(index)!;
      ahead.delete(index);
      const content = opened instanceof Promise ? await opened : opened;
      let produced = 0;
      if (content instanceof Uint8Array) {
        produced = content.length;
        if (produced === entry.size) yield* push(Buffer.from(content.buffer, content.byteOffset, content.byteLength));
      } else {
        for await (const chunk of content) {
          const piece = chunk as Buffer;
          produced += piece.length;
          if (produced > entry.size) {
            content.destroy();
            break;
          }
          yield* push(piece);
        }
      }
      if (produced !== entry.size) {
        throw new AdcapError(
          'E_IO',
          `The file ${entry.path} changed while the package was being written (expected ${entry.size} bytes); build again.`,
          {
            details: { path: entry.path },
          },
        );
      }
      const padding = (BLOCK_SIZE - (entry.size % BLOCK_SIZE)) % BLOCK_SIZE;
      if (padding > 0) yield* push(Buffer.alloc(padding));
    }
  }
}
