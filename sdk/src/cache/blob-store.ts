/**
 * The content-addressed store of DESIGN §6: `home/cache/sha256/<2 hex>/<64 hex>` holds archives,
 * resources and shards, shared across versions and capabilities (spec §9), so a blob that is
 * already here is never fetched again. Storage only, as cacache's content store: what goes in is
 * checked against its address first, reads are verified, gc keeps what it is told to keep. Getting
 * bytes from mirrors is blob-download.ts's job.
 *
 * Writes follow cacache: bytes go to a temp file under `cache/tmp/`, size and SHA-256 are checked
 * before the rename into the content address, "already there" is success, and entries are made
 * read-only.
 */
import { constants, createReadStream } from 'node:fs';
import { chmod, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AdcapError } from '../errors.js';
import { fsyncDir, tempPathFor } from '../util/fs-atomic.js';
import { createSha256, hashFile, SHA256_HEX } from '../util/hash.js';
import { lockHeld } from '../util/lock.js';

/** The state of one content cache entry: intact, absent, or damaged (and removed). */
export type EntryState = 'ok' | 'missing' | 'corrupt';

/** The result of re-hashing one content cache entry. */
export interface VerifyResult {
  /** The entry's SHA-256, its address in the cache. */
  sha256: string;
  /** Whether the entry was intact, absent, or damaged (and removed). */
  state: EntryState;
  /** For a corrupt entry: what the file on disk hashed to before it was removed. */
  actualSha256?: string;
  /** The entry's size on disk in bytes; absent when it is missing. */
  size?: number;
}

/** What `ContentCache.gc()` removed. */
export interface GcResult {
  /** SHA-256 of every blob removed. */
  removed: string[];
  /** Bytes freed by removed blobs and temp files. */
  freedBytes: number;
  /** Temp and partial files removed. */
  tempFilesRemoved: number;
}

const STALE_TEMP_MS = 60 * 60 * 1000;

/** The blob files of a home's `cache/` directory: addresses, verified reads, checked writes and gc. */
export class BlobStore {
  readonly dir: string;
  /** Entries this instance hashed on read, by path, with the file identity they had then. */
  private readonly hashedOnRead = new Map<string, string>();

  /** `dir` is the home's `cache/` directory; blobs live in `dir/sha256/`, temp files in `dir/tmp/`. */
  constructor(dir: string) {
    this.dir = dir;
  }

  get tmpDir(): string {
    return join(this.dir, 'tmp');
  }

  /** `dir/sha256/<2 hex>/<64 hex>` (DESIGN §6). */
  pathFor(sha256: string): string {
    assertSha(sha256);
    return join(this.dir, 'sha256', sha256.slice(0, 2), sha256);
  }

  /** True when the blob is present (and has `size` bytes, when given). Does not re-hash: see verifyEntry. */
  async has(sha256: string, size?: number): Promise<boolean> {
    const info = await stat(this.pathFor(sha256)).catch(() => null);
    return info !== null && info.isFile() && (size === undefined || info.size === size);
  }

  /**
   * True when a file of the right size is at `final`, and with `hash`, whose bytes hash to its
   * address. Reads are verified like cacache's: a same-size entry damaged on disk
   * is removed and the caller fetches it again, instead of handing damaged bytes to a tool. Only a
   * caller that hashes what it reads anyway passes `hash` false (BlobRequest.readerHashes). An
   * entry hashed once is not hashed again by this instance while its inode, size and times stay.
   *
   * A wrong-sized entry is re-hashed: if it is corrupt it is removed (and refetched by the caller);
   * if it is intact, the caller's size pin contradicts its SHA-256 and no download could ever
   * satisfy it, so that is E_DOWNLOAD (a bad pin must not be able to evict a good entry).
   */
  async present(final: string, size: number, hash = true): Promise<boolean> {
    const info = await stat(final).catch(() => null);
    if (info === null) return false;
    const sha256 = final.slice(-64);
    if (info.isFile() && info.size === size) {
      if (!hash) return true;
      const identity = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (this.hashedOnRead.get(final) === identity) return true;
      if ((await this.verifyEntry(sha256)).state === 'ok') {
        this.hashedOnRead.set(final, identity);
        return true;
      }
      this.hashedOnRead.delete(final);
      return false;
    }
    if (info.isFile() && (await this.verifyEntry(sha256)).state === 'ok') {
      throw new AdcapError(
        'E_DOWNLOAD',
        `The pin for ${sha256} says ${size} bytes, but the content with that ` +
          `SHA-256 has ${info.size}; the manifest or registry entry is wrong.`,
        { details: { sha256, size, actualSize: info.size } },
      );
    }
    await rm(final, { recursive: true, force: true });
    return false;
  }

