/**
 * What reading an installed capability needs to know of the organisation's policy: the policy in
 * force for read-only work (an invalid one as its error), and the "managed by" mark of one installed
 * capability (DESIGN §5, docs/admin.md). Apart from policy-enforce.ts, which changes installs, so
 * that reading (installed.ts) depends on nothing that writes.
 */
import { isAdcapError, type AdcapError } from '../errors.js';
import { blockedBy, deniedBy, managedBy, requiredEntry, type LoadedPolicy } from './policy.js';
import type { PackageState } from './state.js';
import type { PolicyView } from './store-view.js';

/** The policy for read-only work: an invalid one is returned as its error, not thrown. */
export async function policyForReading(arc: PolicyView): Promise<{ loaded: LoadedPolicy | null; error?: AdcapError }> {
  try {
    return { loaded: await arc.policyInForce() };
  } catch (error) {
    if (isAdcapError(error, 'E_POLICY')) return { loaded: null, error };
    throw error;
  }
}

/** How the policy manages an installed capability, for `list` and the UI. */
export interface ManagedMark {
  /** "Managed by <organisation> (rule ... in <path>)." */
  text: string;
  /** The required entry: installed for every user, its permissions granted by the policy. */
  required?: string;
  /** The blocked entry that matches the installed version. */
  blocked?: string;
  /** Grants the capability holds that the policy now denies. */
  deniedGrants?: string[];
}

export function managedMark(loaded: LoadedPolicy | null, state: PackageState): ManagedMark | undefined {
  if (loaded === null) return undefined;
  const required = requiredEntry(loaded.policy, state.id);
  const blocked = blockedBy(loaded.policy, state.id, state.active);
  const deniedGrants = state.grants.filter((g) => deniedBy(loaded.policy, g) !== undefined);
  if (required === undefined && blocked === undefined && deniedGrants.length === 0) return undefined;
  const rule = blocked !== undefined ? 'blocked' : required !== undefined ? 'required' : 'deniedPermissions';
  return {
    text: managedBy(loaded, rule),
    ...(required === undefined ? {} : { required }),
    ...(blocked === undefined ? {} : { blocked }),
    ...(deniedGrants.length === 0 ? {} : { deniedGrants }),
  };
}
