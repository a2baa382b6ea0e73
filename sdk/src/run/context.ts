/**
 * What a tool run needs from the home besides the tool itself (spec §7 call context, spec §9
 * resources): resources materialised through the cache, dependency directories, the tool data
 * directory, the registry blob mirror, and the revocation status of the installed version.
 */
import { mkdir } from 'node:fs/promises';
import { AdcapError, isAdcapError } from '../errors.js';
import { resolveUrl } from '../cache/fetch.js';
import { materializeResource } from '../cache/resource.js';
import type { SourcePolicy } from '../cache/source-policy.js';
import type { Manifest, Resource, Tool } from '../format/manifest-types.js';
import { parsePackageDocument } from '../registry/client/package-document.js';
import { RemoteStore } from '../registry/client/remote-store.js';
import { remoteStateDir } from '../registry/remotes.js';
import type { Arcotheon } from '../store/arcotheon.js';
import type { PackageState } from '../store/state.js';
import type { ProgressListener } from '../util/progress.js';

/**
 * Content-addressed mirrors of the remote a version was installed from: a registry may serve any
 * pinned blob at `<v1>/blobs/sha256/<hex>` (archives already are), so resources and shards are
 * tried there after their declared sources. Sideloaded versions have none.
 */
export async function blobMirrors(arc: Arcotheon, state: PackageState, version: string): Promise<string[]> {
  const source = state.versions[version]?.source;
  if (source === undefined || source.kind !== 'registry') return [];
  try {
    const client = await arc.sources.client(source.remote);
    return [resolveUrl(client.remote.url, 'blobs/sha256/')];
  } catch (error) {
    if (isAdcapError(error)) return []; // the remote was removed since: only the declared sources remain
    throw error;
  }
}

/**
 * spec §13: a revoked version is never run. Decided from the last stored catalogue and the package
 * document it pins, without network (`refresh: 'never'`): the installing remote for registry
 * installs, every remote (matching the manifest digest) for sideloads. Returns the reason, or null
 * when no stored document says revoked (including when none is stored yet).
 */
export async function revocationReason(arc: Arcotheon, id: string, state: PackageState): Promise<string | null> {
  const record = state.versions[state.active];
  if (record === undefined) return null;
  let clients;
  try {
    clients = await arc.sources.clients();
  } catch (error) {
    if (isAdcapError(error)) return null;
    throw error;
  }
  if (record.source.kind === 'registry') {
    const remote = record.source.remote;
    clients = clients.filter((c) => c.remote.name === remote);
  }
  for (const client of clients) {
    try {
      const { payload } = await client.catalogue({ refresh: 'never' });
      const pin = Object.hasOwn(payload.capabilities, id) ? payload.capabilities[id]?.doc : undefined;
      if (pin === undefined) continue;
      const bytes = await new RemoteStore(remoteStateDir(arc.home.root, client.remote.name)).readDocument(pin.sha256);
      if (bytes === null) continue;
      const entry = parsePackageDocument(bytes, id).versions[state.active];
      if (entry === undefined || entry.status !== 'revoked') continue;
      if (record.source.kind === 'file' && entry.manifestSha256 !== record.manifestSha256) continue;
      return entry.statusReason ?? 'no reason given';
    } catch (error) {
      // No stored catalogue, a stale one, a damaged document: not evidence of a revocation. Doctor
      // and update report those problems; a run does not go online to find out.
      if (!isAdcapError(error)) throw error;
    }
  }
  return null;
}

export interface MaterializedResources {
  /** Declared resource id -> verified local path (spec §7 `context.resources`). */
  paths: Record<string, string>;
  /** The Resource objects the tool declared (for the shard handler). */
  resources: Resource[];
}

/**
 * spec §7/§9: the tool's declared resources, verified and cached, lazy ones fetched now; a shard
 * set gives its map's path. Entitled ones go through the host's authoriser.
 */
export async function materializeToolResources(
  arc: Arcotheon,
  manifest: Manifest,
  tool: Tool,
  options: { mirrors: string[]; policy: SourcePolicy; onProgress?: ProgressListener; signal?: AbortSignal },
): Promise<MaterializedResources> {
  const paths: Record<string, string> = {};
  const resources: Resource[] = [];
  for (const rid of tool.resources ?? []) {
    const resource = (manifest.resources ?? []).find((r) => r.id === rid);
    if (resource === undefined) {
      // validateManifest refuses this (spec §3.2), so only a damaged install gets here.
      throw new AdcapError('E_SEMANTIC', `The tool ${tool.name} uses resource "${rid}", which ${manifest.id} does not declare; reinstall it.`);
    }
    resources.push(resource);
    paths[rid] = await materializeResource(arc.cache, resource, {
      ...(arc.authorize === undefined ? {} : { authorize: arc.authorize }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      mirrors: options.mirrors,
      policy: options.policy,
    });
  }
  return { paths, resources };
}

/** spec §7 `context.dependencies`: each declared dependency's installed directory. */
export async function dependencyDirs(arc: Arcotheon, manifest: Manifest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    try {
      out[dep] = await arc.installedDir(dep);
    } catch (error) {
      if (isAdcapError(error, 'E_NOT_INSTALLED')) {
        throw new AdcapError('E_NOT_INSTALLED', `${manifest.id} needs ${dep}, which is not installed; run "adcap doctor --fix" or install ${dep}.`, { cause: error });
      }
      throw error;
    }
  }
  return out;
}

/** spec §7 `context.toolDataDir`: created when storage:data is granted to the tool, else null. */
export async function toolDataDirFor(arc: Arcotheon, id: string, tool: Tool, grantsUsed: readonly string[]): Promise<string | null> {
  if (!grantsUsed.includes('storage:data')) return null;
  const dir = arc.home.toolDataDir(id, tool.name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
