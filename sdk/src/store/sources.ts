import { AdcapError, isAdcapError } from '../errors.js';
import type { FetchLike } from '../cache/fetch.js';
import { publisherTrustedKeys } from '../registry/catalogue.js';
import { RegistryClient } from '../registry/client/registry-client.js';
import { listRemotes, type RemoteConfig } from '../registry/remotes.js';
import type { DocumentVersion, PackageDocument } from '../registry/types.js';
import type { CandidateVersion } from '../resolve/types.js';
import type { TrustedKey } from '../trust/keys.js';

interface SourcesOptions {
  home: string;
  /** Remotes the host ships (the embedded default registry); config.json entries of the same name win. */
  defaults: RemoteConfig[];
  fetch?: FetchLike;
  maxCatalogAgeMs?: number;
  /** Refresh a stored catalogue checked longer ago than this (default: the client's, 1 hour). */
  refreshAfterMs?: number;
  now?: () => Date;
  /**
   * The registries the organisation policy allows, or null when it names none. When set,
   * they are the only remotes in force (added for the user, the others not used).
   */
  policyRemotes?: () => Promise<RemoteConfig[] | null>;
}

/** Where a capability was found: the first remote, in configuration order, that lists it. */
export interface LocatedPackage {
  remote: string;
  client: RegistryClient;
  doc: PackageDocument;
  publisherKeys: TrustedKey[];
  /** The publisher's display name from the verified catalogue (its id when the catalogue gives none). */
  publisherName: string;
}

/**
 * The registries an Arcotheon instance installs from: the remotes in home/config.json, plus the
 * host's default remotes (a fresh home starts on the embedded default registry).
 */
export class RegistrySources {
  private clientsByName = new Map<string, RegistryClient>();

  constructor(private readonly options: SourcesOptions) {}

  async remotes(): Promise<RemoteConfig[]> {
    const managed = (await this.options.policyRemotes?.()) ?? null;
    if (managed !== null) return managed;
    const configured = await listRemotes(this.options.home);
    const names = new Set(configured.map((r) => r.name));
    return [...configured, ...this.options.defaults.filter((r) => !names.has(r.name))];
  }

  async clients(): Promise<RegistryClient[]> {
    const remotes = await this.remotes();
    return remotes.map((remote) => {
      const known = this.clientsByName.get(remote.name);
      if (known !== undefined && known.remote.url === remote.url && known.remote.rootKeys.join() === remote.rootKeys.join()) return known;
      const client = new RegistryClient({
        home: this.options.home,
        remote,
        ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
        ...(this.options.maxCatalogAgeMs === undefined ? {} : { maxCatalogAgeMs: this.options.maxCatalogAgeMs }),
        ...(this.options.refreshAfterMs === undefined ? {} : { refreshAfterMs: this.options.refreshAfterMs }),
        ...(this.options.now === undefined ? {} : { now: this.options.now }),
      });
      this.clientsByName.set(remote.name, client);
      return client;
    });
  }

  async client(name: string): Promise<RegistryClient> {
    const found = (await this.clients()).find((c) => c.remote.name === name);
    if (found === undefined)
      throw new AdcapError('E_NOT_FOUND', `There is no remote named "${name}"; "adcap remote list" shows the configured ones.`);
    return found;
  }

  /**
   * The first remote that lists `id`, with its verified package document; null when none does.
   * `where.only` restricts the search to one remote (an installed capability updates only from the
   * registry it came from); `where.prefer` tries one remote first (a dependency
   * comes from its dependent's registry when that registry lists it).
   */
  async locate(id: string, where: { only?: string; prefer?: string } = {}): Promise<LocatedPackage | null> {
    let lastError: unknown = null;
    let clients = await this.clients();
    if (where.only !== undefined) clients = clients.filter((c) => c.remote.name === where.only);
    else if (where.prefer !== undefined)
      clients = [...clients.filter((c) => c.remote.name === where.prefer), ...clients.filter((c) => c.remote.name !== where.prefer)];
    for (const client of clients) {
      try {
        if ((await client.record(id, { rereadLocal: true })) === null) continue;
        const { payload } = await client.catalogue({ refresh: 'never' });
        const doc = await client.packageDoc(id);
        const publisher = id.split('/')[0] ?? '';
        const publisherName = Object.hasOwn(payload.publishers, publisher) ? payload.publishers[publisher]?.name : undefined;
        return {
          remote: client.remote.name,
          client,
          doc,
          publisherKeys: publisherTrustedKeys(payload, publisher),
          publisherName: publisherName ?? publisher,
        };
      } catch (error) {
        // A remote that cannot be reached should not hide the others; attacks are still reported
        // when no remote has the capability.
        if (!isAdcapError(error)) throw error;
        lastError = error;
      }
    }
    if (lastError !== null) throw lastError;
    return null;
  }

  /** Publisher keys for `publisher` from every remote's verified catalogue (for sideloads). */
  async publisherKeys(publisher: string): Promise<TrustedKey[]> {
    const keys: TrustedKey[] = [];
    for (const client of await this.clients()) {
      try {
        const { payload } = await client.catalogue();
        keys.push(...publisherTrustedKeys(payload, publisher));
      } catch (error) {
        if (!isAdcapError(error)) throw error;
      }
    }
    return keys;
  }

  /**
   * Locates `ids` and, transitively, every capability any of their versions depends on, so the
   * synchronous resolver can see the whole universe it may need. `pins` maps an id to the only
   * remote it may come from (null: from no registry at all, e.g. an installed sideload); other
   * dependencies are looked for first in their dependent's registry.
   */
  async closure(
    ids: Iterable<string>,
    pins: ReadonlyMap<string, string | null> = new Map(),
    options: { tolerate?: ReadonlySet<string> } = {},
  ): Promise<Map<string, LocatedPackage>> {
    const found = new Map<string, LocatedPackage>();
    const missing = new Set<string>();
    const queue: Array<{ id: string; prefer?: string }> = [...ids].map((id) => ({ id }));
    while (queue.length > 0) {
      const { id, prefer } = queue.shift() as { id: string; prefer?: string };
      if (found.has(id) || missing.has(id)) continue;
      const pin = pins.get(id);
      let located: LocatedPackage | null;
      try {
        located = pin === null ? null : await this.locate(id, pin !== undefined ? { only: pin } : prefer !== undefined ? { prefer } : {});
      } catch (error) {
        // An installed capability whose registry cannot answer stays resolvable
        // from its own manifest; it is no reason to refuse unrelated work.
        if (!isAdcapError(error) || options.tolerate?.has(id) !== true) throw error;
        located = null;
      }
      if (located === null) {
        missing.add(id);
        continue;
      }
      found.set(id, located);
      for (const entry of Object.values(located.doc.versions)) {
        if (entry.status === 'revoked') continue;
        for (const dep of Object.keys(entry.dependencies)) if (!found.has(dep)) queue.push({ id: dep, prefer: located.remote });
      }
    }
    return found;
  }
}

/** A document version as the resolver sees it (spec §11). */
export function candidateOf(entry: DocumentVersion): CandidateVersion {
  return {
    version: entry.version,
    ...(entry.status === undefined ? {} : { status: entry.status }),
    dependencies: entry.dependencies,
    compat: entry.compat,
    hasTools: entry.contents.tools.length > 0,
  };
}
