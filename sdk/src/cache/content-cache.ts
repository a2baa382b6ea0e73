/**
 * The content-addressed cache of DESIGN §6: `home/cache/sha256/<2 hex>/<64 hex>` holds archives,
 * resources and shards, shared across versions and capabilities (spec §9), so a blob that is already
 * here is never fetched again.
 *
 * Writes follow npm's cacache: bytes go to a temp file under `cache/tmp/`, size and SHA-256 are
 * checked before the rename into the content address, "already there" is success, and entries are
 * made read-only. A download keeps its partial file at `cache/tmp/<sha>.partial` (guarded by a lock
 * so two processes never append to the same file) and resumes it with HTTP Range.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcapError, isAdcapError } from '../errors.js';
import { fsyncDir, tempPathFor } from '../util/fs-atomic.js';
import { createSha256, hashFile, SHA256_HEX } from '../util/hash.js';
import { lockHeld, tryAcquireLock } from '../util/lock.js';
import type { Progress, ProgressListener } from '../util/progress.js';
import { authorizeUrl, type Authorization } from './authorize.js';
import {
  onRegistry,
  publisherSourceProblem,
  publisherSourceResolvesPrivately,
  type LookupAddresses,
  type SourcePolicy,
} from './source-policy.js';
import { checkUrlAllowed, openSource, redactUrl, type FetchLike, type OpenedSource } from './fetch.js';

/** Download progress uses the SDK-wide shape: `{ phase: 'download', done, total }` in bytes. */
export type DownloadProgress = Progress;
/** Receives download progress, `{ phase: 'download', done, total }` in bytes. */
export type DownloadProgressListener = ProgressListener;

/** Options of `new ContentCache(dir, options)`. */
export interface ContentCacheOptions {
  /** Used for https and http sources; defaults to the global fetch (which honours NODE_EXTRA_CA_CERTS). */
  fetch?: FetchLike;
  /** Give a transfer up when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  /** Attempts per mirror while interrupted transfers keep making progress (default 3). */
  attemptsPerMirror?: number;
  /** Resolves host names for the publisher-source check (default: the system resolver). */
  lookup?: LookupAddresses;
}

/** A download of one pinned blob into the content cache: its SHA-256 and size, the mirrors to try and how. */
export interface BlobRequest {
  sha256: string;
  size: number;
  /** Mirrors in preference order (spec §9: tried in order). */
  sources: string[];
  /** For entitled content (spec §9 access "entitled", spec §12). */
  authorize?: Authorization;
  /**
   * Set when the sources were chosen by a publisher (resources, shards: issue 11, item 3): each
   * source and every redirect must pass `publisherSourceProblem` before any request is made.
   */
  policy?: SourcePolicy;
  onProgress?: DownloadProgressListener;
  signal?: AbortSignal;
  /** Names the blob in messages, e.g. `resource "embeddings"`. */
  what?: string;
  /**
   * Set only by a caller that hashes every byte it reads from the returned path and refuses a
   * mismatch (the package reader computes the archive's SHA-256 in its one pass, and
   * downloadArchive compares it with the pin): a cached entry is then checked by size alone, not
   * hashed twice. Everyone else gets a cached entry re-hashed on read (see presentOrDrop).
   */
  readerHashes?: boolean;
}

/** The state of one content cache entry: intact, absent, or damaged (and removed). */
export type EntryState = 'ok' | 'missing' | 'corrupt';

/** The result of re-hashing one content cache entry. */
export interface VerifyResult {
  sha256: string;
  state: EntryState;
  /** For a corrupt entry: what the file on disk hashed to before it was removed. */
  actualSha256?: string;
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

/** A mirror sent bytes that can never become the pinned content: the partial file is discarded. */
class WrongContentError extends Error {}

/** The server ignored or mangled our Range request; the transfer restarts from byte 0. */
class RestartFromZero extends Error {}

/** A publisher-chosen source the host refused before any request; the message says why. */
class RefusedSource extends Error {}

/**
 * One source that did not yield the blob. `refused`: the host refused a publisher's source
 * (source-policy.ts); `absent`: the installing registry's content-addressed mirror does not hold
 * the blob (it mirrors only what its maintainer chose), which is no cause of its own.
 */
interface SourceFailure {
  source: string;
  error: string;
  kind?: 'refused' | 'absent';
}

const PROGRESS_STEP = 256 * 1024;
const STALE_TEMP_MS = 60 * 60 * 1000;

interface Inflight {
  promise: Promise<string>;
  listeners: Set<DownloadProgressListener>;
}

/** The content-addressed cache of a home (DESIGN §6): pinned downloads with mirrors, resume, verification on read and gc. */
export class ContentCache {
  readonly dir: string;
  private readonly fetchImpl: FetchLike | undefined;
  private readonly idleTimeoutMs: number | undefined;
  private readonly attemptsPerMirror: number;
  private readonly lookup: LookupAddresses | undefined;
  private readonly inflight = new Map<string, Inflight>();
  /** Entries this instance hashed on read, by path, with the file identity they had then. */
  private readonly hashedOnRead = new Map<string, string>();

