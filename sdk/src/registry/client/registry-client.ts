/**
 * The registry client (spec §13, DESIGN §10): one remote, its pinned root keys, and the last
 * verified catalogue kept under home/remotes/<name>/ for offline use.
 *
 * - update():     fetch catalog.json (size-capped), verifyCatalogue against the pinned keys and the
 *                 stored floor, store it. Serialized per remote by a lock. Every attempt, success
 *                 or failure, is recorded (lastAttempt()), so a status reads the last one.
 * - catalogue():  the stored catalogue, refreshed first when it was last checked over an hour ago
 *                 (a network failure then falls back to the stored copy; an attack never does).
 * - packageDoc(): the package document, checked against the catalogue's pin (E_DOC_HASH).
 * - downloadArchive(): mirrors in order through the content cache (size and SHA-256 pinned), then
 *                 the publisher signature under the keys of the signed catalogue.
 *
 * Layouts (docs/scaling.md "Old clients"): given a `…/v1/` URL, update() first asks for the sibling
 * `…/v2/catalog.json` and uses the v2 layout when it verifies under the same pinned root keys
 * (snapshot-v2.ts follows changed pins only); a missing v2/ means a version 1 registry. Once a
 * remote was read as v2 it stays v2: a v2/ that disappears or fails to verify is reported, never
 * silently traded for v1/. Search, record lookups, package documents and downloads answer the
 * same over both.
 */
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import type { ArchiveLimits } from '../../format/archive/limits.js';
import type { Progress } from '../../util/progress.js';
import type { Manifest } from '../../format/manifest-types.js';
import type { AuthorizeFn, Authorization } from '../../cache/authorize.js';
import { fetchCapped, resolveUrl, type FetchLike } from '../../cache/fetch.js';
import { verifyPackage, type VerifiedPackage } from '../../trust/package-signature.js';
import { reasonError } from '../../surface-text.js';
import { hashFile } from '../../util/hash.js';
import { withLock } from '../../util/lock.js';
import {
  catalogueVerificationRecord,
  checkCatalogueFreshness,
  publisherTrustedKeys,
  rootKeysDigest,
  topLevelVerificationRecord,
  verifyCatalogue,
  verifyTopLevel,
  type VerifiedCatalogue,
  type VerifiedTopLevel,
} from '../catalogue.js';
import { compareVersions } from '../documents.js';
import { binOf } from '../layout-v2.js';
import { parseCapabilityId } from '../layout.js';
import { remoteStateDir, type RemoteConfig } from '../remotes.js';
import { SearchIndex, type SearchFilters, type SearchHit, type SearchSource } from '../search.js';
import { openStoredIndex, SearchIndexStore, writeV1Index, type DiskSearchIndex } from '../search-index/disk-index.js';
import type { CatalogueCapability, CataloguePayload, DocumentVersion, PackageDocument } from '../types.js';
import { catalogueFallbacks, checkDocumentPin, parsePackageDocument } from './package-document.js';
import { RemoteStore, type RemoteAttempt, type RemoteState } from './remote-store.js';
import {
  fetchContext,
  loadSnapshot,
  meansNoV2,
  snapshotRecord,
  storedBinRecord,
  storedSegmentLists,
  syncIndex,
  syncSnapshot,
  V2Store,
  type V2Snapshot,
} from './snapshot-v2.js';

const DEFAULT_MAX_CATALOG_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
const DEFAULT_REFRESH_AFTER_MS = 60 * 60 * 1000;
/** The most a v2 top level may be: two lists of F pins (F = 4096 would be about 1.3 MiB). */
const MAX_TOP_LEVEL_BYTES = 4 * 1024 * 1024;

/** Which layout a registry serves this client: one signed catalogue (v1/) or hashed bins under a signed top level (v2/). */
export type RegistryLayout = 'v1' | 'v2';

/** A v2 snapshot a payload stands for, and its search index: opened or opening, else null (v2Index). */
interface V2Held {
  snapshot: V2Snapshot;
  index: Promise<DiskSearchIndex> | null;
  /** Ids looked up in the snapshot's one segment (v2Lists), and the answer: a snapshot never changes. */
  listed: Map<string, boolean>;
}

/** The most ids a held snapshot remembers the listing of (an MCP server looks its tools' ids up at every call). */
const MAX_LISTED = 4096;

/** Options of `new RegistryClient(options)`. */
export interface RegistryClientOptions {
  /** The Arcotheon home whose remotes/<name>/ folder keeps this remote's verified catalogue and state. */
  home: string;
  /** The remote to read: its name, v1/ URL and pinned root keys. */
  remote: RemoteConfig;
  /** Used for https:// and http:// (default: the global fetch, which honours NODE_EXTRA_CA_CERTS). */
  fetch?: FetchLike;
  /** DESIGN §10: refuse catalogues generated longer ago than this (default 30 days); `remote.maxCatalogAgeMs` overrides it. */
  maxCatalogAgeMs?: number;
  /** DESIGN §10: metadata caps (defaults 64 MiB, about 140,000 capabilities, and 4 MiB). */
  maxCatalogBytes?: number;
  /** The most bytes a package document may have (default 4 MiB); more is E_LIMIT. */
  maxDocumentBytes?: number;
  /** Refresh the stored catalogue when it was checked longer ago than this (default 1 hour). */
  refreshAfterMs?: number;
  /**
   * 'auto' (default): a `…/v1/` URL probes the sibling v2/ and prefers it when it verifies;
   * 'v1': read v1/ only, as a version 1.0 client does (docs/scaling.md "Old clients").
   */
  layout?: 'auto' | 'v1';
  /** The clock (default `new Date()`), for catalogue ages. */
  now?: () => Date;
}

/** What `catalogue()` and `update()` return: the verified payload and where it came from. */
export interface LoadedCatalogue extends VerifiedCatalogue {
  /** The remote's name. */
  remote: string;
  /** When the catalogue was last checked against the registry (ISO 8601, UTC). */
  checkedAt: string;
  /** True when update() found new content (a higher sequence) rather than the same catalogue. */
  changed: boolean;
  /**
   * The layout read (docs/scaling.md). Over v2, `payload.publishers` is complete but
   * `payload.capabilities` is empty (a v2 registry may list millions): use `record(id)`,
   * `search()` and `capabilityCount`.
   */
  layout: RegistryLayout;
  /** How many capabilities the registry lists. */
  capabilityCount: number;
  /** Bytes the update that produced this downloaded (0 when it was read from the home). */
  downloadedBytes: number;
}

