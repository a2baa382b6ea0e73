/**
 * Fetching a pinned blob into the store (spec §9): mirrors in preference order, at most the pinned
 * size read from each, SHA-256 and size checked before the blob enters the cache, the next mirror
 * tried on wrong bytes or errors. A download keeps its partial file at `cache/tmp/<sha>.partial`
 * (guarded by a lock so two processes never append to the same file) and resumes it with HTTP
 * Range; publisher-chosen sources pass the source policy first, entitled ones the host's
 * authoriser (spec §12). Storage itself is blob-store.ts.
 */
import { constants, createReadStream } from 'node:fs';
import { copyFile, mkdir, open, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcapError, isAdcapError } from '../errors.js';
import { tempPathFor } from '../util/fs-atomic.js';
import { createSha256, hashFile } from '../util/hash.js';
import { tryAcquireLock } from '../util/lock.js';
import type { Progress, ProgressListener } from '../util/progress.js';
import { authorizeUrl, type Authorization } from './authorize.js';
import { errorText, LOCK_STALE_MS, partialLockOf, type BlobStore } from './blob-store.js';
import { checkUrlAllowed, openSource, redactUrl, type FetchLike, type OpenedSource } from './fetch.js';
import {
  onRegistry,
  publisherSourceProblem,
  publisherSourceResolvesPrivately,
  type LookupAddresses,
  type SourcePolicy,
} from './source-policy.js';

/** Download progress uses the SDK-wide shape: `{ phase: 'download', done, total }` in bytes. */
export type DownloadProgress = Progress;
/** Receives download progress, `{ phase: 'download', done, total }` in bytes. */
export type DownloadProgressListener = ProgressListener;

/** Options of `new ContentCache(dir, options)`: how blobs are fetched. */
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
  /** The blob's pinned SHA-256 (64 lowercase hex digits); bytes that hash otherwise are refused with E_HASH. */
  sha256: string;
  /** The blob's pinned size in bytes; a download is capped at it. */
  size: number;
  /** Mirrors in preference order (spec §9: tried in order). */
  sources: string[];
  /** For entitled content (spec §9 access "entitled", spec §12). */
  authorize?: Authorization;
  /**
   * Set when the sources were chosen by a publisher (resources, shards): each
   * source and every redirect must pass `publisherSourceProblem` before any request is made.
   */
  policy?: SourcePolicy;
  /** Told `{ phase: 'download', done, total }` in bytes as the blob arrives. */
  onProgress?: DownloadProgressListener;
  /** Cancels the download: it rejects with E_CANCELLED and leaves no partial entry behind. */
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

/** Gets pinned blobs from their sources into a BlobStore. */
export class BlobDownloader {
  private readonly fetchImpl: FetchLike | undefined;
  private readonly idleTimeoutMs: number | undefined;
  private readonly attemptsPerMirror: number;
  private readonly lookup: LookupAddresses | undefined;

  constructor(
    private readonly store: BlobStore,
    options: ContentCacheOptions = {},
  ) {
    this.fetchImpl = options.fetch;
    this.idleTimeoutMs = options.idleTimeoutMs;
    this.attemptsPerMirror = Math.max(1, options.attemptsPerMirror ?? 3);
    this.lookup = options.lookup;
  }

  /**
   * The local half of ContentCache.withBlob: sources that are all local files (a file:// registry)
   * are cloned into cache/tmp in the kernel (a reflink where the file system can, else
   * copy_file_range: the bytes never pass through this process), `use` reads the clone, and the
   * clone becomes the entry at `final` only after `use` accepted it. A source that fails (missing,
   * wrong size, wrong bytes) passes on to the next, as in download. Not a hard link: the cache makes
   * its entries read-only and must not share an inode with a file someone else may change or chmod.
   */
  async cloneLocal<T>(request: BlobRequest, final: string, use: (path: string) => Promise<T>): Promise<T> {
    const what = request.what ?? `blob ${request.sha256}`;
    const failures: { source: string; error: string }[] = [];
    await mkdir(this.store.tmpDir, { recursive: true });
    for (const source of request.sources) {
      const label = redactUrl(source);
      const temp = tempPathFor(join(this.store.tmpDir, request.sha256));
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
          await this.store.commit(temp, final).catch(() => undefined);
          cloned = false;
          throw error;
        }
        await synced;
        await this.store.commit(temp, final);
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

  /** Downloads `request` into the store at `final` (the caller checked it is not there and joins concurrent calls). */
  async download(request: BlobRequest, final: string, emit: DownloadProgressListener): Promise<string> {
    const what = request.what ?? `blob ${request.sha256}`;
    if (request.sources.length === 0) {
      throw new AdcapError('E_DOWNLOAD', `${what} is not in the cache and has no sources to download it from.`, {
        details: { sha256: request.sha256 },
      });
    }
    await mkdir(this.store.tmpDir, { recursive: true });
    const partialPath = join(this.store.tmpDir, `${request.sha256}.partial`);
    // The SDK's one lock (util/lock.ts says why it is not proper-lockfile), taken without waiting.
    const lock = await tryAcquireLock(partialLockOf(partialPath), `download ${request.sha256}`, {
      staleMs: LOCK_STALE_MS,
      what: `The partial download ${partialPath}`,
    }).catch(() => null);
    // Another process holds the partial file: download into a private temp file (no resume) and let
    // "already there is success" settle the race at the rename.
    const workPath = lock === null ? tempPathFor(join(this.store.tmpDir, request.sha256)) : partialPath;
    try {
      if (await this.store.present(final, request.size)) return final;
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
          // spec §12: the authoriser sees only URLs on the installing registry.
          const registry = request.authorize?.registry;
          if (request.authorize !== undefined && onRegistry(parsed, registry ?? null)) {
            // spec §12: entitled content goes through the host's authoriser; a denial ends the fetch.
            ({ url, headers } = await authorizeUrl(request.authorize, source));
          }
          await this.fromMirror({ url, headers, label, workPath, request, emit });
          await this.store.commit(workPath, final);
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

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path).catch(() => null);
  return info === null ? 0 : info.size;
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
