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

/**
 * The name a case-insensitive file system (macOS APFS/HFS+, Windows NTFS) sees for a path: Unicode
 * case folded and decomposed. Spec §2 paths are ASCII, so today this is ASCII lower case, but the
 * key stays right if a caller judges a non-ASCII name (a source tree at build time).
 */
export function pathFoldKey(path: string): string {
  return path.normalize('NFD').toUpperCase().toLowerCase().normalize('NFD');
}

/**
 * Remembers the paths of one archive and refuses a path that another one equals once case is
 * folded (`A.txt` and `a.txt`, `Dir/x` and `dir/y`'s file `DIR`): extracted on macOS or Windows the
 * two would be one file, so the second would overwrite or replace the first (the node-tar case
 * advisories). Exact duplicates are the caller's E_DUPLICATE; this throws E_PATH.
 */
export class CaseFoldGuard {
  private readonly seen = new Map<string, string>();

  /** Checks `path` and each of its parent folders against what was added before, then adds them. */
  add(path: string): void {
    const names: string[] = [];
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) names.push(path.slice(0, i));
    names.push(path);
    for (const name of names) {
      const key = pathFoldKey(name);
      const other = this.seen.get(key);
      if (other !== undefined && other !== name) {
        throw new AdcapError(
          'E_PATH',
          `The package paths ${JSON.stringify(other)} and ${JSON.stringify(name)} differ only in case or Unicode form; ` +
            'they would be the same file on macOS and Windows, so spec §2 paths must stay distinct when case is ignored.',
          { details: { path: name, other } },
        );
      }
      this.seen.set(key, name);
    }
  }
}