/** The minimal content-cache surface needed here; `ContentCache` (sdk/src/cache) provides it. */
export interface BlobFetcher {
  /** Downloads a pinned blob (or finds it cached), verifies it and resolves with its path; E_HASH, E_DOWNLOAD or E_CANCELLED otherwise. */
  fetchBlob(request: {
    sha256: string;
    size: number;
    sources: string[];
    authorize?: Authorization;
    onProgress?: (progress: Progress) => void;
    signal?: AbortSignal;
    what?: string;
    readerHashes?: boolean;
  }): Promise<string>;
  /** Re-hashes a cached entry and removes it when damaged (ContentCache.verifyEntry). */
  verifyEntry?(sha256: string): Promise<{ state: string }>;
}

/** A cache that lets its caller verify a blob in the read that uses it (ContentCache.withBlob). */
export interface BlobUser extends BlobFetcher {
  /** Where the blob with this SHA-256 lives in the cache. */
  pathFor(sha256: string): string;
  /**
   * Calls `use` with a path to the blob's bytes (cached, cloned or downloaded); `use` checks the pin in its own read and throws E_HASH when
   * it fails. Resolves with what `use` returns.
   */
  withBlob<T>(request: Parameters<BlobFetcher['fetchBlob']>[0], use: (path: string) => Promise<T>): Promise<T>;
}

/** Options of `RegistryClient.downloadAndExtract()`: those of a download, and where to extract. */
export interface ExtractOptions extends Omit<DownloadOptions, 'cache'> {
  /** The content cache the archive is fetched into and read from. */
  cache: BlobUser;
  /**
   * The new directory the verified files are extracted into, left there for the caller to rename
   * into place (readPackage's `extractInto`: a prepared version is the one staging directory).
   */
  extractTo: string;
  /** The caller's checks of the extracted files (workflow documents), before extractAndDownload returns; a throw removes them. */
  accept?: (pkg: VerifiedPackage, dir: string) => Promise<void> | void;
  /** Make the extracted files and folders read-only. */
  readOnly?: boolean;
  /** Tighter archive caps than DEFAULT_ARCHIVE_LIMITS (E_LIMIT beyond them). */
  limits?: Partial<ArchiveLimits>;
}

/** Options of `RegistryClient.downloadArchive()`. */
export interface DownloadOptions {
  /** The content cache the archive is fetched into. */
  cache: BlobFetcher;
  /** The host's authoriser, required for entitled archives (spec §12). */
  authorize?: AuthorizeFn;
  /** Told `{ phase: 'download', done, total }` in bytes. */
  onProgress?: (progress: Progress) => void;
  /** Cancels the download (E_CANCELLED). */
  signal?: AbortSignal;
}

/** An archive downloaded and verified by `RegistryClient.downloadArchive()`. */
export interface DownloadedArchive {
  /** Verified archive in the content cache. */
  path: string;
  /** The capability's id. */
  id: string;
  /** The version downloaded. */
  version: string;
  /** The registry's entry for the version, with its yank or revocation. */
  entry: DocumentVersion;
  /** The package's validated manifest. */
  manifest: Manifest;
  /** The SHA-256 (hex) of the manifest's canonical JSON. */
  manifestSha256: string;
  /** The key ids of the publisher's active keys whose signatures verified. */
  signedBy: string[];
}

/**
 * A remote's capabilities listed from its stored search index (RegistryClient.storedListing).
 * @internal
 */
export interface StoredListing {
  /** The SHA-256 of the catalogue file the listing was built from (a full verification accepted it). */
  catalogueSha256: string;
  /** Every publisher the capabilities name: its display name and whether it has an active key. */
  publishers: ReadonlyMap<string, { name: string; verified: boolean }>;
  /** Every capability as search sees it, by id (no document pin). */
  entries(): Array<[string, CatalogueCapability]>;
}

/** A client of one remote registry (spec §13): verified catalogue, package documents and archive downloads. */
export class RegistryClient {
  /** The remote this client reads. */
  readonly remote: RemoteConfig;
  private readonly home: string;
  private readonly store: RemoteStore;
  private readonly fetchImpl: FetchLike | undefined;
  private readonly maxCatalogAgeMs: number | undefined;
  private readonly maxCatalogBytes: number;
  private readonly maxDocumentBytes: number;
  private readonly refreshAfterMs: number;
  private readonly now: () => Date;
  private loaded: LoadedCatalogue | null = null;
  /** The stored catalogue's load and check while one runs. */
  private loadingStored: Promise<{ stored: LoadedCatalogue | null; belowMinimum: boolean }> | null = null;
  /** The local catalogue file as last hashed: its stat fingerprint and SHA-256. */
  private localSeen: { fingerprint: string; sha256: string } | null = null;
  private index: { payload: CataloguePayload; index: SearchIndex } | null = null;
  private readonly v2Store: V2Store;
  private readonly layoutChoice: 'auto' | 'v1';
  /** The v2 snapshot behind each v2 payload handed out, and its search index once opened (v2Index). */
  private readonly v2State = new WeakMap<CataloguePayload, V2Held>();
  /** The stored search index (search-index/disk-index.ts) of this remote. */
  private readonly indexStore: SearchIndexStore;
  /** The stored index of a layout-1 catalogue, by the SHA-256 of the catalogue file it was built from. */
  private v1Index: { catalogueSha256: string; index: DiskSearchIndex } | null = null;

  constructor(options: RegistryClientOptions) {
    this.remote = options.remote;
    this.home = options.home;
    this.store = new RemoteStore(remoteStateDir(options.home, options.remote.name));
    this.v2Store = new V2Store(join(remoteStateDir(options.home, options.remote.name), 'v2'));
    this.indexStore = new SearchIndexStore(join(remoteStateDir(options.home, options.remote.name), 'search-index'));
    this.layoutChoice = options.layout ?? 'auto';
    this.fetchImpl = options.fetch;
    this.maxCatalogAgeMs = options.maxCatalogAgeMs;
    this.maxCatalogBytes = options.maxCatalogBytes ?? DEFAULT_MAX_CATALOG_BYTES;
    this.maxDocumentBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
    this.refreshAfterMs = options.refreshAfterMs ?? DEFAULT_REFRESH_AFTER_MS;
    this.now = options.now ?? (() => new Date());
  }

  /** The remote's name. */
  get name(): string {
    return this.remote.name;
  }

  /** The registry's v1/ URL; relative document and archive URLs resolve against it (DESIGN §11). */
  get baseUrl(): string {
    return this.remote.url;
  }

  /** The URL of the sibling v2/ of a `…/v1/` remote URL, else null (docs/scaling.md "Old clients"). */
  get v2Url(): string | null {
    return this.layoutChoice === 'auto' && /\/v1\/$/.test(this.remote.url) ? resolveUrl(this.remote.url, '../v2/') : null;
  }