  /** `dir` is the home's `cache/` directory; blobs live in `dir/sha256/`, temp files in `dir/tmp/`. */
  constructor(dir: string, options: ContentCacheOptions = {}) {
    this.dir = dir;
    this.fetchImpl = options.fetch;
    this.idleTimeoutMs = options.idleTimeoutMs;
    this.attemptsPerMirror = Math.max(1, options.attemptsPerMirror ?? 3);
    this.lookup = options.lookup;
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
   * The path of a cached blob whose bytes were hashed on this read (see presentOrDrop), or null
   * when it is absent or was damaged (a damaged entry is removed, so fetchBlob downloads it again).
   * For readers that hand the file to someone who does not hash it (resources, shards).
   */
  async cachedPath(sha256: string, size: number): Promise<string | null> {
    assertSize(size);
    const final = this.pathFor(sha256);
    return (await this.presentOrDrop(final, size)) ? final : null;
  }

  /**
   * Returns the local path of a verified blob, downloading it if needed (spec §9): mirrors in order,
   * at most `size` bytes read from each, SHA-256 and size checked before the blob enters the cache,
   * the next mirror tried on wrong bytes or errors. Concurrent calls for one blob share one download.
   */
  async fetchBlob(request: BlobRequest): Promise<string> {
    assertSha(request.sha256);
    assertSize(request.size);
    const final = this.pathFor(request.sha256);
    if (await this.presentOrDrop(final, request.size, request.readerHashes !== true)) return final;
    // No await between this check and the set below: concurrent callers join one download.
    const existing = this.inflight.get(request.sha256);
    if (existing !== undefined) {
      const listener = request.onProgress;
      if (listener !== undefined) existing.listeners.add(listener);
      try {
        return await existing.promise;
      } finally {
        if (listener !== undefined) existing.listeners.delete(listener);
      }
    }
    const listeners = new Set<DownloadProgressListener>(request.onProgress === undefined ? [] : [request.onProgress]);
    const emit = (progress: DownloadProgress): void => {
      for (const listener of listeners) listener(progress);
    };
    const promise = this.download(request, final, emit).finally(() => this.inflight.delete(request.sha256));
    this.inflight.set(request.sha256, { promise, listeners });
    return promise;
  }

  /**
   * Issue 15 item 12: for a caller that reads the whole blob once anyway and checks its pin in that
   * read (install: verify and extract in one pass, readPackage's `expectArchive`). `use` gets a path
   * to the bytes and must throw E_HASH when they are not the pinned ones, before it keeps anything.
   * - Already cached: `use` reads the cached blob.
   * - Sources that are all local files (a file:// registry): each is cloned into cache/tmp in the
   *   kernel (a reflink where the file system can, else copy_file_range: the bytes never pass
   *   through this process), `use` reads the clone, and the clone becomes the cache entry only
   *   after `use` accepted it. A source that fails (missing, wrong size, wrong bytes) passes on to
   *   the next, as in fetchBlob. Not a hard link: the cache makes its entries read-only and must
   *   not share an inode with a file someone else may change or chmod.
   * - Anything else (https, entitled, publisher-chosen sources): fetchBlob (hashed while it
   *   downloads, resumable), then `use` on the cached blob.
   */
  async withBlob<T>(request: BlobRequest, use: (path: string) => Promise<T>): Promise<T> {
    assertSha(request.sha256);
    assertSize(request.size);
    const final = this.pathFor(request.sha256);
    const local =
      request.authorize === undefined &&
      request.policy === undefined &&
      request.sources.length > 0 &&
      request.sources.every((s) => s.startsWith('file:'));
    if (!local || this.inflight.has(request.sha256) || (await this.presentOrDrop(final, request.size))) {
      const path = await this.fetchBlob(request);
      try {
        return await use(path);
      } catch (error) {
        // A cache entry damaged on disk since it was stored (only its size is checked before use):
        // verifyEntry removes it, and the blob is fetched again once.
        if ((await this.verifyEntry(request.sha256).catch(() => null))?.state !== 'corrupt') throw error;
        return use(await this.fetchBlob(request));
      }
    }
    const what = request.what ?? `blob ${request.sha256}`;
    const failures: { source: string; error: string }[] = [];
    await mkdir(this.tmpDir, { recursive: true });
    for (const source of request.sources) {
      const label = redactUrl(source);
      const temp = tempPathFor(join(this.tmpDir, request.sha256));
      let cloned = false;
      try {
        request.onProgress?.({ phase: 'download', done: 0, total: request.size });
        if (request.signal?.aborted === true) throw new AdcapError('E_CANCELLED', `Downloading ${what} was cancelled.`);
        let path: string;
        try {
          path = fileURLToPath(checkUrlAllowed(source));
        } catch (error) {
          throw new AdcapError('E_DOWNLOAD', `${label} is not a usable file URL on this system.`, { cause: error });
        }
        const info = await stat(path).catch(() => null);
        if (info === null || !info.isFile()) throw new AdcapError('E_DOWNLOAD', `${label} cannot be read; check that the file exists.`);
        // spec §9: at most the pinned size is taken from a source; a longer or shorter file is not the blob.
        if (info.size !== request.size) throw new WrongContentError(`it has ${info.size} bytes, not the pinned ${request.size}`);
        await copyFile(path, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
        cloned = true;
        // Written to disk while `use` reads it (the inflating is CPU work; this is I/O), so the
        // entry is durable before its rename without a wait of its own.
        const synced = handleSync(temp);
        synced.catch(() => undefined); // awaited below
        request.onProgress?.({ phase: 'download', done: request.size, total: request.size });
        let value: T;
        try {
          value = await use(temp);
        } catch (error) {
          await synced.catch(() => undefined);
          // Whose fault: a clone that is not the pinned blob fails this source (the next is tried);
          // an intact one means the package itself was refused, which is the caller's error.
          const actual = await hashFile(temp).catch(() => null);
          if (actual?.sha256 !== request.sha256 || actual.size !== request.size) {
            throw new WrongContentError(`it holds bytes with SHA-256 ${actual?.sha256 ?? 'unknown'}, not the pinned ${request.sha256}`);
          }
          await this.commit(temp, final).catch(() => undefined);
          cloned = false;
          throw error;
        }
        await synced;
        await this.commit(temp, final);
        cloned = false;
        return value;
      } catch (error) {
        if (cloned) await rm(temp, { force: true }).catch(() => undefined);
        if (!(error instanceof WrongContentError) && !isAdcapError(error, 'E_DOWNLOAD')) throw error;
        failures.push({ source: label, error: reasonOf(error) });
      }
    }
    throw allSourcesFailed(what, request, failures);
  }

  /** Copies a local file into the cache, verifying size and SHA-256 first (E_HASH on mismatch). */
  async putFile(path: string, pin: { sha256: string; size: number }): Promise<string> {
    assertSha(pin.sha256);
    assertSize(pin.size);
    const final = this.pathFor(pin.sha256);
    if (await this.presentOrDrop(final, pin.size)) return final;
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
   * again (issue 5: corrupt entries are dropped and refetched).
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
   * and temp files older than an hour. Blobs being downloaded right now are left alone.
   */
  async gc(keep: Set<string>): Promise<GcResult> {
    const result: GcResult = { removed: [], freedBytes: 0, tempFilesRemoved: 0 };
    const root = join(this.dir, 'sha256');
    for (const prefix of await readdir(root).catch(() => [] as string[])) {
      const prefixDir = join(root, prefix);
      const names = await readdir(prefixDir).catch(() => null);
      if (names === null) continue;
      let left = names.length;
      for (const name of names) {
        const isBlob = SHA256_HEX.test(name) && name.startsWith(prefix);
        if (isBlob && (keep.has(name) || this.inflight.has(name))) continue;
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
        if (keep.has(sha) || this.inflight.has(sha)) continue;
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

  // --- internals -------------------------------------------------------------------------------

  /**
   * True when a file of the right size is at `final`, and with `hash`, whose bytes hash to its
   * address. Reads are verified like cacache's (issue 15 item 3): a same-size entry damaged on disk
   * is removed and the caller fetches it again, instead of handing damaged bytes to a tool. Only a
   * caller that hashes what it reads anyway passes `hash` false (BlobRequest.readerHashes). An
   * entry hashed once is not hashed again by this instance while its inode, size and times stay.
   *
   * A wrong-sized entry is re-hashed: if it is corrupt it is removed (and refetched by the caller);
   * if it is intact, the caller's size pin contradicts its SHA-256 and no download could ever
   * satisfy it, so that is E_DOWNLOAD (a bad pin must not be able to evict a good entry).
   */
  private async presentOrDrop(final: string, size: number, hash = true): Promise<boolean> {
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

  private async download(request: BlobRequest, final: string, emit: DownloadProgressListener): Promise<string> {
    const what = request.what ?? `blob ${request.sha256}`;
    if (request.sources.length === 0) {
      throw new AdcapError('E_DOWNLOAD', `${what} is not in the cache and has no sources to download it from.`, {
        details: { sha256: request.sha256 },
      });
    }
    await mkdir(this.tmpDir, { recursive: true });
    const partialPath = join(this.tmpDir, `${request.sha256}.partial`);
    // The SDK's one lock (util/lock.ts says why it is not proper-lockfile), taken without waiting.
    const lock = await tryAcquireLock(partialLockOf(partialPath), `download ${request.sha256}`, {
      staleMs: LOCK_STALE_MS,
      what: `The partial download ${partialPath}`,
    }).catch(() => null);
    // Another process holds the partial file: download into a private temp file (no resume) and let
    // "already there is success" settle the race at the rename.
    const workPath = lock === null ? tempPathFor(join(this.tmpDir, request.sha256)) : partialPath;
    try {
      if (await this.presentOrDrop(final, request.size)) return final;
      const failures: SourceFailure[] = [];
      for (const source of request.sources) {
        const label = redactUrl(source);
        let parsed: URL | undefined;
        try {
          parsed = checkUrlAllowed(source);
          const problem =
            request.policy === undefined
              ? null
              : (publisherSourceProblem(parsed, request.policy) ??
                (await publisherSourceResolvesPrivately(parsed, request.policy, this.lookup)));
          if (problem !== null) throw new RefusedSource(problem);
          let url = source;
          let headers: Record<string, string> = {};
          // spec §12 / issue 11 item 13: the authoriser sees only URLs on the installing registry.
          const registry = request.authorize?.registry;
          if (request.authorize !== undefined && onRegistry(parsed, registry ?? null)) {
            // spec §12: entitled content goes through the host's authoriser; a denial ends the fetch.
            ({ url, headers } = await authorizeUrl(request.authorize, source));
          }
          await this.fromMirror({ url, headers, label, workPath, request, emit });
          await this.commit(workPath, final);
          return final;
        } catch (error) {
          if (isAdcapError(error, 'E_ENTITLEMENT')) throw error;
          if (request.signal?.aborted === true) {
            throw new AdcapError('E_CANCELLED', `Downloading ${what} was cancelled.`, { cause: error });
          }
          failures.push({ source: label, error: reasonOf(error), kind: failureKind(error, parsed, request.policy) });
        }
      }
      throw allSourcesFailed(what, request, failures);
    } finally {
      if (lock === null) await rm(workPath, { force: true }).catch(() => undefined);
      else await lock.release().catch(() => undefined);
    }
  }

  /** Tries one mirror, resuming while interrupted attempts keep making progress. */
  private async fromMirror(ctx: TransferContext): Promise<void> {
    let restartedForContent = false;
    for (let attempt = 1; ; attempt += 1) {
      const before = await sizeOf(ctx.workPath);
      try {
        await this.transfer(ctx);
        return;
      } catch (error) {
        if (error instanceof WrongContentError) {
          await rm(ctx.workPath, { force: true });
          // The bad bytes may have come from an earlier mirror's partial: retry this one from zero once.
          if (before > 0 && !restartedForContent) {
            restartedForContent = true;
            continue;
          }
          throw error;
        }
        if (error instanceof RestartFromZero) {
          await rm(ctx.workPath, { force: true });
          continue;
        }
        // A transfer that broke mid-body (or made progress) is retried on this mirror, resuming with
        // Range; a refused connection or an HTTP error moves on to the next mirror at once.
        const after = await sizeOf(ctx.workPath);
        const broke = after > before || ctx.bodyStarted === true;
        if (broke && attempt < this.attemptsPerMirror && ctx.request.signal?.aborted !== true) continue;
        throw error;
      }
    }
  }

  /** One HTTP (or file) transfer into `workPath`, appending to what is already there. */
  private async transfer(ctx: TransferContext): Promise<void> {
    const { request, emit } = ctx;
    const size = request.size;
    ctx.bodyStarted = false;
    let have = await sizeOf(ctx.workPath);
    if (have > size) {
      await rm(ctx.workPath, { force: true });
      have = 0;
    }
    const hash = createSha256();
    if (have > 0) {
      for await (const chunk of createReadStream(ctx.workPath, { end: have - 1, highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
    }
    let source: OpenedSource | null = null;
    if (have < size || size === 0) {
      try {
        source = await openSource(ctx.url, {
          fetch: this.fetchImpl,
          headers: ctx.headers,
          signal: request.signal,
          idleTimeoutMs: this.idleTimeoutMs,
          label: ctx.label,
          start: have > 0 ? have : undefined,
          ...(request.policy === undefined ? {} : { checkRedirect: redirectCheck(request.policy) }),
        });
      } catch (error) {
        if (have > 0 && isAdcapError(error, 'E_DOWNLOAD') && error.details['status'] === 416) throw new RestartFromZero();
        throw error;
      }
      ctx.bodyStarted = true;
      if (have > 0) {
        if (source.status === 200) {
          // The server ignored Range: start over from the full body it is sending.
          return this.writeBody(ctx, source, 0, createSha256());
        }
        const range = source.contentRange;
        if (range === null || range.start !== have || (range.total !== null && range.total !== size)) {
          // Range answers MUST be validated: a 206 for other bytes would splice foreign content in.
          await source.cancel();
          throw new RestartFromZero();
        }
      }
    }
    if (source === null) {
      // The partial already holds `size` bytes (a previous attempt finished writing but not verifying).
      emit({ phase: 'download', done: have, total: size });
      return this.finishFile(ctx, have, hash.digest('hex'));
    }
    return this.writeBody(ctx, source, have, hash);
  }

  private async writeBody(ctx: TransferContext, source: OpenedSource, start: number, hash: ReturnType<typeof createSha256>): Promise<void> {
    const size = ctx.request.size;
    if (source.contentLength !== null && start + source.contentLength > size) {
      await source.cancel();
      throw new WrongContentError(`it declared ${start + source.contentLength} bytes, more than the pinned ${size}`);
    }
    let handle: FileHandle | undefined;
    let done = start;
    let lastReported = -Infinity;
    const report = (force: boolean): void => {
      if (force || done - lastReported >= PROGRESS_STEP) {
        lastReported = done;
        ctx.emit({ phase: 'download', done, total: size });
      }
    };
    try {
      handle = await open(ctx.workPath, start === 0 ? 'w' : 'r+');
      if (start === 0) await handle.truncate(0);
      report(true);
      for await (const chunk of source.chunks()) {
        const room = size - done;
        if (chunk.byteLength > room) {
          // spec §9: read at most the pinned size; a longer body fails this mirror.
          await source.cancel();
          throw new WrongContentError(`it sent more than the pinned ${size} bytes`);
        }
        await handle.write(chunk, 0, chunk.byteLength, done);
        hash.update(chunk);
        done += chunk.byteLength;
        report(false);
      }
      if (done < size) {
        throw new AdcapError('E_DOWNLOAD', `${ctx.label} ended after ${done} of ${size} bytes.`);
      }
      report(true);
      await handle.sync();
    } finally {
      await handle?.close().catch(() => undefined);
    }
    await this.finishFile(ctx, done, hash.digest('hex'));
  }

  private async finishFile(ctx: TransferContext, size: number, digest: string): Promise<void> {
    if (size !== ctx.request.size || digest !== ctx.request.sha256) {
      throw new WrongContentError(`it sent bytes with SHA-256 ${digest}, not the pinned ${ctx.request.sha256}`);
    }
  }

  /** Moves a verified temp file into its content address; "already there" is success (cacache). */
  private async commit(temp: string, final: string): Promise<void> {
    await mkdir(dirname(final), { recursive: true });
    await chmod(temp, 0o444);
    await rename(temp, final);
    await fsyncDir(dirname(final));
  }
}

/** A redirect within one allowed origin is fine; one elsewhere must pass the publisher-source rules. */
function redirectCheck(policy: SourcePolicy): (next: URL, from: URL) => void {
  return (next, from) => {
    if (next.origin === from.origin && next.protocol !== 'file:') return;
    const problem = publisherSourceProblem(next, policy);
    if (problem !== null) throw new AdcapError('E_DOWNLOAD', `redirect refused: ${problem}`);
  };
}

interface TransferContext {
  url: string;
  headers: Record<string, string>;
  label: string;
  workPath: string;
  request: BlobRequest;
  emit: DownloadProgressListener;
  /** Set once the current attempt received a 200/206 answer. */
  bodyStarted?: boolean;
}

const LOCK_STALE_MS = 20_000;

/** The lock beside a partial download (`<sha>.partial.lock`; gc leaves `.lock` names alone). */
function partialLockOf(partialPath: string): string {
  return `${partialPath}.lock`;
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path).catch(() => null);
  return info === null ? 0 : info.size;
}

function assertSha(sha256: string): void {
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new AdcapError('E_USAGE', `"${String(sha256)}" is not a SHA-256 (64 lowercase hex digits).`);
  }
}

function assertSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new AdcapError('E_USAGE', `${String(size)} is not a valid blob size (a non-negative integer).`);
  }
}

/** fsync of a file by path (the clone is durable before it is renamed into its content address). */
async function handleSync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function reasonOf(error: unknown): string {
  if (error instanceof WrongContentError || error instanceof RefusedSource) return error.message;
  const text = errorText(error).replace(/\.$/, '');
  return text;
}

function failureKind(error: unknown, url: URL | undefined, policy: SourcePolicy | undefined): SourceFailure['kind'] {
  if (error instanceof RefusedSource) return 'refused';
  const missing = isAdcapError(error, 'E_DOWNLOAD') && error.details['status'] === 404;
  return missing && url !== undefined && policy !== undefined && onRegistry(url, policy.registry) ? 'absent' : undefined;
}

/**
 * E_DOWNLOAD naming every source tried and why each failed (the blob's size and hash say what was
 * wanted). When the host refused publisher sources (spec §9 sources are https mirrors; source-policy.ts),
 * the refusal is the cause and comes first: the registry mirror that lacks the blob is then said in
 * words, not as its 404 or file error, which read as if the registry were broken.
 */
function allSourcesFailed(what: string, request: { size: number; sha256: string }, failures: SourceFailure[]): AdcapError {
  const attempts = failures.map(({ source, error }) => ({ source, error }));
  const refused = failures.filter((f) => f.kind === 'refused');
  if (refused.length === 0) {
    const list = failures.map((f, i) => `(${i + 1}) ${f.source}: ${f.error}`).join('; ');
    return new AdcapError(
      'E_DOWNLOAD',
      `Could not download ${what} (${request.size} bytes, SHA-256 ${request.sha256}) ` +
        `from any of its ${failures.length} source${failures.length === 1 ? '' : 's'}: ${list}.`,
      { details: { sha256: request.sha256, attempts } },
    );
  }
  const others = failures.filter((f) => f.kind === undefined);
  const parts = [
    refused.map((f) => `${f.source} was refused before any request: ${f.error}`).join('; '),
    ...(failures.some((f) => f.kind === 'absent') ? ['the registry has no copy of it'] : []),
    ...(others.length === 0 ? [] : [`the other sources failed: ${others.map((f) => `${f.source}: ${f.error}`).join('; ')}`]),
  ];
  return new AdcapError(
    'E_DOWNLOAD',
    `Could not download ${what}: ${parts.join('; ')}. The publisher can offer a public https source or the registry ` +
      'a mirror of it; a host that trusts a private origin can allow it with the sourceOrigins option.',
    { details: { sha256: request.sha256, attempts, refused: refused.map(({ source, error }) => ({ source, reason: error })) } },
  );
}
