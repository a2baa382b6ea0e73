/**
 * The files of a stored search index already checked against their SHA-256 names (docs/scaling.md
 * "Cold start and offline search", "A new process"), kept as search-index/verified.json:
 *
 *   { "format": 1, "files": { "<sha256>.seg": { "size", "dev", "ino", "mtimeNs", "ctimeNs", "checkedNs" }, … } }
 *
 * A file is listed once this SDK has hashed its bytes (or written them itself) and found they are
 * the content its name says. A later read whose file still has the same device, inode, size, and
 * modification and change times (nanoseconds, read from the open handle before and after the read)
 * is of those same bytes, so it is not hashed again; anything else — a file edited, replaced,
 * truncated, or its times put back with utimes (which moves the change time) — is hashed in full
 * as before. A segment's bounds are checked on every read either way (segment.ts).
 *
 * An entry recorded less than RACY_NS after the file's modification time is not trusted (it is
 * hashed again, and the entry renewed): on a file system whose times are coarse (HFS+ keeps whole
 * seconds), an edit in that second could leave every stamp field as it was (git's "racily clean").
 *
 * The list is derived data like the index: missing, unreadable or of another format, it is empty
 * and every file is hashed.
 */
import type { BigIntStats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonAtomic } from '../../util/fs-atomic.js';

const FORMAT = 1;
const FILE_NAME = 'verified.json';
/** How long after its last modification a file's entry must have been recorded to be trusted. */
const RACY_NS = 2_000_000_000n;

/** What identifies one version of a file's content on this computer. */
export interface FileStamp {
  size: string;
  dev: string;
  ino: string;
  mtimeNs: string;
  ctimeNs: string;
}

export function stampOf(stats: BigIntStats): FileStamp {
  return {
    size: stats.size.toString(),
    dev: stats.dev.toString(),
    ino: stats.ino.toString(),
    mtimeNs: stats.mtimeNs.toString(),
    ctimeNs: stats.ctimeNs.toString(),
  };
}

export function sameStamp(a: FileStamp | undefined, b: FileStamp): boolean {
  return a !== undefined && a.size === b.size && a.dev === b.dev && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** A file's stamp and when it was found to hold its content (ns since the epoch). */
interface Entry extends FileStamp {
  checkedNs: string;
}

function isEntry(value: unknown): value is Entry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return ['size', 'dev', 'ino', 'mtimeNs', 'ctimeNs', 'checkedNs'].every(
    (key) => typeof v[key] === 'string' && /^\d{1,40}$/.test(v[key] as string),
  );
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** The verified list of one index directory, read once and written back when it changed. */
export class VerifiedFiles {
  private files: Map<string, Entry> | null = null;
  private dirty = false;

  /** `fileName`: the list's file in `dir` (default verified.json, a search index's). */
  constructor(
    private readonly dir: string,
    private readonly fileName: string = FILE_NAME,
  ) {}

  static readonly fileName = FILE_NAME;

  private async load(): Promise<Map<string, Entry>> {
    if (this.files !== null) return this.files;
    const files = new Map<string, Entry>();
    try {
      const value = JSON.parse(await readFile(join(this.dir, this.fileName), 'utf8')) as { format?: unknown; files?: unknown };
      if (value.format === FORMAT && typeof value.files === 'object' && value.files !== null) {
        for (const [name, entry] of Object.entries(value.files as Record<string, unknown>)) if (isEntry(entry)) files.set(name, entry);
      }
    } catch {
      // None yet, or damaged: every file is hashed.
    }
    this.files = files;
    return files;
  }

  /** Whether `name`'s content with this stamp was checked before (and not in the second it last changed). */
  async has(name: string, stamp: FileStamp): Promise<boolean> {
    const entry = (await this.load()).get(name);
    return entry !== undefined && sameStamp(entry, stamp) && BigInt(entry.checkedNs) - BigInt(entry.mtimeNs) >= RACY_NS;
  }

  /** Records that `name`, as `stamp` identifies it, holds the content its name says. */
  async add(name: string, stamp: FileStamp): Promise<void> {
    const files = await this.load();
    const known = files.get(name);
    if (known !== undefined && sameStamp(known, stamp) && BigInt(known.checkedNs) - BigInt(known.mtimeNs) >= RACY_NS) return;
    files.set(name, { ...stamp, checkedNs: nowNs().toString() });
    this.dirty = true;
  }

  /** Forgets files other than `keep`. */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    const files = await this.load();
    for (const name of [...files.keys()]) {
      if (!keep.has(name)) {
        files.delete(name);
        this.dirty = true;
      }
    }
  }

  /** Writes the list when it changed (atomically; a failure only costs hashing again next time). */
  async save(): Promise<void> {
    if (!this.dirty || this.files === null) return;
    this.dirty = false;
    const files = Object.fromEntries([...this.files].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    await writeJsonAtomic(join(this.dir, this.fileName), { format: FORMAT, files }).catch(() => undefined);
  }
}