  /** Fetches and verifies the catalogue now, and stores it as the new floor (`adcap remote update`). */
  async update(options: { signal?: AbortSignal } = {}): Promise<LoadedCatalogue> {
    try {
      const loaded = await this.fetchAndStore(options);
      await this.store.saveAttempt({ at: loaded.checkedAt, ok: true });
      return loaded;
    } catch (error) {
      const explained = this.explainBelowShippedMinimum(error);
      // A cancelled refresh says nothing about the registry; every other failure is its status.
      if (!isAdcapError(explained, 'E_CANCELLED') && options.signal?.aborted !== true) {
        const failure = isAdcapError(explained) ? explained : asAdcapError(explained, `Reading the registry "${this.name}" failed`);
        // A registry that cannot be reached is worded per surface (surface-text.ts registry-unreachable).
        const details = isAdcapError(failure, 'E_DOWNLOAD')
          ? { details: { reason: 'registry-unreachable', remote: this.name, cause: failure.message } }
          : plainDetails(failure.details);
        await this.store.saveAttempt({
          at: this.now().toISOString(),
          ok: false,
          error: { code: failure.code, message: failure.message, ...details },
        });
      }
      throw explained;
    }
  }

  /**
   * The last attempt to fetch and verify this remote's catalogue (by this or another process on
   * the same home): when, and its error when it failed; null when it was never tried.
   */
  async lastAttempt(): Promise<RemoteAttempt | null> {
    return this.store.readAttempt();
  }

  /**
   * A catalogue older than the shipped minimum (DESIGN §10) is refused either way; the sentence
   * says where it came from: a registry folder on this computer was replaced by an older build
   * (no mirror is involved), or a server or one of its mirrors serves an old copy.
   */
  private explainBelowShippedMinimum(error: unknown): unknown {
    if (!isAdcapError(error, 'E_ROLLBACK') || error.details['belowShippedMinimum'] !== true) return error;
    const { sequence, minSequence } = error.details as { sequence: number; minSequence: number };
    const local = this.localCatalogueFile();
    const sentence =
      local === null
        ? `The registry "${this.name}" serves a catalogue with sequence ${sequence}, older than the minimum ${minSequence} ` +
          'this app shipped with; the server or one of its mirrors has an old copy, so it was refused. Try again later.'
        : `The registry "${this.name}" in ${dirname(local)} holds a catalogue with sequence ${sequence}, older than the minimum ` +
          `${minSequence} this app shipped with: that folder was replaced by an older build of the registry. ` +
          'Rebuild or reinstall it, so that it is at least as new as the one this app shipped with.';
    return new AdcapError('E_ROLLBACK', sentence, { details: error.details, cause: error });
  }

  /**
   * The catalogue file of a registry on this computer (a file: URL), else null: the signed file of
   * `layout` (default: of the catalogue last read), v2/'s top level for a remote read as v2.
   */
  private localCatalogueFile(layout: LoadedCatalogue['layout'] | undefined = this.loaded?.layout): string | null {
    const base = layout === 'v2' && this.v2Url !== null ? this.v2Url : this.baseUrl;
    const url = resolveUrl(base, 'catalog.json');
    return url.startsWith('file:') ? fileURLToPath(url) : null;
  }

  /**
   * A registry on this computer is cheap to re-read: its stored catalogue is out of date as soon as
   * the file's bytes differ from the ones accepted last (a publish followed by `registry build`).
   */
  private async localCatalogueChanged(stored: LoadedCatalogue): Promise<boolean> {
    // The file of the stored catalogue's layout: a new process has loaded nothing yet, and v1/'s
    // file never hashes to a v2 top level (every search re-read and rewrote a local v2 registry).
    const file = this.localCatalogueFile(stored.layout);
    if (file === null) return false;
    try {
      // A stat per call; the file is hashed only when its size, mtime or inode moved since the last look.
      const info = await stat(file);
      const fingerprint = `${info.size}:${info.mtimeMs}:${info.ino}`;
      if (this.localSeen?.fingerprint === fingerprint && this.localSeen.sha256 === stored.catalogueSha256) return false;
      const { sha256 } = await hashFile(file);
      this.localSeen = { fingerprint, sha256 };
      return stored.catalogueSha256 === undefined || sha256 !== stored.catalogueSha256;
    } catch {
      return true;
    }
  }

  private async fetchAndStore(options: { signal?: AbortSignal }): Promise<LoadedCatalogue> {
    const v2 = await this.fetchV2(options);
    if (v2 !== null) return v2;
    const bytes = await fetchCapped(resolveUrl(this.baseUrl, 'catalog.json'), {
      maxBytes: this.maxCatalogBytes,
      fetch: this.fetchImpl,
      signal: options.signal,
    });
    return withLock(join(this.home, 'locks', `remote-${this.name}.lock`), `remote update ${this.name}`, async () => {
      const floor = await this.floor();
      const verified = verifyCatalogue(bytes, this.remote.rootKeys, { ...floor, ...this.policy() });
      // Identical bytes are identical content; otherwise compare canonical digests (a re-serialised
      // but equal catalogue is not a change).
      const changed = floor.catalogueSha256 !== verified.catalogueSha256 && floor.payloadSha256 !== verified.payloadSha256;
      const checkedAt = this.now().toISOString();
      const state: RemoteState = {
        sequence: verified.payload.sequence,
        payloadSha256: changed || floor.payloadSha256 === undefined ? verified.payloadSha256 : floor.payloadSha256,
        catalogueSha256: verified.catalogueSha256 as string,
        checkedAt,
      };
      await this.store.save(changed ? bytes : null, state);
      if (changed) await this.saveVerification(verified);
      // The search index of the accepted catalogue, built once (docs/scaling.md "Cold start and
      // offline search"); a home that cannot hold it searches in memory instead.
      if (changed) await this.storeV1Index(verified).catch(() => undefined);
      if (changed) await this.store.pruneDocuments(new Set(Object.values(verified.payload.capabilities).map((c) => c.doc.sha256)));
      this.loaded = loadedCatalogue(verified, { remote: this.name, checkedAt, changed, downloadedBytes: bytes.length });
      return this.loaded;
    });
  }

