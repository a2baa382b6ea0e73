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
const EMPTY = Buffer.alloc(0);

function gzipError(problem: string, cause?: unknown): AdcapError {
  return new AdcapError(
    'E_GZIP',
    `The package ${problem}; it is not an intact .adcap file (download or copy it again).`,
    cause === undefined ? {} : { cause },
  );
}

/** Converts a zlib failure into E_GZIP, keeping AdcapErrors as they are. */
export function asGzipError(error: unknown): unknown {
  if (error instanceof AdcapError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    const message = error instanceof Error ? error.message : String(error);
    return gzipError(
      message === 'unexpected end of file' ? 'is truncated (the gzip stream ends early)' : `has a corrupt gzip stream (${message})`,
      error,
    );
  }
  return error;
}

/**
 * Sits between the compressed source and a raw inflater: strips and checks the gzip header,
 * returns the deflate body, and remembers the last bytes so `finish` can check the trailer.
 * `inflater.bytesWritten` tells where the deflate stream ended. It keeps no reference to the
 * chunks it is given (what it retains is copied), so the caller may reuse their memory once the
 * inflater has consumed the body.
 */
export class GzipMemberFramer {
  private headerBuffer: Buffer | null = Buffer.alloc(0);
  private bodyBytes = 0;
  private readonly tail = Buffer.alloc(TRAILER_BYTES);
  private tailFill = 0;
  private inflaterEnded = false;

  constructor(private readonly inflater: zlib.InflateRaw) {
    inflater.once('end', () => {
      this.inflaterEnded = true;
    });
  }

  /** The deflate bytes in `chunk` (possibly empty, a view of `chunk`), to be written to the inflater. */
  accept(chunk: Buffer): Buffer {
    let body = chunk;
    if (this.headerBuffer !== null) {
      const buffered = this.headerBuffer.length === 0 ? chunk : Buffer.concat([this.headerBuffer, chunk]);
      const headerLength = parseGzipHeader(buffered);
      if (headerLength === undefined) {
        if (buffered.length > MAX_HEADER_BYTES) throw gzipError('has a gzip header longer than 64 KiB');
        // A copy: the caller may reuse `chunk` (the source's read buffer) for the next read.
        this.headerBuffer = Buffer.from(buffered);
        return EMPTY;
      }
      this.headerBuffer = null;
      body = buffered.subarray(headerLength);
    }
    this.bodyBytes += body.length;
    this.keepTail(body);
    // Stop early when the deflate stream has ended and more than a trailer follows it.
    if (this.inflaterEnded && this.bodyBytes - this.inflater.bytesWritten > TRAILER_BYTES) {
      throw gzipError('has data after the end of its gzip stream');
    }
    return body;
  }

  /** After the last compressed byte: the gzip header must have been complete. */
  end(): void {
    if (this.headerBuffer !== null) {
      throw this.headerBuffer.length === 0 ? gzipError('is empty') : gzipError('is not gzip-compressed or its gzip header is cut short');
    }
  }

  /** Copies the last TRAILER_BYTES bytes seen into `tail` (a copy: nothing pins a source chunk). */
  private keepTail(body: Buffer): void {
    if (body.length >= TRAILER_BYTES) {
      body.copy(this.tail, 0, body.length - TRAILER_BYTES);
      this.tailFill = TRAILER_BYTES;
      return;
    }
    const keep = Math.min(this.tailFill, TRAILER_BYTES - body.length);
    this.tail.copyWithin(0, this.tailFill - keep, this.tailFill);
    body.copy(this.tail, keep);
    this.tailFill = keep + body.length;
  }

  /**
   * After the inflater has ended: exactly 8 bytes must follow the deflate stream, holding the
   * CRC-32 and the length (mod 2^32) of the inflated data.
   */
  finish(crc: number, inflatedBytes: number): void {
    const after = this.bodyBytes - this.inflater.bytesWritten;
    if (after < TRAILER_BYTES) throw gzipError('is truncated (the gzip trailer is missing)');
    if (after > TRAILER_BYTES) throw gzipError('has data after the end of its gzip stream');
    const trailer = this.tail;
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
