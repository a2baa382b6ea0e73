/**
 * What the Discover screen learns of capabilities beyond their catalogue records (their contents
 * and dates, from package documents read in the background; catalogue-index.ts sends them to the
 * page, which searches and counts facets itself), and the capability page: everything known about
 * one capability (every version with its marks, permissions in plain language, its overall risk
 * with its dependencies', and, from installed files or an archive already verified into the cache,
 * its tools, skills, workflows and readme). Metadata only: nothing is installed here, and the capability page is
 * drawn from the catalogue and the package document without downloading the archive (docs/ui.md
 * "Nothing blocks"); the archive is fetched when the user installs, or asks for its contents.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import {
  AdcapError,
  checkCompatibility,
  isAdcapError,
  readPackage,
  type Arcotheon,
  type PackageDocument,
  type RegistryClient,
} from '@arcotheon/sdk';
import { hostStore, type HostStore, type RiskPart } from '@arcotheon/sdk/internal';
import type { CapabilityDetail, PackageContentsView, RiskVerdict, VersionView } from '../common/types.js';
import { installRisk, liveSources } from './card-risk.js';
import type { Installed } from './installed.js';
import { packageContents, permissionView } from './views.js';

/** What a package document says of a capability's newest version: its contents and when it was published. */
type Contents = { tools: number; skills: number; workflows: number; updatedAt: string | null };

/** Package documents read in the background to learn what each capability contains. */
const MAX_PREFETCH = 2000;
const PREFETCH_CONCURRENCY = 4;
/** Archives larger than this are not downloaded just to show the capability page. */
const MAX_DETAIL_DOWNLOAD = 32 * 1024 * 1024;

export class Catalogue {
  private readonly contents = new Map<string, Contents>();
  private readonly packages = new Map<string, PackageContentsView>();
  /** Ids whose package document could not be read (skipped until the catalogue changes). */
  private readonly unreadable = new Set<string>();
  private prefetching: Promise<void> | null = null;
  private closed = false;

  private readonly store: HostStore;

  constructor(
    private readonly arc: Arcotheon,
    private readonly installed: Installed,
    private readonly changed: () => void,
  ) {
    this.store = hostStore(arc);
  }

  /** The interpreter probe once started (it may write home/runtimes-probe.json); close() waits for it. */
  private probing: Promise<unknown> | null = null;

  /**
   * The capability page's compatibility check needs the interpreters' versions, a probe of
   * `node --version` and `python3 --version` (seconds on a loaded machine, once per process):
   * started once Discover's index is built (catalogue-index.ts), so that it neither delays
   * Discover's first cards nor makes the first capability page opened wait for it.
   */
  probeHost(): void {
    if (this.probing !== null || this.closed) return;
    this.probing = this.arc.hostEnvironment().catch(() => undefined);
  }

  invalidate(): void {
    this.unreadable.clear();
  }

  /** Stops background work; resolves once the probe it started, if any, has finished writing. */
  async close(): Promise<void> {
    this.closed = true;
    await this.probing;
  }

  /** Reads package documents (cached by the registry client, pinned by the catalogue) to learn contents. */
  private startPrefetch(ids: string[]): void {
    if (this.prefetching !== null) return;
    const todo = ids.filter((id) => !this.contents.has(id) && !this.unreadable.has(id)).slice(0, MAX_PREFETCH);
    if (todo.length === 0) return;
    this.prefetching = (async () => {
      let learned = 0;
      const worker = async (): Promise<void> => {
        while (todo.length > 0 && !this.closed) {
          const id = todo.shift() as string;
          const located = await this.store.locate(id).catch(() => null);
          if (located === null) {
            this.unreadable.add(id);
            continue;
          }
          this.learn(located.doc);
          learned++;
        }
      };
      await Promise.all(Array.from({ length: PREFETCH_CONCURRENCY }, worker));
      this.prefetching = null;
      if (learned > 0 && !this.closed) this.changed();
    })();
  }

  private learn(doc: PackageDocument): void {
    const versions = Object.values(doc.versions).filter((v) => v.status !== 'revoked');
    const newest = versions.map((v) => v.version).sort(semver.rcompare)[0];
    const entry = newest === undefined ? undefined : doc.versions[newest];
    if (entry !== undefined)
      this.contents.set(doc.id, {
        tools: entry.contents.tools.length,
        skills: entry.contents.skills.length,
        workflows: entry.contents.workflows.length,
        updatedAt: entry.publishedAt,
      });
  }

  /** What the package documents read so far say, by id (catalogue-index.ts sends it to the page). */
  knownContents(): ReadonlyMap<string, Contents> {
    return this.contents;
  }

  /** Reads the package documents of `ids` in the background (at most 2,000; catalogue-changed when done). */
  readDocuments(ids: string[]): void {
    this.startPrefetch(ids);
  }