  /**
   * The v2 refresh (docs/scaling.md "A refresh"): the top level, verified like a v1 catalogue but in
   * its own signature context; then the nodes, bins and publishers whose pins changed (a cold start:
   * every node and search pack). null when this registry has no v2/ (or, for a client that never
   * read its v2/, one not signed by the pinned root): the caller reads v1/.
   */
  private async fetchV2(options: { signal?: AbortSignal }): Promise<LoadedCatalogue | null> {
    const base = this.v2Url;
    if (base === null) return null;
    const before = await this.store.readState();
    const context = fetchContext(base, this.fetchImpl, options.signal);
    let bytes: Buffer;
    try {
      bytes = await fetchCapped(resolveUrl(base, 'catalog.json'), {
        maxBytes: MAX_TOP_LEVEL_BYTES,
        fetch: this.fetchImpl,
        signal: options.signal,
      });
    } catch (error) {
      if (before?.layout !== 'v2' && meansNoV2(error)) return null;
      throw error;
    }
    context.downloaded += bytes.length;
    return withLock(join(this.home, 'locks', `remote-${this.name}.lock`), `remote update ${this.name}`, async () => {
      const state = await this.store.readState();
      const onV2 = state?.layout === 'v2';
      let verified;
      try {
        verified = verifyTopLevel(bytes, this.remote.rootKeys, {
          ...(state === null ? await this.floor() : floorOf(state)),
          ...this.policy(),
          sameLayout: onV2,
        });
      } catch (error) {
        if (!onV2 && isAdcapError(error, 'E_CATALOG')) return null;
        throw error;
      }
      // The stored snapshot is only the base the changed pins are compared with (every file is
      // checked against its pin again): one below the shipped minimum still serves.
      const previous = onV2 ? await this.storedV2(undefined, { belowMinimum: true }).catch(() => null) : null;
      const { snapshot, keep, index } = await syncSnapshot(
        this.v2Store,
        this.indexStore,
        verified.payload,
        previous?.snapshot ?? null,
        context,
      );
      const changed = !onV2 || state?.payloadSha256 !== verified.payloadSha256;
      const checkedAt = this.now().toISOString();
      // The top level last: a failure before this line leaves the previous snapshot whole.
      await this.v2Store.writeTopLevel(bytes).catch((error: unknown) => {
        throw asAdcapError(error, `Cannot store the catalogue in ${this.v2Store.dir}`);
      });
      await this.saveTopLevelVerification(verified);
      await this.store.save(null, {
        sequence: verified.payload.sequence,
        payloadSha256: verified.payloadSha256,
        catalogueSha256: verified.catalogueSha256,
        checkedAt,
        layout: 'v2',
      });
      await this.v2Store.prune(keep);
      this.loaded = this.v2Loaded(verified, snapshot, index, { checkedAt, changed, downloadedBytes: context.downloaded });
      return this.loaded;
    });
  }

  /**
   * The stored v2 top level, verified again under the pinned keys and the floor, with its nodes and
   * publishers; null when any file is missing or damaged.
   */
  private async storedV2(
    state?: RemoteState,
    options: { belowMinimum?: boolean } = {},
  ): Promise<{ verified: ReturnType<typeof verifyTopLevel>; snapshot: V2Snapshot } | null> {
    const [bytes, record] = await Promise.all([
      this.v2Store.readTopLevel(),
      this.store.readVerification(this.store.topLevelVerificationPath),
    ]);
    if (bytes === null) return null;
    const floor = state === undefined ? {} : floorOf(state);
    // The signature of the very bytes a full check accepted under the same keys is not checked
    // again (v2-verified.json, keyed by their SHA-256); any difference means the full check.
    const verified = verifyTopLevel(bytes, this.remote.rootKeys, {
      ...floor,
      ...(this.remote.minSequence === undefined || options.belowMinimum === true ? {} : { minSequence: this.remote.minSequence }),
      ...(record === null ? {} : { verifiedBefore: record }),
      maxAgeMs: Number.MAX_SAFE_INTEGER,
      now: this.now(),
      sameLayout: true,
    });
    if (
      record === null ||
      record.catalogueSha256 !== verified.catalogueSha256 ||
      record.rootKeys !== rootKeysDigest(this.remote.rootKeys)
    ) {
      await this.saveTopLevelVerification(verified);
    }
    const snapshot = await loadSnapshot(this.v2Store, verified.payload);
    return snapshot === null ? null : { verified, snapshot };
  }

  private v2Loaded(
    verified: ReturnType<typeof verifyTopLevel>,
    snapshot: V2Snapshot,
    index: DiskSearchIndex | null,
    meta: { checkedAt: string; changed: boolean; downloadedBytes: number },
  ): LoadedCatalogue {
    const payload: CataloguePayload = {
      registry: verified.payload.registry,
      spec: 2,
      sequence: verified.payload.sequence,
      generatedAt: verified.payload.generatedAt,
      publishers: snapshot.publishers,
      capabilities: {},
    };
    this.v2State.set(payload, { snapshot, index: index === null ? null : Promise.resolve(index), listed: new Map() });
    return {
      payload,
      signedBy: verified.signedBy,
      payloadSha256: verified.payloadSha256,
      catalogueSha256: verified.catalogueSha256,
      remote: this.name,
      layout: 'v2',
      // The top level's signed count; the index, built from the same nodes, holds as many.
      capabilityCount: index?.size ?? verified.payload.capabilities,
      ...meta,
    };
  }

  /** Whether this remote's stored catalogue lists `id` (offline; over v2 from the search records). */
  async lists(id: string): Promise<boolean> {
    const catalogue = await this.catalogue({ refresh: 'never' }).catch(() => null);
    if (catalogue === null) return false;
    if (catalogue.layout === 'v1') return Object.hasOwn(catalogue.payload.capabilities, id);
    const v2 = this.v2State.get(catalogue.payload);
    return v2 !== undefined && (await this.v2Lists(v2, id));
  }

  /**
   * The catalogue record of `id` (its search metadata and the pin of its package document), or
   * null when this remote does not list it. Over v2 it comes from the capability's bin, read from
   * the home or downloaded and checked against its pin; with `refresh: 'never'` nothing is
   * downloaded (null when the bin is not at hand).
   */
  async record(
    id: string,
    options: { refresh?: 'auto' | 'always' | 'never'; rereadLocal?: boolean } = {},
  ): Promise<CatalogueCapability | null> {
    parseCapabilityId(id);
    const catalogue = await this.catalogue(options);
    const { payload } = catalogue;
    if (catalogue.layout === 'v1')
      return Object.hasOwn(payload.capabilities, id) ? (payload.capabilities[id] as CatalogueCapability) : null;
    const v2 = this.v2State.get(payload);
    if (v2 === undefined) return null;
    // The capability's bin, when stored (an installed capability's is), answers without the index.
    const stored = await storedBinRecord(this.v2Store, v2.snapshot, id);
    if (stored !== undefined) return stored;
    if (!(await this.v2Lists(v2, id))) return null;
    const offline = options.refresh === 'never';
    try {
      return await snapshotRecord(this.v2Store, v2.snapshot, id, offline ? null : fetchContext(this.v2Url as string, this.fetchImpl));
    } catch (error) {
      // A bin of an old snapshot may have been collected on the server after its grace period:
      // read the current top level once and look again.
      if (offline || !isAdcapError(error, 'E_DOWNLOAD')) throw error;
      const fresh = await this.update();
      const state = this.v2State.get(fresh.payload);
      if (state === undefined) return this.record(id, { refresh: 'never' });
      return snapshotRecord(this.v2Store, state.snapshot, id, fetchContext(this.v2Url as string, this.fetchImpl));
    }
  }

