/**
 * What the Arcotheon app's host service (electron/host, DESIGN §2) reads of a home beside the
 * public API of `Arcotheon`: the home's folders, the registry clients behind it, the content cache
 * archives are fetched into, and one capability's stored state. Exported from
 * `@arcotheon/sdk/internal` only (not covered by semver), so the class itself keeps its store
 * (layout, cache, sources, lock) to itself and a host depends on exactly these calls.
 */
import type { ContentCache } from '../cache/content-cache.js';
import type { RegistryClient } from '../registry/client/registry-client.js';
import type { RemoteConfig } from '../registry/remotes.js';
import type { Arcotheon } from './arcotheon.js';
import type { LocatedPackage } from './sources.js';
import type { PackageState } from './state.js';
import { storeOf } from './store-of.js';

/** The narrow view of an Arcotheon home that the app's host service uses (see the module comment). */
export interface HostStore {
  /** The home folder (DESIGN §6). */
  readonly homeDir: string;
  /** `home/audit/`: the hash-chained log of tool and workflow runs. */
  readonly auditDir: string;
  /** `home/cache/`: content-addressed archives, resources and shards. */
  readonly cacheDir: string;
  /** The folder of one installed version, `home/packages/<pub>/<name>/<version>/`. */
  versionDir(id: string, version: string): string;
  /** The `storage:data` folder of one tool (spec §7 `context.dataDir`), kept across versions. */
  toolDataDir(id: string, tool: string): string;
  /** The content cache a host downloads archives into (RegistryClient.downloadArchive). */
  readonly cache: ContentCache;
  /** The remotes in force: config.json, the host's defaults, or those the policy names. */
  remotes(): Promise<RemoteConfig[]>;
  /** A client for each remote in force, in configuration order. */
  clients(): Promise<RegistryClient[]>;
  /** The client of one remote in force; E_NOT_FOUND when there is none of that name. */
  client(name: string): Promise<RegistryClient>;
  /** The first remote in force that lists `id`, with its verified package document; null when none does. */
  locate(id: string): Promise<LocatedPackage | null>;
  /** The stored state of an installed capability; E_NOT_INSTALLED when it is not installed. */
  state(id: string): Promise<PackageState>;
}

/** The host service's view of `arc`'s home. */
export function hostStore(arc: Arcotheon): HostStore {
  const store = storeOf(arc, 'hostStore()');
  const { home, cache, sources } = store;
  return {
    homeDir: home.root,
    auditDir: home.auditDir,
    cacheDir: home.cacheDir,
    versionDir: (id, version) => home.versionDir(id, version),
    toolDataDir: (id, tool) => home.toolDataDir(id, tool),
    cache,
    remotes: () => sources.remotes(),
    clients: () => sources.clients(),
    client: (name) => sources.client(name),
    locate: (id) => sources.locate(id),
    state: (id) => store.state(id),
  };
}