  /** Copies a local file into the cache, verifying size and SHA-256 first (E_HASH on mismatch). */
  async putFile(path: string, pin: { sha256: string; size: number }): Promise<string> {
    assertSha(pin.sha256);
    assertSize(pin.size);
    const final = this.pathFor(pin.sha256);
    if (await this.present(final, pin.size)) return final;
    await mkdir(this.tmpDir, { recursive: true });
    const temp = tempPathFor(join(this.tmpDir, pin.sha256));
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      const hash = createSha256();
      let size = 0;
      // Read one byte past the pin at most: enough to know the file is too long.
      const input = createReadStream(path, { end: pin.size, highWaterMark: 1 << 20 });
      for await (const chunk of input) {
        const buffer = chunk as Buffer;
        size += buffer.length;
        if (size > pin.size) break;
        hash.update(buffer);
        await handle.write(buffer);
      }
      const digest = hash.digest('hex');
      if (size !== pin.size || digest !== pin.sha256) {
        throw new AdcapError(
          'E_HASH',
          `${path} does not match its pin (expected ${pin.size} bytes with SHA-256 ${pin.sha256}, found ` +
            `${size > pin.size ? `more than ${pin.size} bytes` : `${size} bytes with SHA-256 ${digest}`}).`,
          { details: { path, expected: pin.sha256 } },
        );
      }
      await handle.sync();
      await handle.close();
      await this.commit(temp, final);
      return final;
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw error instanceof AdcapError
        ? error
        : new AdcapError('E_IO', `Copying ${path} into the cache failed: ${errorText(error)}.`, { cause: error });
    }
  }

  /**
   * Re-hashes one entry (used by doctor). A corrupt entry is removed, so the next use fetches it
   * again (corrupt entries are dropped and refetched).
   */
  async verifyEntry(sha256: string, options: { remove?: boolean } = {}): Promise<VerifyResult> {
    const path = this.pathFor(sha256);
    let actual: { sha256: string; size: number };
    try {
      actual = await hashFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sha256, state: 'missing' };
      throw new AdcapError('E_IO', `Cannot read cache entry ${path}: ${errorText(error)}.`, { cause: error });
    }
    if (actual.sha256 === sha256) return { sha256, state: 'ok', size: actual.size };
    // A corrupt entry is dropped (and fetched again on next use) unless the caller only looks.
    if (options.remove !== false) await rm(path, { force: true });
    return { sha256, state: 'corrupt', actualSha256: actual.sha256, size: actual.size };
  }

  /** SHA-256 of every blob in the cache. */
  async entries(): Promise<string[]> {
    const result: string[] = [];
    const root = join(this.dir, 'sha256');
    for (const prefix of await readdir(root).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      for (const name of await readdir(join(root, prefix)).catch(() => [] as string[])) {
        if (SHA256_HEX.test(name) && name.startsWith(prefix)) result.push(name);
      }
    }
    return result.sort();
  }

  /**
   * Removes every blob whose SHA-256 is not in `keep` (the caller passes what installed versions and
   * rollback still reference), stray files in the blob tree, partial downloads of blobs not kept,
   * and temp files older than an hour. Blobs `busy` names (being downloaded right now) are left alone.
   */
  async gc(keep: Set<string>, busy: (sha256: string) => boolean = () => false): Promise<GcResult> {
    const result: GcResult = { removed: [], freedBytes: 0, tempFilesRemoved: 0 };
    const root = join(this.dir, 'sha256');
    for (const prefix of await readdir(root).catch(() => [] as string[])) {
      const prefixDir = join(root, prefix);
      const names = await readdir(prefixDir).catch(() => null);
      if (names === null) continue;
      let left = names.length;
      for (const name of names) {
        const isBlob = SHA256_HEX.test(name) && name.startsWith(prefix);
        if (isBlob && (keep.has(name) || busy(name))) continue;
        const info = await stat(join(prefixDir, name)).catch(() => null);
        if (info === null) continue;
        // Stray non-blob files are removed only once stale (they may be another process's rename in progress).
        if (!isBlob && Date.now() - info.mtimeMs < STALE_TEMP_MS) continue;
        await rm(join(prefixDir, name), { recursive: true, force: true });
        left -= 1;
        result.freedBytes += info.size;
        if (isBlob) result.removed.push(name);
        else result.tempFilesRemoved += 1;
      }
      if (left === 0) await rm(prefixDir, { recursive: true, force: true }).catch(() => undefined);
    }
    for (const name of await readdir(this.tmpDir).catch(() => [] as string[])) {
      const path = join(this.tmpDir, name);
      if (name.endsWith('.lock')) continue;
      const partial = /^([0-9a-f]{64})\.partial$/.exec(name);
      const info = await stat(path).catch(() => null);
      if (info === null) continue;
      if (partial !== null) {
        const sha = partial[1] ?? '';
        if (keep.has(sha) || busy(sha)) continue;
        if (await lockHeld(partialLockOf(path), { staleMs: LOCK_STALE_MS }).catch(() => false)) continue;
      } else if (Date.now() - info.mtimeMs < STALE_TEMP_MS) {
        continue;
      }
      await rm(path, { recursive: true, force: true });
      result.freedBytes += info.size;
      result.tempFilesRemoved += 1;
    }
    return result;
  }

  /** Moves a verified temp file into its content address; "already there" is success (cacache). */
  async commit(temp: string, final: string): Promise<void> {
    await mkdir(dirname(final), { recursive: true });
    await chmod(temp, 0o444);
    await rename(temp, final);
    await fsyncDir(dirname(final));
  }
}

/** How long a partial download's lock may go unrefreshed before another process takes it over. */
export const LOCK_STALE_MS = 20_000;

/** The lock beside a partial download (`<sha>.partial.lock`; gc leaves `.lock` names alone). */
export function partialLockOf(partialPath: string): string {
  return `${partialPath}.lock`;
}

export function assertSha(sha256: string): void {
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new AdcapError('E_USAGE', `"${String(sha256)}" is not a SHA-256 (64 lowercase hex digits).`);
  }
}

export function assertSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new AdcapError('E_USAGE', `${String(size)} is not a valid blob size (a non-negative integer).`);
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