  /**
   * The last verified catalogue. `refresh: 'auto'` (default) updates first when none is stored or
   * it was last checked over `refreshAfterMs` ago; `'never'` works offline; `'always'` is update().
   * A stored catalogue is verified again on load (pinned keys, floor, freshness), so a tampered
   * file under home/ is refused like a tampered download. `rereadLocal` (search and the lookup
   * before an install): a registry on this computer whose catalogue file changed since it was
   * read is read again at once, and when that fails the stored copy answers, as before the change
   * (`remote update` and the refresh interval report the failure).
   */
  async catalogue(options: { refresh?: 'auto' | 'always' | 'never'; rereadLocal?: boolean } = {}): Promise<LoadedCatalogue> {
    const mode = options.refresh ?? 'auto';
    if (mode === 'always') return this.update();
    // Callers at the same moment (the app's index warm-up and a card's risk) share one load and check.
    const found =
      this.loaded === null
        ? await (this.loadingStored ??= this.loadStoredAboveMinimum().finally(() => (this.loadingStored = null)))
        : { stored: this.loaded, belowMinimum: false };
    const stored = found.stored;
    if ((stored === null || found.belowMinimum) && mode === 'never' && this.localCatalogueFile() !== null) {
      // None stored, or out of date: reading a registry folder on this computer needs no network.
      return this.update();
    }
    const due = stored === null || this.now().getTime() - Date.parse(stored.checkedAt) > this.refreshAfterMs;
    if (mode === 'auto' && !due && stored !== null && options.rereadLocal === true && (await this.localCatalogueChanged(stored))) {
      try {
        return await this.update();
      } catch (error) {
        if (!isAdcapError(error)) throw error;
      }
    }
    if (mode === 'auto' && due) {
      try {
        return await this.update();
      } catch (error) {
        // Offline use: only a failed download falls back to the stored copy. A refused catalogue
        // (E_CATALOG, E_ROLLBACK, E_STALE) is an attack or a broken registry and is reported.
        if (stored === null || !isAdcapError(error, 'E_DOWNLOAD')) throw error;
      }
    }
    if (stored === null) {
      throw reasonError('remote-never-read', { remote: this.name });
    }
    checkCatalogueFreshness(stored.payload, this.policy());
    this.loaded = stored;
    return stored;
  }

  /**
   * Search this remote's catalogue through its stored search index (docs/scaling.md "Cold start
   * and offline search"): a new process reads the index instead of parsing every record.
   */
  async search(query: string, filters: SearchFilters = {}): Promise<SearchHit[]> {
    return this.withSearch((index) => index.search(query, filters));
  }

  /**
   * The ids of every hit of search(query, filters) without its limit, in no particular order,
   * without making the hits (`adcap search` prints a page and how many more there are).
   * @internal
   */
  async searchIds(query: string, filters: SearchFilters = {}): Promise<string[]> {
    return this.withSearch((index) => index.matchIds(query, filters));
  }

  private async withSearch<T>(use: (index: Pick<SearchSource, 'search' | 'matchIds'>) => T): Promise<T> {
    try {
      return use(await this.searchSource());
    } catch (error) {
      // A held segment whose file changed or turned out damaged while read (another process
      // rebuilt or pruned the index, or the disk): forget what this client holds, and read and
      // check the index again (rebuilt from verified data when it does not pass), once.
      if (!isAdcapError(error, 'E_CATALOG') || error.details['reason'] !== 'search-index-damaged') throw error;
      this.v1Index = null;
      this.index = null;
      this.loaded = null;
      return use(await this.searchSource());
    }
  }

  private async searchSource(): Promise<Pick<SearchSource, 'search' | 'matchIds'>> {
    const stored = this.loaded === null ? await this.storedV1Index() : null;
    if (stored !== null) return stored;
    const catalogue = await this.catalogue({ rereadLocal: true });
    if (
      catalogue.layout === 'v1' &&
      catalogue.catalogueSha256 !== undefined &&
      this.v1Index?.catalogueSha256 !== catalogue.catalogueSha256
    ) {
      const sha = catalogue.catalogueSha256;
      const opened = await openStoredIndex(this.indexStore, (m) => m.source.layout === 'v1' && m.source.catalogueSha256 === sha);
      if (opened !== null) this.v1Index = { catalogueSha256: sha, index: opened };
      else await this.storeV1Index(catalogue).catch(() => undefined);
    }
    return this.searchIndex(catalogue);
  }

  /**
   * The search index of a layout-1 catalogue this client verified, built and stored once per
   * catalogue file (keyed by its SHA-256).
   */
  private async storeV1Index(verified: VerifiedCatalogue): Promise<void> {
    const sha = verified.catalogueSha256;
    if (sha === undefined) return;
    const index = await writeV1Index(this.indexStore, verified.payload, sha);
    this.v1Index = { catalogueSha256: sha, index };
  }

  /**
   * The stored index of the stored layout-1 catalogue, used without loading the catalogue when
   * everything it was built from still holds: the catalogue is not due for a refresh and not
   * below the shipped minimum, the catalogue file still holds the bytes a full verification
   * accepted under today's root keys (verified.json; hashed, or by its stat stamp when that is the
   * one it had when last hashed: RemoteStore.catalogueHolds), and the index was built from those bytes;
   * for a registry on this computer, its catalogue file is still those bytes too.
   * Anything else (null) takes the full path: load and verify, refresh, rebuild the index.
   */
  private async storedV1Index(): Promise<DiskSearchIndex | null> {
    const [state, record] = await Promise.all([this.store.readState(), this.store.readVerification()]);
    const sha = state?.catalogueSha256;
    if (state === null || state.layout === 'v2' || sha === undefined) return null;
    if (this.now().getTime() - Date.parse(state.checkedAt) > this.refreshAfterMs) return null;
    if (this.remote.minSequence !== undefined && state.sequence < this.remote.minSequence) return null;
    if (record === null || record.catalogueSha256 !== sha || record.rootKeys !== rootKeysDigest(this.remote.rootKeys)) return null;
    if (!(await this.store.catalogueHolds(sha))) return null;
    // A registry on this computer is read again as soon as its catalogue file changed (rereadLocal).
    const local = this.localCatalogueFile();
    if (local !== null && (await hashFile(local).catch(() => null))?.sha256 !== sha) return null;
    let index = this.v1Index?.catalogueSha256 === sha ? this.v1Index.index : null;
    if (index === null) {
      index = await openStoredIndex(this.indexStore, (m) => m.source.layout === 'v1' && m.source.catalogueSha256 === sha);
      if (index === null) return null;
      this.v1Index = { catalogueSha256: sha, index };
    }
    const source = index.manifest.source;
    if (source.layout === 'v1') checkCatalogueFreshness({ generatedAt: source.generatedAt }, this.policy());
    return index;
  }

