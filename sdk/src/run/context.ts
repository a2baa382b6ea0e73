/**
 * What a tool run needs from the home besides the tool itself (spec §7 call context, spec §9
 * resources): resources materialised through the cache, dependency directories, the tool data
 * directory, the registry blob mirror, and the revocation status of the installed version.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { reasonError } from '../surface-text.js';
import { AdcapError, isAdcapError } from '../errors.js';
import { resolveUrl } from '../cache/fetch.js';
import { materializeResource } from '../cache/resource.js';
import type { SourcePolicy } from '../cache/source-policy.js';
import type { AuthorizeFn } from '../cache/authorize.js';
import type { ContentCache } from '../cache/content-cache.js';
import type { Manifest, Resource, Tool } from '../format/manifest-types.js';
import type { ArcotheonOptions, SandboxChoice } from '../store/options.js';
import { revocationReason as revocationOf } from '../store/revocations.js';
import type { RegistrySources } from '../store/sources.js';
import type { InstallSource, PackageState } from '../store/state.js';
import type { InstalledView, PolicyView } from '../store/store-view.js';
import type { ProgressListener } from '../util/progress.js';

/**
 * What running a tool, a workflow or an MCP server reads and calls of a store:
 * the installed side (home, states, manifests, dependency directories), the policy in force, the
 * content cache and registry sources for resources and revocations, and the host's choices
 * (authoriser, sandbox, tier check). `Arcotheon` is one; run/ depends on nothing else of it.
 */
export interface RunContext extends InstalledView, PolicyView {
  readonly cache: ContentCache;
  readonly sources: RegistrySources;
  readonly authorize: AuthorizeFn | undefined;
  readonly sandboxChoice: SandboxChoice;
  readonly checkTier: ArcotheonOptions['checkTier'];
  /** The quota of each tool's `storage:data` folder in bytes (default DEFAULT_TOOL_DATA_QUOTA). */
  readonly toolDataQuota?: number;
  /** Directory of the active installed version of `id` (E_NOT_INSTALLED when it is not installed). */
  installedDir(id: string): Promise<string>;
  /** The rules for publisher-chosen URLs of a version installed from `source`. */
  sourcePolicy(source: InstallSource | undefined): Promise<SourcePolicy>;
}

/**
 * Content-addressed mirrors of the remote a version was installed from: a registry may serve any
 * pinned blob at `<v1>/blobs/sha256/<hex>` (archives already are), so resources and shards are
 * tried there after their declared sources. Sideloaded versions have none.
 */
export async function blobMirrors(arc: RunContext, state: PackageState, version: string): Promise<string[]> {
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
 * spec §13: a revoked version is never run. The catalogue is refreshed first when
 * it is older than the refresh interval, so a revocation published since is seen before the run
 * (store/revocations.ts). Returns the reason, or null.
 */
export function revocationReason(arc: RunContext, id: string, state: PackageState): Promise<string | null> {
  return revocationOf({ sources: arc.sources, home: arc.home.root }, id, state, { refresh: 'auto' });
}

interface MaterializedResources {
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
  arc: RunContext,
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
      throw new AdcapError(
        'E_SEMANTIC',
        `The tool ${tool.name} uses resource "${rid}", which ${manifest.id} does not declare; reinstall it.`,
      );
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
export async function dependencyDirs(arc: RunContext, manifest: Manifest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    try {
      out[dep] = await arc.installedDir(dep);
    } catch (error) {
      if (isAdcapError(error, 'E_NOT_INSTALLED')) {
        throw reasonError('dependency-missing', { id: manifest.id, dependency: dep }, { cause: error });
      }
      throw error;
    }
  }
  return out;
}

/** spec §7 `context.toolDataDir`: created when storage:data is granted to the tool, else null. */
export async function toolDataDirFor(arc: RunContext, id: string, tool: Tool, grantsUsed: readonly string[]): Promise<string | null> {
  if (!grantsUsed.includes('storage:data')) return null;
  return createWithoutLinks(arc.home.root, arc.home.toolDataDir(id, tool.name));
}

/**
 * Creates `dir` (below `root`) one folder at a time and returns its real path, refusing any
 * component that is a link or not a folder (a symlink planted in tooldata/
 * must not lead a tool's data folder, or the folders created for it, outside the home). The
 * home itself may be reached through a link; what lies below it may not.
 */
async function createWithoutLinks(root: string, dir: string): Promise<string> {
  let current = await realpath(root);
  for (const part of path.relative(root, dir).split(path.sep)) {
    current = path.join(current, part);
    let info = await lstat(current).catch(() => null);
    if (info === null) {
      await mkdir(current, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      info = await lstat(current);
    }
    if (!info.isDirectory()) {
      throw new AdcapError(
        'E_IO',
        `${current} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}, ` +
          "so the tool's data folder could lead outside its own place in the Arcotheon home; " +
          `the run is refused. Remove ${current} (its data is not a tool's) and run the tool again.`,
        { details: { path: current } },
      );
    }
  }
  return current;
}
