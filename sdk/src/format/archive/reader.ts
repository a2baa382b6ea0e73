import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { AdcapError, asAdcapError } from '../../errors.js';
import { createSha256 } from '../../util/hash.js';
import { progressReporter, type ProgressListener, type ProgressPhase } from '../../util/progress.js';
import { asGzipError, GzipMemberFramer } from './gzip.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { TarParser, type ArchiveVisitor } from './tar-parser.js';

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  onProgress?: ProgressListener;
  /** Progress phase name (default "read"). */
  phase?: ProgressPhase;
  signal?: AbortSignal;
}

export interface ArchiveSummary {
  /** SHA-256 and size of the compressed file, as registries pin it (spec §2). */
  sha256: string;
  size: number;
  entries: number;
  expandedBytes: number;
}

/**
 * Compressed bytes are read in 1 MiB chunks and inflated into 256 KiB ones (see test/bench).
 * A package file is read into a few buffers that are used over and over: fresh memory for every
 * chunk costs page faults that showed up as a large share of the verify time.
 */
const READ_CHUNK = 1 << 20;
const INFLATE_CHUNK = 256 * 1024;
/** Compressed chunks handed to the inflater and not yet consumed by it (the read-ahead). */
const QUEUED_CHUNKS = 3;

/** Where compressed bytes come from; a returned chunk is only valid until the next call. */
interface ChunkSource {
  next(): Promise<Buffer | null>;
  close(): Promise<void>;
}

/**
 * Reads a .adcap archive in one streaming pass: compressed bytes are hashed, the gzip member is
 * framed and inflated, and the tar stream is parsed block by block with the spec §2 rules and
 * reader limits applied while decompressing. Entry data goes to `visitor` as it is inflated;
 * memory stays bounded by the chunk sizes whatever the size of the archive.
 */
export async function readArchive(
  source: string | Readable,
  visitor: ArchiveVisitor,
  options: ReadArchiveOptions = {},
): Promise<ArchiveSummary> {
  const limits = resolveLimits(options.limits);
  let total: number | undefined;
  let input: ChunkSource;
  if (typeof source === 'string') {
    try {
      const info = await stat(source);
      if (!info.isFile()) throw new AdcapError('E_IO', `${source} is not a file; pass the path of a .adcap package.`);
      total = info.size;
      input = fileChunks(await open(source, 'r'));
    } catch (error) {
      throw asAdcapError(error, `Cannot read the package ${source}`);
    }
  } else {
    input = streamChunks(source);
  }

  const progress = progressReporter(options.phase ?? 'read', options.onProgress, total);
  const archiveHash = createSha256();
  let compressedBytes = 0;
  const inflater = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK });
  const framer = new GzipMemberFramer(inflater);
  const parser = new TarParser(visitor, limits);
  let crc = 0;
  // The visitor's work in progress (a file being created, say): a failure elsewhere in the pipeline
  // waits for it, so the caller's cleanup never races a write that is still under way.
  let inflight: Promise<void> = Promise.resolve();
  const sink = new Writable({
    highWaterMark: INFLATE_CHUNK,
    write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      // Parsed and hashed on the next turn of the event loop, not inside the inflater's callback:
      // the inflater then starts on its next chunk in the thread pool while this one is hashed.
      inflight = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        crc = zlib.crc32(chunk, crc);
        return parser.write(chunk);
      });
      inflight.then(() => callback(), callback);
    },
  });

  /** Compressed side: hash, frame and queue each chunk; a chunk's memory is reused once inflated. */
  const feed = async (): Promise<void> => {
    const queued: Promise<void>[] = [];
    for (;;) {
      while (queued.length >= QUEUED_CHUNKS) await queued.shift();
      if (inflater.destroyed) return; // the output side failed; its error is the read's error
      if (options.signal?.aborted === true) throw new AdcapError('E_IO', 'Reading the package was cancelled.');
      const chunk = await input.next();
      if (chunk === null) break;
      const body = framer.accept(chunk);
      // Queued first, so the thread pool can inflate while this thread hashes the same bytes.
      if (body.length > 0) queued.push(writeTo(inflater, body));
      archiveHash.update(chunk);
      compressedBytes += chunk.length;
      progress.report(compressedBytes);
    }
    await Promise.all(queued);
    framer.end();
    inflater.end();
  };

  try {
    const output = pipeline(inflater, sink, options.signal === undefined ? {} : { signal: options.signal });
    output.catch(() => undefined); // awaited below
    const feeding = feed().catch((error: unknown) => {
      // Ends the output side too: the pipeline rejects with this error unless it failed first.
      inflater.destroy(error as Error);
      throw error;
    });
    feeding.catch(() => undefined); // awaited below unless the output side fails first
    await output;
    // The inflated side is complete; the compressed side may still have the trailer to deliver.
    await feeding;
    framer.finish(crc, parser.expandedBytes);
    parser.end();
  } catch (error) {
    parser.abort();
    await inflight.catch(() => undefined);
    const converted = asGzipError(error);
    if (converted instanceof AdcapError) throw converted;
    if ((converted as { name?: unknown } | null)?.name === 'AbortError') {
      throw new AdcapError('E_IO', 'Reading the package was cancelled.', { cause: converted });
    }
    throw asAdcapError(converted, 'Cannot read the package');
  } finally {
    await input.close();
  }
  progress.finish(compressedBytes);
  return { sha256: archiveHash.digest('hex'), size: compressedBytes, entries: parser.entries, expandedBytes: parser.expandedBytes };
}

/** Resolves once the inflater has consumed `body` entirely (its memory may then be reused). */
function writeTo(inflater: zlib.InflateRaw, body: Buffer): Promise<void> {
  const written = new Promise<void>((resolve, reject) => {
    inflater.write(body, (error?: Error | null) => (error ? reject(error) : resolve()));
  });
  written.catch(() => undefined); // awaited in order by the feed, or superseded by the pipeline's error
  return written;
}

/**
 * A file read into QUEUED_CHUNKS + 1 buffers in turn: while up to QUEUED_CHUNKS of them wait in the
 * inflater, the next one is read. The feed waits for the oldest queued chunk before asking for the
 * next, so a buffer is never overwritten while the inflater may still read it.
 */
function fileChunks(handle: FileHandle): ChunkSource {
  const buffers = Array.from({ length: QUEUED_CHUNKS + 1 }, () => Buffer.allocUnsafe(READ_CHUNK));
  let turn = 0;
  let position = 0;
  return {
    async next(): Promise<Buffer | null> {
      const buffer = buffers[turn++ % buffers.length]!;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      position += bytesRead;
      return bytesRead === 0 ? null : buffer.subarray(0, bytesRead);
    },
    close: () => handle.close().catch(() => undefined),
  };
}

/** A caller's stream: its chunks are fresh memory, so nothing is reused. */
function streamChunks(stream: Readable): ChunkSource {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  return {
    async next(): Promise<Buffer | null> {
      const { done, value } = await iterator.next();
      if (done === true) return null;
      return typeof value === 'string' ? Buffer.from(value) : value;
    },
    close(): Promise<void> {
      // Stops the stream when the read ended early (an error), which also settles a pending next()
      // of a stream that stalled; the pipeline the reader used before did the same.
      stream.destroy();
      return Promise.resolve();
    },
  };
}