  async detail(id: string, options: { version?: string; download?: boolean }): Promise<CapabilityDetail> {
    const located = await this.store.locate(id);
    if (located === null)
      throw new AdcapError(
        'E_NOT_FOUND',
        `No configured registry has ${id}; check the id, or add the registry that publishes it in Settings.`,
      );
    this.learn(located.doc);
    const { payload } = await located.client.catalogue();
    // The catalogue's record (latest, latestPrerelease) by id: over a v2 registry the payload lists no
    // capabilities, so the client's record lookup answers (the same over v1).
    const listed = await located.client.capability(id).catch(() => undefined);
    const publisherId = id.split('/')[0] as string;
    const publisher = Object.hasOwn(payload.publishers, publisherId) ? payload.publishers[publisherId] : undefined;
    const doc = located.doc;
    const deprecated = doc.deprecated?.message ?? null;
    const all = Object.values(doc.versions).sort((a, b) => semver.rcompare(a.version, b.version));
    const state = await this.store.state(id).catch(() => null);
    const latest = listed?.latest ?? listed?.latestPrerelease ?? all.find((v) => v.status === undefined)?.version ?? all[0]?.version;
    const version = options.version ?? latest;
    const entry = version === undefined ? undefined : doc.versions[version];
    if (version === undefined || entry === undefined)
      throw new AdcapError('E_NOT_FOUND', `${id} has no version ${options.version ?? ''} in registry "${located.remote}".`);

    const versions: VersionView[] = all.map((v) => ({
      version: v.version,
      publishedAt: v.publishedAt,
      prerelease: semver.prerelease(v.version) !== null,
      yanked: v.status === 'yanked' ? (v.statusReason ?? 'yanked') : null,
      revoked: v.status === 'revoked' ? (v.statusReason ?? 'revoked') : null,
      deprecated,
      changelog: v.changelog ?? null,
      archiveSize: v.archive.size,
      installed: state !== null && (state.active === v.version || state.history.includes(v.version)),
      latest: v.version === latest,
    }));
    const host = await this.arc.hostEnvironment();
    const compat = checkCompatibility(
      { id, version: entry.version, compat: entry.compat, hasTools: entry.contents.tools.length > 0 },
      host,
    );
    const keys = publisher?.keys ?? [];

    let pkg: PackageContentsView | null = null;
    let unavailable: string | null = null;
    try {
      pkg = await this.packageOf(
        id,
        entry.version,
        entry.manifestSha256,
        entry.archive.sha256,
        entry.access,
        entry.archive.size,
        state,
        options.download !== false,
        located.client,
      );
      if (pkg === null)
        unavailable =
          entry.access === 'entitled'
            ? 'This capability needs an entitlement to download, so its readme and tool inputs are shown after you install it.'
            : entry.archive.size > MAX_DETAIL_DOWNLOAD
              ? 'The package is too large to download just to look inside; its readme and tool inputs are shown after you install it.'
              : 'The package has not been downloaded; its readme, tool inputs and skill descriptions are shown after you install it.';
    } catch (error) {
      if (!isAdcapError(error)) throw error;
      unavailable = error.message;
    }
    const newest = listed?.latest ?? null;
    const self: RiskPart = {
      id,
      name: entry.name,
      dependency: false,
      permissions: entry.permissions,
      skillPrograms:
        pkg !== null
          ? pkg.skills.filter((k) => k.programs.length > 0).map((k) => ({ skill: k.name, programs: k.programs }))
          : (entry.contents.skillPrograms ?? []),
    };
    const risk = await this.riskOf(id, self, entry.dependencies);
    return {
      id,
      remote: located.remote,
      name: entry.name,
      summary: entry.summary,
      publisher: { id: publisherId, name: publisher?.name ?? publisherId, verified: keys.some((k) => k.status === 'active') },
      version: entry.version,
      tier: entry.tier,
      access: entry.access,
      deprecated,
      versions,
      permissions: entry.permissions.map((p) =>
        permissionView(p, state === null || state.active !== entry.version ? undefined : state.grants),
      ),
      dependencies: Object.entries(entry.dependencies).map(([dep, range]) => ({ id: dep, range })),
      compat: entry.compat,
      compatible: compat.ok ? { ok: true, reason: null } : { ok: false, reason: compat.reason },
      signers: entry.signers.map((keyId) => ({ keyId, status: keys.find((k) => k.keyId === keyId)?.status ?? 'unknown' })),
      contents: entry.contents,
      package: pkg,
      packageUnavailable: pkg === null ? unavailable : null,
      installed:
        state === null
          ? null
          : { version: state.active, updateAvailable: newest !== null && semver.gt(newest, state.active) ? newest : null },
      risk,
    };
  }

  /**
   * The overall risk of installing `self` (card-risk.ts `installRisk`, the walk the cards' verdicts
   * use too): its dependencies at the version an install would take, read without download.
   */
  private async riskOf(_id: string, self: RiskPart, dependencies: Record<string, string>): Promise<RiskVerdict> {
    return installRisk(liveSources(this.arc, this.store), self, dependencies);
  }

  private async packageOf(
    id: string,
    version: string,
    manifestSha256: string,
    archiveSha256: string,
    access: 'public' | 'entitled',
    size: number,
    state: { active: string; history: string[] } | null,
    download: boolean,
    client: RegistryClient,
  ): Promise<PackageContentsView | null> {
    const known = this.packages.get(manifestSha256);
    if (known !== undefined) return known;
    if (state !== null && (state.active === version || state.history.includes(version))) {
      const manifest = await this.arc.readInstalledManifest(id, version);
      return this.remember(manifestSha256, await packageContents(manifest, this.store.versionDir(id, version), true));
    }
    if (access === 'entitled' || size > MAX_DETAIL_DOWNLOAD) return null;
    // Without download, only an archive already in the cache is read (no network: the page is
    // drawn from metadata at once); the client still checks its pin and signature.
    if (!download && !(await this.store.cache.has(archiveSha256, size))) return null;
    // spec §13: pinned size and SHA-256, then the publisher signature, checked by the client.
    const archive = await client.downloadArchive(id, version, { cache: this.store.cache });
    const scratch = await mkdtemp(join(tmpdir(), 'arcotheon-detail-'));
    try {
      const read = await readPackage(archive.path, { extractTo: join(scratch, 'pkg') });
      return this.remember(manifestSha256, await packageContents(read.manifest, join(scratch, 'pkg'), false));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private remember(key: string, view: PackageContentsView): PackageContentsView {
    if (this.packages.size > 200) this.packages.delete(this.packages.keys().next().value as string);
    this.packages.set(key, view);
    return view;
  }
}
