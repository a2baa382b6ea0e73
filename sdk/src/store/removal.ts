/**
 * Removal (DESIGN §7 `uninstall`, `adcap cache gc`): a capability and the dependencies nothing else
 * needs, and cache blobs no installed version references.
 */
import { readFile } from 'node:fs/promises';
import type { GcResult } from '../cache/content-cache.js';
import { parseShardMap } from '../cache/shardset.js';
import { AdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { parseCapabilityId } from '../registry/layout.js';
import { syncLinks } from './agent-links/sync-links.js';
import { checkId } from './arguments.js';
import { activeManifests, installedIds, installedStates } from './installed.js';
import { policyForChange } from './policy-enforce.js';
import { assertNotRequired } from './policy.js';
import { readState, type PackageState } from './state.js';
import type { StoreCore } from './store-core.js';
import { runOperation } from './transaction.js';

/** `arc.uninstall`: refuses while a dependent is installed. */
export async function uninstallCapability(core: StoreCore, id: string): Promise<{ removed: string[] }> {
  checkId(id, 'uninstall');
  return core.withHome(`uninstall ${id}`, async () => {
    parseCapabilityId(id);
    if ((await readState(core.home, id)) === null) {
      throw new AdcapError(
        'E_NOT_INSTALLED',
        `${id} is not installed, so there is nothing to uninstall; "adcap list" shows what is installed.`,
        { details: { id } },
      );
    }
    assertNotRequired(await policyForChange(core), id, 'uninstall');
    const installed = await installedStates(core.home);
    const manifests = await activeManifests(core.home, installed);
    const dependents = dependentsOf(id, manifests, new Set([id]));
    if (dependents.length > 0) {
      throw new AdcapError(
        'E_DEPENDENTS',
        `${id} is needed by ${dependents.join(', ')}; uninstall ${dependents.length === 1 ? 'it' : 'them'} first.`,
        { details: { dependents } },
      );
    }
    const removing = new Set([id]);
    // Dependencies installed only for what is being removed go with it.
    for (let changed = true; changed;) {
      changed = false;
      for (const [other, state] of installed) {
        if (state === null || removing.has(other) || state.explicit) continue;
        if (dependentsOf(other, manifests, removing).length === 0) {
          removing.add(other);
          changed = true;
        }
      }
    }
    const before: Record<string, PackageState | null> = {};
    const after: Record<string, PackageState | null> = {};
    for (const r of removing) {
      before[r] = installed.get(r) ?? null;
      after[r] = null;
    }
    await runOperation(core.home, { op: 'uninstall', before, after, creates: [] });
    await syncLinks(core, [...removing]); // uninstall removes its links
    return { removed: [...removing] };
  });
}

/**
 * `cache gc`: removes blobs that no installed version references. Archives and
 * resources of the active and the kept previous versions stay (rollback needs them), and so do
 * the shards listed by the cached shard maps of those resources.
 */
export async function gcCache(core: StoreCore): Promise<GcResult & { kept: number }> {
  return core.withHome('cache gc', async () => {
    const keep = new Set<string>();
    for (const id of await installedIds(core.home)) {
      const state = await readState(core.home, id);
      if (state === null) continue;
      for (const version of [state.active, ...state.history]) {
        const archive = state.versions[version]?.archiveSha256;
        if (archive) keep.add(archive);
        const manifest = await core.readInstalledManifest(id, version).catch(() => null);
        for (const resource of manifest?.resources ?? []) {
          keep.add(resource.sha256);
          if (resource.format !== 'shardset' || !(await core.cache.has(resource.sha256))) continue;
          const map = parseShardMap(await readFile(core.cache.pathFor(resource.sha256)), `the shard map of ${id} resource ${resource.id}`);
          for (const shard of map.shards) keep.add(shard.sha256);
        }
      }
    }
    return { ...(await core.cache.gc(keep)), kept: keep.size };
  });
}

/** Installed capabilities (not in `ignore`) whose active version depends on `id`. */
function dependentsOf(id: string, manifests: Map<string, Manifest | null>, ignore: Set<string>): string[] {
  const out: string[] = [];
  for (const [other, manifest] of manifests) {
    if (!ignore.has(other) && manifest !== null && Object.hasOwn(manifest.dependencies ?? {}, id)) out.push(other);
  }
  return out;
}
