/**
 * The content cache of DESIGN §6: a BlobStore (blob-store.ts: the content-addressed files, verified
 * reads, gc) and a BlobDownloader (blob-download.ts: mirrors, Range resume, the source policy and
 * the host's authoriser), storage apart from fetching as in npm's cacache and make-fetch-happen.
 * This class is what the rest of the SDK uses: it asks the store first, shares one download among
 * concurrent callers for a blob, and keeps gc off blobs being downloaded.
 */
import {
  BlobDownloader,
  type BlobRequest,
  type ContentCacheOptions,
  type DownloadProgress,
  type DownloadProgressListener,
} from './blob-download.js';
import { assertSha, assertSize, BlobStore, type GcResult, type VerifyResult } from './blob-store.js';

export type { BlobRequest, ContentCacheOptions, DownloadProgress, DownloadProgressListener } from './blob-download.js';
export type { EntryState, GcResult, VerifyResult } from './blob-store.js';

interface Inflight {
  promise: Promise<string>;
  listeners: Set<DownloadProgressListener>;
}

/** The content-addressed cache of a home (DESIGN §6): pinned downloads with mirrors, resume, verification on read and gc. */
export class ContentCache {
  /** The home's `cache/` folder this cache lives in. */
  readonly dir: string;
  private readonly store: BlobStore;
  private readonly downloader: BlobDownloader;
  private readonly inflight = new Map<string, Inflight>();

  /** `dir` is the home's `cache/` directory; blobs live in `dir/sha256/`, temp files in `dir/tmp/`. */
  constructor(dir: string, options: ContentCacheOptions = {}) {
    this.dir = dir;
    this.store = new BlobStore(dir);
    this.downloader = new BlobDownloader(this.store, options);
  }

  /** `dir/tmp/`: partial downloads and files being copied in, before they are verified and renamed into place. */
  get tmpDir(): string {
    return this.store.tmpDir;
  }

  /** `dir/sha256/<2 hex>/<64 hex>` (DESIGN §6). */
  pathFor(sha256: string): string {
    return this.store.pathFor(sha256);
  }

  /** True when the blob is present (and has `size` bytes, when given). Does not re-hash: see verifyEntry. */
  has(sha256: string, size?: number): Promise<boolean> {
    return this.store.has(sha256, size);
  }

  /**
   * The path of a cached blob whose bytes were hashed on this read, or null when it is absent or
   * was damaged (a damaged entry is removed, so fetchBlob downloads it again). For readers that hand
   * the file to someone who does not hash it (resources, shards).
   */
  async cachedPath(sha256: string, size: number): Promise<string | null> {
    assertSize(size);
    const final = this.store.pathFor(sha256);
    return (await this.store.present(final, size)) ? final : null;
  }

  /**
   * Returns the local path of a verified blob, downloading it if needed (spec §9): mirrors in order,
   * at most `size` bytes read from each, SHA-256 and size checked before the blob enters the cache,
   * the next mirror tried on wrong bytes or errors. Concurrent calls for one blob share one download.
   */
  async fetchBlob(request: BlobRequest): Promise<string> {
    assertSha(request.sha256);
    assertSize(request.size);
    const final = this.store.pathFor(request.sha256);
    if (await this.store.present(final, request.size, request.readerHashes !== true)) return final;
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
    const promise = this.downloader.download(request, final, emit).finally(() => this.inflight.delete(request.sha256));
    this.inflight.set(request.sha256, { promise, listeners });
    return promise;
  }

  /**
   * For a caller that reads the whole blob once anyway and checks its pin in that read (install:
   * verify and extract in one pass, readPackage's `expectArchive`). `use` gets a path to the bytes
   * and must throw E_HASH when they are not the pinned ones, before it keeps anything.
   * - Already cached: `use` reads the cached blob.
   * - Sources that are all local files (a file:// registry): BlobDownloader.cloneLocal, whose clone
   *   becomes the cache entry only after `use` accepted it.
   * - Anything else (https, entitled, publisher-chosen sources): fetchBlob (hashed while it
   *   downloads, resumable), then `use` on the cached blob.
   */
  async withBlob<T>(request: BlobRequest, use: (path: string) => Promise<T>): Promise<T> {
    assertSha(request.sha256);
    assertSize(request.size);
    const final = this.store.pathFor(request.sha256);
    const local =
      request.authorize === undefined &&
      request.policy === undefined &&
      request.sources.length > 0 &&
      request.sources.every((s) => s.startsWith('file:'));
    if (!local || this.inflight.has(request.sha256) || (await this.store.present(final, request.size))) {
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
    return this.downloader.cloneLocal(request, final, use);
  }

  /** Copies a local file into the cache, verifying size and SHA-256 first (E_HASH on mismatch). */
  putFile(path: string, pin: { sha256: string; size: number }): Promise<string> {
    return this.store.putFile(path, pin);
  }

  /**
   * Re-hashes one entry (used by doctor). A corrupt entry is removed, so the next use fetches it
   * again, unless `remove` is false.
   */
  verifyEntry(sha256: string, options: { remove?: boolean } = {}): Promise<VerifyResult> {
    return this.store.verifyEntry(sha256, options);
  }

  /** SHA-256 of every blob in the cache. */
  entries(): Promise<string[]> {
    return this.store.entries();
  }

  /**
   * Removes every blob whose SHA-256 is not in `keep` (the caller passes what installed versions and
   * rollback still reference), stray files in the blob tree, partial downloads of blobs not kept,
   * and temp files older than an hour. Blobs being downloaded right now are left alone.
   */
  gc(keep: Set<string>): Promise<GcResult> {
    return this.store.gc(keep, (sha256) => this.inflight.has(sha256));
  }
}
