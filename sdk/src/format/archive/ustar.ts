import { AdcapError } from '../../errors.js';
import { checkEntryPath } from './entry-path.js';

/**
 * The POSIX ustar header, byte by byte. This module reads and writes 512-byte blocks and nothing
 * else: no file system, no package rules (those live in the reader, the writer and package-*.ts).
 *
 * We parse headers ourselves instead of through tar-stream's extractor because tar-stream applies
 * PAX headers and GNU long names silently (the `L` block never reaches the caller), and spec §2
 * requires a reader to reject them. Seeing the raw typeflag of every block is the only way to know.
 */
export const BLOCK_SIZE = 512;
/** GNU tar and bsdtar pad archives to 20-block records; we do the same so every tar is happy. */
export const RECORD_SIZE = 20 * BLOCK_SIZE;
/** 11 octal digits: the largest size a ustar header can hold without base-256. */
const MAX_USTAR_SIZE = 0o77777777777;

const NAME = 0;
const NAME_LEN = 100;
const MODE = 100;
const UID = 108;
const GID = 116;
const SIZE = 124;
const MTIME = 136;
const CHKSUM = 148;
const TYPEFLAG = 156;
const MAGIC = 257;
const VERSION = 263;
const DEVMAJOR = 329;
const DEVMINOR = 337;
const PREFIX = 345;
const PREFIX_LEN = 155;

const USTAR_MAGIC = Buffer.from('ustar\0', 'latin1');
const USTAR_VERSION = Buffer.from('00', 'latin1');

/** The typeflags a reader may meet, named for error messages (DESIGN §9: E_ENTRY_TYPE). */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '5': 'a directory',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  x: 'a PAX extended header',
  g: 'a PAX global header',
  X: 'a Solaris extended header',
  L: 'a GNU long name header',
  K: 'a GNU long link header',
  S: 'a GNU sparse file',
  D: 'a GNU directory dump',
  M: 'a GNU multi-volume continuation',
  N: 'a GNU old long name header',
  V: 'a GNU volume label',
};

function describeTypeflag(typeflag: number): string {
  const char = String.fromCharCode(typeflag);
  return TYPE_NAMES[char] ?? `an entry of unknown type 0x${typeflag.toString(16).padStart(2, '0')}`;
}

interface UstarEntry {
  path: string;
  size: number;
  executable: boolean;
}

/**
 * Encodes the header of a regular file the way spec §2 and DESIGN §4 ask a conforming writer to:
 * mtime, uid and gid zero, empty uname and gname, mode 0644 or 0755, ustar magic. Paths longer
 * than 100 bytes are split into the prefix field at the first `/` that makes both parts fit.
 */
export function encodeHeader(entry: UstarEntry): Buffer {
  const path = checkEntryPath(entry.path);
  if (!Number.isSafeInteger(entry.size) || entry.size < 0 || entry.size > MAX_USTAR_SIZE) {
    throw new AdcapError('E_LIMIT', `The file ${path} is ${entry.size} bytes, more than a ustar entry can hold (8 GiB).`);
  }
  const [prefix, name] = splitPath(path);
  const block = Buffer.alloc(BLOCK_SIZE);
  block.write(name, NAME, 'latin1');
  block.write(entry.executable ? '0000755\0' : '0000644\0', MODE, 'latin1');
  block.write('0000000\0', UID, 'latin1');
  block.write('0000000\0', GID, 'latin1');
  block.write(`${entry.size.toString(8).padStart(11, '0')}\0`, SIZE, 'latin1');
  block.write('00000000000\0', MTIME, 'latin1');
  block[TYPEFLAG] = 0x30; // '0': regular file
  USTAR_MAGIC.copy(block, MAGIC);
  USTAR_VERSION.copy(block, VERSION);
  block.write('0000000\0', DEVMAJOR, 'latin1');
  block.write('0000000\0', DEVMINOR, 'latin1');
  block.write(prefix, PREFIX, 'latin1');
  block.write(`${checksumOf(block).toString(8).padStart(6, '0')}\0 `, CHKSUM, 'latin1');
  return block;
}

function splitPath(path: string): [prefix: string, name: string] {
  if (path.length <= NAME_LEN) return ['', path];
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    if (i > PREFIX_LEN) break;
    if (path.length - i - 1 <= NAME_LEN) return [path.slice(0, i), path.slice(i + 1)];
  }
  throw new AdcapError(
    'E_PATH',
    `The package path ${JSON.stringify(path)} cannot be stored in a ustar header: its last ` +
      'part must be at most 100 bytes and the rest at most 155; shorten a directory or file name.',
    { details: { path } },
  );
}

