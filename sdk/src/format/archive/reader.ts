import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable} from 'node:stream';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { AdcapError, asAdcapError } from '../../errors.js';
import { createSha256 } from '../../util/hash.js';
import { progressReporter, type ProgressListener } from '../../util/progress.js';
import { asGzipError, GzipMemberFramer } from './gzip.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { TarParser, type ArchiveVisitor } from './tar-parser.js';

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  onProgress?: ProgressListener;
  /** Progress phase name (default "read"). */
  phase?: string;
  signal?: AbortSignal;
}

export interface ArchiveSummary {
  /** SHA-256 and size of the compressed file, as registries pin it (spec §2). */
  sha256: string;
  size: number;
  entries: number;
  expandedBytes: number;
}

/** Compressed bytes are read in 1 MiB chunks and inflated into 256 KiB ones (see test/bench). */
const READ_CHUNK = 1 << 20;
const INFLATE_CHUNK = 256 * 1024;

/**
 * Reads a .adcap archive in one streaming pass: compressed bytes are hashed, the gzip member is
 * framed and inflated, and the tar stream is parsed block by block with the spec §2 rules and
 * reader limits applied while decompressing. Entry data goes to `visitor` as it is inflated;
 * memory stays bounded by the chunk sizes whatever the size of the archive.
 */
export async function readArchive(source: string | Readable, visitor: ArchiveVisitor, options: ReadArchiveOptions = {}): Promise<ArchiveSummary> {
  const limits = resolveLimits(options.limits);
  let total: number | undefined;
  let input: Readable;
  if (typeof source === 'string') {
    try {
      const info = await stat(source);
      if (!info.isFile()) throw new AdcapError('E_IO', `${source} is not a file; pass the path of a .adcap package.`);
      total = info.size;
    } catch (error) {
      throw asAdcapError(error, `Cannot read the package ${source}`);
    }
    input = createReadStream(source, { highWaterMark: READ_CHUNK });
  } else {
    input = source;
  }

  const progress = progressReporter(options.phase ?? 'read', options.onProgress, total);
  const archiveHash = createSha256();
  let compressedBytes = 0;
  const counter = new Transform({
    readableHighWaterMark: READ_CHUNK,
    writableHighWaterMark: READ_CHUNK,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      archiveHash.update(chunk);
      compressedBytes += chunk.length;
      progress.report(compressedBytes);
      callback(null, chunk);
    },
  });
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

  try {
    await pipeline(input, counter, framer, inflater, sink, options.signal === undefined ? {} : { signal: options.signal });
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
  }
  progress.finish(compressedBytes);
  return { sha256: archiveHash.digest('hex'), size: compressedBytes, entries: parser.entries, expandedBytes: parser.expandedBytes };
}
