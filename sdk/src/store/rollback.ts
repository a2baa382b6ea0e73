/**
 * Rollback (DESIGN §7): back to the previous version still on disk, with the grants it had
 * minus what the user revoked since, refused when it would break a dependency.
 */
import semver from 'semver';
import { AdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { syncLinks } from './agent-links/sync-links.js';
import { checkId } from './arguments.js';
import { grantsAfterRollback } from './grant-revocations.js';
import { activeManifests, installedStates } from './installed.js';
import { policyForChange } from './policy-enforce.js';
import { assertGrantsAllowed, assertNotBlocked } from './policy.js';
import type { PackageState } from './state.js';
import type { StoreCore } from './store-core.js';
import { runOperation } from './transaction.js';

export async function rollbackCapability(core: StoreCore, id: string): Promise<{ id: string; from: string; to: string }> {
  checkId(id, 'rollback');
  return core.withHome(`rollback ${id}`, async () => {
    const state = await core.state(id);
    const previous = state.history.at(-1);
    if (previous === undefined)
      throw new AdcapError('E_NOT_FOUND', `${id} has no earlier version to roll back to; only ${state.active} is installed.`);
    const loaded = await policyForChange(core);
    assertNotBlocked(loaded, id, previous);
    assertGrantsAllowed(
      loaded,
      (state.versions[previous]?.grants ?? []).map((grant) => ({ id, grant })),
    );
    const target = await core.readInstalledManifest(id, previous);
    const installed = await installedStates(core.home);
    for (const [dep, range] of Object.entries(target.dependencies ?? {})) {
      const have = installed.get(dep)?.active;
      if (have === undefined || !semver.satisfies(have, range, { includePrerelease: true })) {
        throw new AdcapError(
          'E_RESOLVE',
          `${id} ${previous} needs ${dep} ${range}, ` +
            `but ${have === undefined ? 'it is not installed' : `${have} is installed`}; ` +
            `install a matching ${dep} first.`,
        );
      }
    }
    assertNoDependentsBroken(id, previous, await activeManifests(core.home, installed));
    const record = state.versions[previous];
    const after: PackageState = {
      ...state,
      active: previous,
      history: [...state.history.filter((v) => v !== previous), state.active],
      grants: grantsAfterRollback(record?.grants ?? [], state.revoked),
    };
    await runOperation(core.home, { op: 'rollback', before: { [id]: state }, after: { [id]: after }, creates: [] });
    await syncLinks(core, [id]); // links follow the active version
    return { id, from: state.active, to: previous };
  });
}

/** E_DEPENDENTS when an installed capability needs `id` in a range `version` does not satisfy. */
function assertNoDependentsBroken(id: string, version: string, manifests: Map<string, Manifest | null>): void {
  for (const [other, manifest] of manifests) {
    const range = other === id ? undefined : manifest?.dependencies?.[id];
    if (range !== undefined && !semver.satisfies(version, range, { includePrerelease: true })) {
      throw new AdcapError(
        'E_DEPENDENTS',
        `${other} needs ${id} ${range}, which ${version} does not satisfy; roll back or update ${other} first.`,
        { details: { dependents: [other] } },
      );
    }
  }
}