/** Sum of the header bytes with the checksum field read as spaces (POSIX ustar). */
function checksumOf(block: Uint8Array): number {
  let sum = 8 * 0x20;
  for (let i = 0; i < BLOCK_SIZE; i++) {
    if (i < CHKSUM || i >= CHKSUM + 8) sum += block[i]!;
  }
  return sum;
}

/** The same sum with bytes read as signed chars, which some old writers used. */
function signedChecksumOf(block: Uint8Array): number {
  let sum = 8 * 0x20;
  for (let i = 0; i < BLOCK_SIZE; i++) {
    if (i < CHKSUM || i >= CHKSUM + 8) {
      const byte = block[i]!;
      sum += byte > 127 ? byte - 256 : byte;
    }
  }
  return sum;
}

export function isZeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < BLOCK_SIZE; i++) if (block[i] !== 0) return false;
  return true;
}

/** A header as read: the path is still raw bytes, to be judged by `checkEntryPath`. */
interface RawHeader {
  typeflag: number;
  pathBytes: Buffer;
  mode: number;
  size: number;
}

/**
 * Decodes one non-zero header block. Order of checks: checksum (E_TAR), type (E_ENTRY_TYPE:
 * spec §2 entries MUST be regular files, and PAX/GNU extension headers MUST be rejected), then
 * the ustar magic and numeric fields (E_TAR). `offset` is the block's position in the tar stream.
 */
export function decodeHeader(block: Buffer, offset: number): RawHeader {
  const where = `at byte ${offset} of the tar stream`;
  const stored = parseOctal(block, CHKSUM, 8);
  if (stored === undefined || (stored !== checksumOf(block) && stored !== signedChecksumOf(block))) {
    throw new AdcapError('E_TAR', `The package has a tar header with a bad checksum ${where}; the file is corrupt or not a tar archive.`, {
      details: { offset },
    });
  }
  const typeflag = block[TYPEFLAG]!;
  const pathBytes = joinPath(block);
  if (typeflag !== 0x30 && typeflag !== 0x00) {
    const shownPath = JSON.stringify(pathBytes.toString('latin1'));
    throw new AdcapError(
      'E_ENTRY_TYPE',
      `The package contains ${describeTypeflag(typeflag)} (${shownPath}) ${where}; ` +
        'spec §2 allows only regular files in plain ustar headers.',
      { details: { offset, typeflag: String.fromCharCode(typeflag), path: pathBytes.toString('latin1') } },
    );
  }
  if (!block.subarray(MAGIC, MAGIC + 6).equals(USTAR_MAGIC) || !block.subarray(VERSION, VERSION + 2).equals(USTAR_VERSION)) {
    throw new AdcapError(
      'E_TAR',
      `The package has a tar header ${where} that is not POSIX ustar (wrong magic or version); rebuild it with adcap build.`,
      {
        details: { offset },
      },
    );
  }
  const size = parseOctal(block, SIZE, 12);
  const mode = parseOctal(block, MODE, 8);
  if (size === undefined || mode === undefined) {
    throw new AdcapError('E_TAR', `The package has a tar header ${where} with an unreadable size or mode field; the file is corrupt.`, {
      details: { offset },
    });
  }
  return { typeflag, pathBytes, mode, size };
}

function joinPath(block: Buffer): Buffer {
  const name = cString(block, NAME, NAME_LEN);
  const prefix = cString(block, PREFIX, PREFIX_LEN);
  return prefix.length === 0 ? Buffer.from(name) : Buffer.concat([prefix, Buffer.from('/'), name]);
}

function cString(block: Buffer, start: number, length: number): Buffer {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return end === -1 ? field : field.subarray(0, end);
}

/** Octal number: optional leading spaces, at least one digit, then NUL/space or the field's end. */
function parseOctal(block: Uint8Array, start: number, length: number): number | undefined {
  let i = start;
  const end = start + length;
  while (i < end && block[i] === 0x20) i++;
  let value = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = block[i]!;
    if (c >= 0x30 && c <= 0x37) {
      value = value * 8 + (c - 0x30);
      digits++;
    } else break;
  }
  if (digits === 0 || digits > 11) return undefined; // base-256 (high bit) and junk land here
  for (; i < end; i++) {
    const c = block[i]!;
    if (c !== 0x00 && c !== 0x20) return undefined;
  }
  return value;
}
