import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { AdcapError } from '../../errors.js';

/**
 * The gzip member around the tar stream (RFC 1952).
 *
 * Writing is in writer.ts (its own header: FLG 0, MTIME 0, OS 255; parallel deflate pieces).
 *
 * Reading: zlib's gunzip silently accepts a second member and ignores trailing zeros, so the
 * reader frames the member itself: it parses the header, feeds the deflate body to a raw
 * inflater, and checks that exactly the 8-byte trailer (CRC-32, size) follows the deflate stream.
 */
const FTEXT = 1;
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const MAX_HEADER_BYTES = 64 * 1024;
const TRAILER_BYTES = 8;

function gzipError(problem: string, cause?: unknown): AdcapError {
  return new AdcapError('E_GZIP', `The package ${problem}; it is not an intact .adcap file (download or copy it again).`, cause === undefined ? {} : { cause });
}

/** Converts a zlib failure into E_GZIP, keeping AdcapErrors as they are. */
export function asGzipError(error: unknown): unknown {
  if (error instanceof AdcapError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    const message = error instanceof Error ? error.message : String(error);
    return gzipError(message === 'unexpected end of file' ? 'is truncated (the gzip stream ends early)' : `has a corrupt gzip stream (${message})`, error);
  }
  return error;
}

/**
 * Sits between the compressed source and a raw inflater: strips and checks the gzip header,
 * forwards the deflate body, and remembers the last bytes so `finish` can check the trailer.
 * `inflater.bytesWritten` tells where the deflate stream ended.
 */
export class GzipMemberFramer extends Transform {
  private headerBuffer: Buffer | null = Buffer.alloc(0);
  private bodyBytes = 0;
  private tail = Buffer.alloc(0);
  private inflaterEnded = false;

  constructor(private readonly inflater: zlib.InflateRaw) {
    super({ readableHighWaterMark: 1 << 20, writableHighWaterMark: 1 << 20 });
    inflater.once('end', () => {
      this.inflaterEnded = true;
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      let body = chunk;
      if (this.headerBuffer !== null) {
        const buffered = this.headerBuffer.length === 0 ? chunk : Buffer.concat([this.headerBuffer, chunk]);
        const headerLength = parseGzipHeader(buffered);
        if (headerLength === undefined) {
          if (buffered.length > MAX_HEADER_BYTES) throw gzipError('has a gzip header longer than 64 KiB');
          this.headerBuffer = buffered;
          callback();
          return;
        }
        this.headerBuffer = null;
        body = buffered.subarray(headerLength);
      }
      this.bodyBytes += body.length;
      // A copy, so the tail does not pin a whole 1 MiB chunk in memory.
      this.tail = Buffer.from(body.length >= TRAILER_BYTES ? body.subarray(body.length - TRAILER_BYTES) : Buffer.concat([this.tail, body]).subarray(-TRAILER_BYTES));
      // Stop early when the deflate stream has ended and more than a trailer follows it.
      if (this.inflaterEnded && this.bodyBytes - this.inflater.bytesWritten > TRAILER_BYTES) {
        throw gzipError('has data after the end of its gzip stream');
      }
      callback(null, body);
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.headerBuffer !== null) {
      callback(this.headerBuffer.length === 0 ? gzipError('is empty') : gzipError('is not gzip-compressed or its gzip header is cut short'));
      return;
    }
    callback();
  }

  /**
   * After the inflater has ended: exactly 8 bytes must follow the deflate stream, holding the
   * CRC-32 and the length (mod 2^32) of the inflated data.
   */
  finish(crc: number, inflatedBytes: number): void {
    const after = this.bodyBytes - this.inflater.bytesWritten;
    if (after < TRAILER_BYTES) throw gzipError('is truncated (the gzip trailer is missing)');
    if (after > TRAILER_BYTES) throw gzipError('has data after the end of its gzip stream');
    const trailer = this.tail.subarray(this.tail.length - TRAILER_BYTES);
    if (trailer.readUInt32LE(0) !== crc >>> 0) throw gzipError('fails its gzip CRC-32 check');
    if (trailer.readUInt32LE(4) !== inflatedBytes % 2 ** 32) throw gzipError('fails its gzip length check');
  }
}

/** Length of a complete gzip header at the start of `data`, or undefined if more bytes are needed. */
function parseGzipHeader(data: Buffer): number | undefined {
  if (data.length >= 1 && data[0] !== 0x1f) throw gzipError('is not gzip-compressed');
  if (data.length >= 2 && data[1] !== 0x8b) throw gzipError('is not gzip-compressed');
  if (data.length < 10) return undefined;
  if (data[2] !== 8) throw gzipError('uses a gzip compression method other than deflate');
  const flags = data[3]!;
  if ((flags & ~(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT)) !== 0) throw gzipError('has reserved gzip header flags set');
  let pos = 10;
  if (flags & FEXTRA) {
    if (data.length < pos + 2) return undefined;
    pos += 2 + data.readUInt16LE(pos);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const end = data.indexOf(0, pos);
      if (end === -1) return undefined;
      pos = end + 1;
    }
  }
  if (flags & FHCRC) {
    if (data.length < pos + 2) return undefined;
    if (data.readUInt16LE(pos) !== (zlib.crc32(data.subarray(0, pos)) & 0xffff)) throw gzipError('fails its gzip header CRC check');
    pos += 2;
  }
  return data.length >= pos ? pos : undefined;
}
