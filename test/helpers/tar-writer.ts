/**
 * A low-level tar and gzip writer for hostile fixtures. Unlike the SDK's writer it checks
 * nothing: every header field can be set to any bytes, the checksum can be wrong, blocks can be
 * left out. Each hostile test says in a few lines what it breaks, instead of shipping a blob.
 * It shares no code with sdk/src/format/archive, so the reader is tested against an independent
 * writer.
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';

export interface RawHeaderFields {
  /** Name field bytes (up to 100). A string is written as latin1 so any byte can be expressed. */
  name: string | Buffer;
  prefix?: string | Buffer;
  mode?: number;
  uid?: number;
  gid?: number;
  size?: number;
  mtime?: number;
  /** A single character: '0' regular, '1' hard link, '2' symlink, '5' directory, 'x' PAX, 'L' GNU long name... */
  typeflag?: string;
  linkname?: string;
  /** Default "ustar\0"; GNU tar writes "ustar " with version " \0". */
  magic?: string;
  version?: string;
  uname?: string;
  gname?: string;
  devmajor?: number;
  devminor?: number;
  /** Added to the correct checksum: any non-zero value makes the header corrupt. */
  checksumDelta?: number;
}

const toBytes = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value, 'latin1') : value);

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

export function rawHeader(fields: RawHeaderFields): Buffer {
  const block = Buffer.alloc(512);
  toBytes(fields.name).copy(block, 0, 0, 100);
  block.write(octal(fields.mode ?? 0o644, 8), 100, 'latin1');
  block.write(octal(fields.uid ?? 0, 8), 108, 'latin1');
  block.write(octal(fields.gid ?? 0, 8), 116, 'latin1');
  block.write(octal(fields.size ?? 0, 12), 124, 'latin1');
  block.write(octal(fields.mtime ?? 0, 12), 136, 'latin1');
  block.write(fields.typeflag ?? '0', 156, 'latin1');
  if (fields.linkname !== undefined) block.write(fields.linkname, 157, 'latin1');
  block.write(fields.magic ?? 'ustar\0', 257, 'latin1');
  block.write(fields.version ?? '00', 263, 'latin1');
  block.write(fields.uname ?? '', 265, 'latin1');
  block.write(fields.gname ?? '', 297, 'latin1');
  block.write(octal(fields.devmajor ?? 0, 8), 329, 'latin1');
  block.write(octal(fields.devminor ?? 0, 8), 337, 'latin1');
  if (fields.prefix !== undefined) toBytes(fields.prefix).copy(block, 345, 0, 155);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${(sum + (fields.checksumDelta ?? 0)).toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

export function padded(data: Buffer): Buffer {
  const rest = data.length % 512;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(512 - rest)]);
}

export interface RawEntry extends Partial<RawHeaderFields> {
  name: string | Buffer;
  /** Entry content; `size` defaults to its length but can be set to lie. */
  data?: Buffer | string;
}

/** Header plus padded data for one entry. */
export function rawEntry(entry: RawEntry): Buffer {
  const data = entry.data === undefined ? Buffer.alloc(0) : Buffer.from(entry.data);
  return Buffer.concat([rawHeader({ ...entry, size: entry.size ?? data.length }), padded(data)]);
}

/** Two zero blocks. */
export const END_OF_ARCHIVE = Buffer.alloc(1024);

export function rawTar(entries: RawEntry[], options: { end?: boolean } = {}): Buffer {
  return Buffer.concat([...entries.map(rawEntry), ...(options.end === false ? [] : [END_OF_ARCHIVE])]);
}

/** gzip with a fixed header (FLG 0, MTIME 0, OS 255), like the SDK writes, but computed independently. */
export function gzipBytes(data: Buffer, level = 6): Buffer {
  const out = zlib.gzipSync(data, { level });
  out[9] = 255;
  return out;
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** A minimal valid manifest (DESIGN §3) listing the given files. */
export function manifestFor(
  files: { path: string; data: Buffer | string; executable?: boolean }[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    adcap: '1.0',
    id: 'acme/fixture',
    version: '1.0.0',
    name: 'Fixture',
    summary: 'A package built by the hostile-archive test writer.',
    ...extra,
    files: [...files]
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((f) => ({
        path: f.path,
        sha256: sha256(f.data),
        size: Buffer.byteLength(f.data),
        ...(f.executable ? { executable: true } : {}),
      })),
  };
}

export interface FixturePackage {
  /** The manifest object (or raw capability.json text). */
  manifest?: Record<string, unknown> | string;
  files?: { path: string; data: Buffer | string; executable?: boolean }[];
  /** Extra raw entries appended after the files (before the signature). */
  extra?: RawEntry[];
  signature?: string | Buffer;
}

/** The tar of a package: capability.json, the files in the given order, extras, SIGNATURE.json. */
export function packageTar(fixture: FixturePackage): Buffer {
  const files = fixture.files ?? [{ path: 'README.md', data: '# Fixture\n' }];
  const manifest = fixture.manifest ?? manifestFor(files);
  const manifestText = typeof manifest === 'string' ? manifest : JSON.stringify(manifest);
  const entries: RawEntry[] = [
    { name: 'capability.json', data: manifestText },
    ...files.map((f) => ({ name: f.path, data: f.data, mode: f.executable ? 0o755 : 0o644 })),
    ...(fixture.extra ?? []),
  ];
  if (fixture.signature !== undefined) entries.push({ name: 'SIGNATURE.json', data: fixture.signature });
  return rawTar(entries);
}

/** A gzipped package fixture. */
export function packageBytes(fixture: FixturePackage = {}): Buffer {
  return gzipBytes(packageTar(fixture));
}
