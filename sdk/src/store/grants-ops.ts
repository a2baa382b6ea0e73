/**
 * Grants of installed capabilities (spec §6, DESIGN §5): what is granted and declared, granting a
 * declared permission, and revoking one, each recorded in state.json under the home lock.
 */
import { AdcapError } from '../errors.js';
import type { Permission } from '../format/manifest-types.js';
import { grantString, parseGrant } from '../permissions/index.js';
import { addRevocation, clearRevocations } from './grant-revocations.js';
import { policyForChange } from './policy-enforce.js';
import { assertGrantsAllowed } from './policy.js';
import type { PackageState } from './state.js';
import type { StoreCore } from './store-core.js';
import { runOperation } from './transaction.js';

/** `arc.grants`: the grants the capability holds and the permissions it declares. */
export async function grantsOf(core: StoreCore, id: string): Promise<{ granted: string[]; declared: Permission[] }> {
  const state = await core.state(id);
  const manifest = await core.readInstalledManifest(id, state.active);
  return { granted: state.grants, declared: manifest.permissions ?? [] };
}

/** `arc.revokeGrant`: the tools that need it stop running (E_NOT_GRANTED) until it is granted again. */
export async function revokeGrant(core: StoreCore, id: string, grant: string): Promise<string[]> {
  parseGrant(grant);
  return changeGrants(
    core,
    id,
    (grants) => {
      if (!grants.includes(grant)) {
        throw new AdcapError('E_NOT_FOUND', `${id} does not hold the grant "${grant}"; "adcap grants ${id}" lists what it holds.`);
      }
      return grants.filter((g) => g !== grant);
    },
    (revoked) => addRevocation(revoked, grant),
  );
}

/** `arc.grant`: only a permission the capability declares (spec §6: never more than it declares). */
export async function grantPermission(core: StoreCore, id: string, grant: string): Promise<string[]> {
  parseGrant(grant);
  const state = await core.state(id);
  const manifest = await core.readInstalledManifest(id, state.active);
  const declared = (manifest.permissions ?? []).map(grantString);
  if (!declared.includes(grant)) {
    throw new AdcapError(
      'E_NOT_GRANTED',
      `${id} does not declare the permission "${grant}", so it cannot be granted (spec §6); ` +
        `it declares: ${declared.join(', ') || 'nothing'}.`,
    );
  }
  assertGrantsAllowed(await policyForChange(core), [{ id, grant }]);
  return changeGrants(
    core,
    id,
    (grants) => (grants.includes(grant) ? grants : [...grants, grant].sort()),
    (revoked) => clearRevocations(revoked, [grant]),
  );
}

async function changeGrants(
  core: StoreCore,
  id: string,
  change: (grants: string[]) => string[],
  changeRevoked: (revoked: string[] | undefined) => string[],
): Promise<string[]> {
  return core.withHome(`grants ${id}`, async () => {
    const state = await core.state(id);
    const grants = change([...state.grants]);
    const revoked = changeRevoked(state.revoked);
    const record = state.versions[state.active];
    const { revoked: _old, ...rest } = state;
    const after: PackageState = {
      ...rest,
      ...(revoked.length === 0 ? {} : { revoked }),
      grants,
      versions: record === undefined ? state.versions : { ...state.versions, [state.active]: { ...record, grants } },
    };
    await runOperation(core.home, { op: 'grants', before: { [id]: state }, after: { [id]: after }, creates: [] });
    return grants;
  });
}
