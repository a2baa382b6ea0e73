import { AdcapError } from '../../errors.js';

/** spec §2: paths are at most 240 bytes. */
export const MAX_ENTRY_PATH_BYTES = 240;

/**
 * Checks an entry path against spec §2 and returns it. Paths MUST be relative, use `/`, be
 * printable ASCII (0x20 to 0x7e) without `\`, be at most 240 bytes, and contain no empty, `.` or
 * `..` segments. Bytes are checked, not characters, so a path read from a tar header is judged as
 * it was written. Throws E_PATH with the reason.
 */
export function checkEntryPath(path: string | Uint8Array): string {
  const bytes = typeof path === 'string' ? Buffer.from(path, 'utf8') : path;
  const fail = (reason: string): never => {
    const raw = Buffer.from(bytes).toString('latin1');
    throw new AdcapError(
      'E_PATH',
      `The package path ${JSON.stringify(raw)} ${reason}; ` +
        `spec §2 allows only relative printable-ASCII paths of at most ${MAX_ENTRY_PATH_BYTES} bytes.`,
      {
        details: { path: raw },
      },
    );
  };
  if (bytes.length === 0) fail('is empty');
  if (bytes.length > MAX_ENTRY_PATH_BYTES) fail(`is ${bytes.length} bytes long`);
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20 || byte > 0x7e) fail(`contains the byte 0x${byte.toString(16).padStart(2, '0')}, which is not printable ASCII`);
    if (byte === 0x5c) fail('contains a backslash');
  }
  const text = Buffer.from(bytes).toString('latin1');
  if (text.startsWith('/')) fail('is absolute');
  for (const segment of text.split('/')) {
    if (segment === '') fail('has an empty segment');
    if (segment === '.' || segment === '..') fail(`has a "${segment}" segment`);
  }
  return text;
}

/** spec §2 / DESIGN §3: byte order of paths. Paths are ASCII, so UTF-16 order is byte order. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