  /**
   * Every capability of the stored layout-1 catalogue as search sees it, with each publisher's
   * display name and whether it has an active key, read from the stored search index without
   * loading the catalogue (docs/ui.md "Fast": Discover's first cards). Only when everything
   * storedV1Index checks holds (the catalogue is not due for a refresh nor below the shipped
   * minimum, its file still hashes to the bytes a full verification accepted under today's root
   * keys, the index was built from those bytes and its segments hash to their names) and the same
   * verification's record lists the publishers with an active key. Anything else is null: the
   * caller loads the catalogue (`catalogue()`), which checks it in full.
   * @internal For the Arcotheon app's Discover screen (electron/host); hosts use search().
   */
  async storedListing(): Promise<StoredListing | null> {
    const index = await this.storedV1Index();
    const source = index?.manifest.source;
    if (index === null || source?.layout !== 'v1') return null;
    const record = await this.store.readVerification();
    if (
      record === null ||
      record.catalogueSha256 !== source.catalogueSha256 ||
      record.rootKeys !== rootKeysDigest(this.remote.rootKeys) ||
      record.activePublishers === undefined
    )
      return null;
    const active = new Set(record.activePublishers);
    const publishers = new Map<string, { name: string; verified: boolean }>();
    for (const segment of index.segments)
      for (const p of segment.publishers()) publishers.set(p.id, { name: p.name, verified: active.has(p.id) });
    return { catalogueSha256: source.catalogueSha256, publishers, entries: () => index.entries() };
  }

  /**
   * Whether a v2 snapshot lists `id` (it can only be in the index segment of its bin's node): from
   * the open index, else from that one stored segment (storedSegmentLists), else from the whole
   * index, opened (and made again where needed) for it.
   */
  private async v2Lists(v2: V2Held, id: string): Promise<boolean> {
    if (v2.index === null) {
      const known = v2.listed.get(id);
      if (known !== undefined) return known;
      const listed = await storedSegmentLists(this.indexStore, v2.snapshot, id);
      if (listed !== null) {
        if (v2.listed.size < MAX_LISTED) v2.listed.set(id, listed);
        return listed;
      }
    }
    const index = await this.v2Index(v2);
    const fanout = v2.snapshot.top.fanout;
    return index.has(id, index.segmentOfNode(Math.floor(binOf(id, fanout * fanout) / fanout)));
  }

  /**
   * The search index of a stored v2 snapshot, opened on first use (syncIndex: the stored segments
   * built from its nodes, each checked; any other made again from the registry's files, downloaded
   * and checked against their pins). Loading the catalogue does not open it: a run's revocation
   * check, `list` and an install's lookup read one segment or one bin, not the whole index.
   */
  private v2Index(v2: V2Held): Promise<DiskSearchIndex> {
    if (v2.index === null) {
      const context = this.v2Url === null ? null : fetchContext(this.v2Url, this.fetchImpl);
      const opening = syncIndex(this.v2Store, this.indexStore, v2.snapshot, null, context);
      v2.index = opening;
      // A failed open is tried again by the next caller, not remembered.
      opening.catch(() => {
        if (v2.index === opening) v2.index = null;
      });
    }
    return v2.index;
  }

  /**
   * The search index of a verified catalogue, built once per catalogue content.
   * @internal For the Arcotheon app's Discover screen (electron/host); hosts use search().
   */
  async searchIndex(catalogue: VerifiedCatalogue): Promise<SearchIndex> {
    if (this.index === null || this.index.payload !== catalogue.payload) {
      const v2 = this.v2State.get(catalogue.payload);
      // Over v2 the stored index answers (its records carry no document pin: search reads none,
      // the pin is looked up in the capability's bin when it is opened); over v1 the stored index
      // of this very catalogue file when there is one, else an index built in memory.
      const stored =
        v2 !== undefined
          ? await this.v2Index(v2)
          : this.v1Index !== null && this.v1Index.catalogueSha256 === catalogue.catalogueSha256
            ? this.v1Index.index
            : undefined;
      if (this.index !== null && this.index.payload === catalogue.payload) return this.index.index;
      this.index = {
        payload: catalogue.payload,
        index:
          stored !== undefined ? SearchIndex.over(stored) : new SearchIndex(catalogue.payload.capabilities, catalogue.payload.publishers),
      };
    }
    return this.index.index;
  }

  /** The catalogue record of one capability; E_NOT_FOUND when this remote does not list it. */
  async capability(id: string): Promise<CatalogueCapability> {
    return (await this.catalogueRecord(id)).capability;
  }

  private async catalogueRecord(id: string): Promise<{ capability: CatalogueCapability; generatedAt: string; base: string }> {
    const found = await this.record(id);
    const catalogue = await this.catalogue({ refresh: 'never' });
    if (found === null)
      throw new AdcapError('E_NOT_FOUND', `Remote "${this.name}" has no capability ${id}; search for it with "adcap search".`);
    // Over v2 a document's path (docs/<sha256>.json) is relative to v2/; archive URLs stay relative to v1/.
    const base = catalogue.layout === 'v2' ? (this.v2Url as string) : this.baseUrl;
    return { capability: found, generatedAt: catalogue.payload.generatedAt, base };
  }

  /**
   * spec §13: the package document, checked against the SHA-256 pinned by the signed catalogue;
   * what its entries leave out that spec §13 does not name comes from the catalogue's record.
   */
  async packageDoc(id: string, options: { signal?: AbortSignal } = {}): Promise<PackageDocument> {
    const { capability, generatedAt, base } = await this.catalogueRecord(id);
    const fallbacks = catalogueFallbacks(capability, generatedAt);
    const pin = capability.doc;
    const cached = await this.store.readDocument(pin.sha256);
    if (cached !== null) return parsePackageDocument(cached, id, fallbacks);
    const bytes = await fetchCapped(resolveUrl(base, pin.path), {
      maxBytes: this.maxDocumentBytes,
      fetch: this.fetchImpl,
      signal: options.signal,
    });
    checkDocumentPin(bytes, pin, id);
    const doc = parsePackageDocument(bytes, id, fallbacks);
    await this.store.writeDocument(pin.sha256, bytes);
    return doc;
  }

  /**
   * spec §13 archive download: mirrors in order (relative URLs against v1/), at most the pinned
   * size from each, SHA-256 and size checked before the blob is kept (the content cache does
   * that); then spec §5: the publisher signature under the publisher's keys from the signed
   * catalogue, revoked keys refused; and the archive must be the one the entry describes.
   * Entitled archives go through the host's authorize callback (spec §12, E_ENTITLEMENT).
   */
  async downloadArchive(id: string, version: string, options: DownloadOptions): Promise<DownloadedArchive> {
    const { payload } = await this.catalogue();
    const doc = await this.packageDoc(id, { signal: options.signal });
    const entry = selectVersion(doc, id, version);
    // The authoriser is asked only about this registry's own URLs.
    const authorize = entitlementFor(entry, options.authorize, this.baseUrl);
    const fetchArchive = (): Promise<string> =>
      options.cache.fetchBlob({
        sha256: entry.archive.sha256,
        size: entry.archive.size,
        sources: entry.archive.urls.map((url) => resolveUrl(this.baseUrl, url)),
        ...(authorize === undefined ? {} : { authorize }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        what: `${id}@${version}`,
        // A cached archive is not hashed twice: verifyPackage hashes every byte it reads, and the
        // archive's SHA-256 is compared with the pin below.
        readerHashes: true,
      });
    const { publisher } = parseCapabilityId(id);
    const verifyArchive = async (file: string): Promise<VerifiedPackage> => {
      const read = await verifyPackage(file, { trusted: publisherTrustedKeys(payload, publisher), requireSignature: true });
      if (read.archiveSha256 !== entry.archive.sha256) {
        throw new AdcapError(
          'E_HASH',
          `The archive of ${id}@${version} hashes to ${read.archiveSha256}, ` +
            `not its pin ${entry.archive.sha256}; it was damaged or replaced.`,
          {
            details: { id, version, expected: entry.archive.sha256, actual: read.archiveSha256 },
          },
        );
      }
      return read;
    };
    let path = await fetchArchive();
    let verified: VerifiedPackage;
    try {
      verified = await verifyArchive(path);
    } catch (error) {
      // The cached copy was checked by size only: when it turns out damaged on disk, it was
      // removed by verifyEntry and is downloaded again, once; anything else stands.
      if (!(await damagedInCache(options.cache, entry.archive.sha256))) throw error;
      path = await fetchArchive();
      verified = await verifyArchive(path);
    }
    checkArchiveMatchesEntry(verified, entry);
    return { path, id, version, entry, manifest: verified.manifest, manifestSha256: verified.manifestSha256, signedBy: verified.signedBy };
  }

  /**
   * downloadArchive and extraction in one read of the archive: the pin (SHA-256,
   * size), every spec §2-§4 rule, the spec §5 signature under the publisher's keys from the signed
   * catalogue and the registry entry's manifest are all checked in the pass that extracts, and
   * `extractTo` is removed again unless all of them (and the caller's `accept`) passed. A local mirror is
   * cloned into the cache and read once (ContentCache.withBlob); the cache keeps it only if it was
   * the pinned archive.
   */
  async downloadAndExtract(id: string, version: string, options: ExtractOptions): Promise<DownloadedArchive> {
    const { payload } = await this.catalogue();
    const doc = await this.packageDoc(id, { signal: options.signal });
    const entry = selectVersion(doc, id, version);
    const authorize = entitlementFor(entry, options.authorize, this.baseUrl);
    const { publisher } = parseCapabilityId(id);
    const pin = { sha256: entry.archive.sha256, size: entry.archive.size };
    const verified = await options.cache.withBlob(
      {
        ...pin,
        sources: entry.archive.urls.map((url) => resolveUrl(this.baseUrl, url)),
        ...(authorize === undefined ? {} : { authorize }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        what: `${id}@${version}`,
      },
      (blob) =>
        // One staging directory: extracted straight into the caller's new directory, every check
        // (archive, signature, registry entry, the caller's) run before it is handed back.
        verifyPackage(blob, {
          trusted: publisherTrustedKeys(payload, publisher),
          requireSignature: true,
          extractInto: options.extractTo,
          expectArchive: pin,
          accept: async (result, dir) => {
            checkArchiveMatchesEntry(result, entry);
            await options.accept?.(result, dir);
          },
          ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
          ...(options.limits === undefined ? {} : { limits: options.limits }),
          ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        }),
    );
    return {
      path: options.cache.pathFor(pin.sha256),
      id,
      version,
      entry,
      manifest: verified.manifest,
      manifestSha256: verified.manifestSha256,
      signedBy: verified.signedBy,
    };
  }

  /** Versions of a document, newest first (for `show`). */
  static versionsNewestFirst(doc: PackageDocument): DocumentVersion[] {
    return Object.keys(doc.versions)
      .sort((a, b) => compareVersions(b, a))
      .map((version) => doc.versions[version] as DocumentVersion);
  }

  /** Keeps what a full verification of the stored bytes found, for the next load of the same bytes. */
  /** Records a full verification of the stored v2 top level (a cache: a failure only costs a full check). */
  private async saveTopLevelVerification(verified: VerifiedTopLevel): Promise<void> {
    await this.store.saveVerification(topLevelVerificationRecord(verified, this.remote.rootKeys), this.store.topLevelVerificationPath);
  }

  private async saveVerification(verified: VerifiedCatalogue): Promise<void> {
    const record = catalogueVerificationRecord(verified, this.remote.rootKeys);
    if (record !== null) await this.store.saveVerification(record);
  }

  private policy(): { maxAgeMs?: number; now: Date; minSequence?: number } {
    const policy: { maxAgeMs?: number; now: Date; minSequence?: number } = { now: this.now() };
    // The remote's own setting wins over the client's default; null means no age limit (a
    // registry bundled on local disk, DESIGN §10), and minSequence still guards against rollback.
    const perRemote = this.remote.maxCatalogAgeMs;
    if (perRemote === null) policy.maxAgeMs = Number.MAX_SAFE_INTEGER;
    else if (perRemote !== undefined) policy.maxAgeMs = perRemote;
    else if (this.maxCatalogAgeMs !== undefined) policy.maxAgeMs = this.maxCatalogAgeMs;
    if (this.remote.minSequence !== undefined) policy.minSequence = this.remote.minSequence;
    return policy;
  }

  /** The rollback floor: state.json, else (damaged state) whatever the stored catalogue says. */
  private async floor(): Promise<{ sequence?: number; payloadSha256?: string; catalogueSha256?: string }> {
    const state = await this.store.readState();
    if (state !== null) return floorOf(state);
    const bytes = await this.store.readCatalogue();
    if (bytes === null) return {};
    try {
      const verified = verifyCatalogue(bytes, this.remote.rootKeys, { maxAgeMs: Number.MAX_SAFE_INTEGER });
      return { sequence: verified.payload.sequence, payloadSha256: verified.payloadSha256 };
    } catch {
      return {};
    }
  }

  /**
   * The stored catalogue, or null when there is none or it is older than the minimum this app
   * shipped with: the app moved forward (a newer build of its bundled registry), so the stored copy
   * is only out of date and the registry is read again; whatever it serves is checked as always.
   */
  private async loadStoredAboveMinimum(): Promise<{ stored: LoadedCatalogue | null; belowMinimum: boolean }> {
    try {
      return { stored: await this.loadStored(), belowMinimum: false };
    } catch (error) {
      if (isAdcapError(error, 'E_ROLLBACK') && error.details['belowShippedMinimum'] === true) return { stored: null, belowMinimum: true };
      throw error;
    }
  }

  /** Whether the stored catalogue is older than the minimum this app shipped with (`doctor`). */
  async storedBelowShippedMinimum(): Promise<{ sequence: number; minSequence: number } | null> {
    try {
      await this.loadStored();
      return null;
    } catch (error) {
      if (isAdcapError(error, 'E_ROLLBACK') && error.details['belowShippedMinimum'] === true) {
        return error.details as { sequence: number; minSequence: number };
      }
      return null;
    }
  }

  private async loadStored(): Promise<LoadedCatalogue | null> {
    const layoutState = await this.store.readState();
    if (layoutState?.layout === 'v2' && this.v2Url !== null) {
      const stored = await this.storedV2(layoutState);
      if (stored === null) return null;
      // The search index is opened when first needed (v2Index), not here.
      return this.v2Loaded(stored.verified, stored.snapshot, null, {
        checkedAt: layoutState.checkedAt,
        changed: false,
        downloadedBytes: 0,
      });
    }
    const [bytes, state, record] = await Promise.all([this.store.readCatalogue(), this.store.readState(), this.store.readVerification()]);
    if (bytes === null) return null;
    // Signature, shape and floor here; freshness is checked by the caller after a refresh attempt.
    // The signature of the very bytes a full check accepted under the same keys is not checked
    // again (verified.json, keyed by their SHA-256); any difference means the full check.
    const verified = verifyCatalogue(bytes, this.remote.rootKeys, {
      ...(state === null ? {} : floorOf(state)),
      ...(this.remote.minSequence === undefined ? {} : { minSequence: this.remote.minSequence }),
      ...(record === null ? {} : { verifiedBefore: record }),
      maxAgeMs: Number.MAX_SAFE_INTEGER,
      now: this.now(),
    });
    if (
      record === null ||
      record.catalogueSha256 !== verified.catalogueSha256 ||
      record.rootKeys !== rootKeysDigest(this.remote.rootKeys) ||
      record.activePublishers === undefined
    ) {
      await this.saveVerification(verified);
    }
    return loadedCatalogue(verified, {
      remote: this.name,
      checkedAt: state?.checkedAt ?? new Date(0).toISOString(),
      changed: false,
      downloadedBytes: 0,
    });
  }
}

function floorOf(state: RemoteState): { sequence: number; payloadSha256: string; catalogueSha256?: string } {
  return {
    sequence: state.sequence,
    payloadSha256: state.payloadSha256,
    ...(state.catalogueSha256 === undefined ? {} : { catalogueSha256: state.catalogueSha256 }),
  };
}

/** Adds where-from fields without forcing the lazy payload digest (a spread would compute it). */
/** An error's details when they are plain JSON (a status record is written to disk). */
function plainDetails(details: Readonly<Record<string, unknown>>): { details?: Record<string, unknown> } {
  if (Object.keys(details).length === 0) return {};
  try {
    return { details: JSON.parse(JSON.stringify(details)) as Record<string, unknown> };
  } catch {
    return {};
  }
}

function loadedCatalogue(
  verified: VerifiedCatalogue,
  meta: { remote: string; checkedAt: string; changed: boolean; downloadedBytes: number },
): LoadedCatalogue {
  const loaded: LoadedCatalogue = {
    payload: verified.payload,
    signedBy: verified.signedBy,
    get payloadSha256() {
      return verified.payloadSha256;
    },
    layout: 'v1',
    capabilityCount: Object.keys(verified.payload.capabilities).length,
    ...meta,
  };
  if (verified.catalogueSha256 !== undefined) loaded.catalogueSha256 = verified.catalogueSha256;
  return loaded;
}

/** A version of the document that may be downloaded: present, and not revoked (spec §13). */
function selectVersion(doc: PackageDocument, id: string, version: string): DocumentVersion {
  const entry = Object.hasOwn(doc.versions, version) ? doc.versions[version] : undefined;
  if (entry === undefined) {
    throw new AdcapError('E_NOT_FOUND', `${id} has no version ${version}; "adcap show ${id}" lists the published versions.`);
  }
  if (entry.status === 'revoked') {
    throw new AdcapError(
      'E_REVOKED',
      `${id}@${version} was revoked by the registry (${entry.statusReason ?? 'no reason given'}); ` +
        'it must never be installed or run, choose another version.',
      { details: { id, version } },
    );
  }
  return entry;
}

/** spec §12: an entitled archive needs the host's authoriser; without one it is E_ENTITLEMENT. */
function entitlementFor(entry: DocumentVersion, authorize: AuthorizeFn | undefined, registry: string): Authorization | undefined {
  if (entry.access !== 'entitled') return undefined;
  const request = {
    kind: 'package' as const,
    id: entry.id,
    version: entry.version,
    ...(entry.entitlement === undefined ? {} : { entitlement: entry.entitlement }),
  };
  if (authorize === undefined) {
    throw reasonError('entitlement-without-authorizer', { id: entry.id, version: entry.version, what: `${entry.id}@${entry.version}` });
  }
  return { fn: authorize, request, registry };
}

/** The verified archive must be the one the signed entry describes (identity is content, spec §4). */
/** Re-hashes a cached archive that failed to verify; true when it was damaged (and so removed). */
async function damagedInCache(cache: BlobFetcher, sha256: string): Promise<boolean> {
  if (cache.verifyEntry === undefined) return false;
  const result = await cache.verifyEntry(sha256).catch(() => null);
  return result?.state === 'corrupt';
}

function checkArchiveMatchesEntry(verified: { manifest: Manifest; manifestSha256: string }, entry: DocumentVersion): void {
  if (
    verified.manifestSha256 !== entry.manifestSha256 ||
    verified.manifest.id !== entry.id ||
    verified.manifest.version !== entry.version
  ) {
    throw new AdcapError(
      'E_HASH',
      `The archive for ${entry.id}@${entry.version} holds ` +
        `${verified.manifest.id}@${verified.manifest.version} with manifest ` +
        `${verified.manifestSha256}, not the manifest ${entry.manifestSha256} ` +
        'the registry entry names; the registry is inconsistent.',
      { details: { id: entry.id, version: entry.version } },
    );
  }
}
