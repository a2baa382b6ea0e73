/**
 * What is installed in a home (DESIGN §6: packages/<pub>/<name>/state.json and each version's
 * capability.json): the states, the installed manifests, and the list a host shows.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { validateManifest } from '../format/manifest.js';
import { parseStrictJson } from '../format/strict-json.js';
import { parseCapabilityId } from '../registry/layout.js';
import { checkId } from './arguments.js';
import type { HomeLayout } from './home.js';
import { managedMark, policyForReading, type ManagedMark } from './policy-enforce.js';
import { revocationReason } from './revocations.js';
import type { RegistrySources } from './sources.js';
import { packageIdsOnDisk, readState, type DisabledMark, type InstallSource, type PackageState } from './state.js';
import type { PolicyView } from './store-view.js';

export interface InstalledCapability {
  id: string;
  version: string;
  /** "ok", "unsigned", "unknown-signer" or "sideloaded", from where the version came from. */
  status: 'ok' | 'unsigned' | 'unknown-signer' | 'sideloaded';
  grants: string[];
  explicit: boolean;
  history: string[];
  source: InstallSource;
  /**
   * Set when the stored catalogue of its registry says this version was revoked (issue 12 item 6):
   * the reason. Its tools do not run; update or uninstall it.
   */
  revoked?: string;
  /** Set while it is switched off (issue 17): by the user, or by the policy's `blocked` rule. */
  disabled?: DisabledMark;
  /** Set when the organisation policy manages it: required, blocked, or holding a denied grant. */
  managed?: ManagedMark;
}

/** Installed capabilities: package directories with a readable state.json. */
export async function installedIds(home: HomeLayout): Promise<string[]> {
  const ids: string[] = [];
  for (const id of await packageIdsOnDisk(home, { withState: true })) {
    if (await readState(home, id).catch(() => null)) ids.push(id);
  }
  return ids;
}

/** The state of every installed capability, by id. */
export async function installedStates(home: HomeLayout): Promise<Map<string, PackageState | null>> {
  const map = new Map<string, PackageState | null>();
  for (const id of await installedIds(home)) map.set(id, await readState(home, id));
  return map;
}

/** `arc.state(id)`: E_NOT_INSTALLED when `id` is not installed. */
export async function installedState(home: HomeLayout, id: string): Promise<PackageState> {
  checkId(id, 'state');
  parseCapabilityId(id);
  const state = await readState(home, id);
  if (state === null) throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed; install it with "adcap install ${id}".`);
  return state;
}

/** The manifest of an installed version, re-validated from disk. */
export async function readInstalledManifest(home: HomeLayout, id: string, version: string): Promise<Manifest> {
  const path = join(home.versionDir(id, version), 'capability.json');
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new AdcapError('E_MISSING', `The installed files of ${id}@${version} are missing; run "adcap doctor --fix" to reinstall them.`, {
      cause,
    });
  }
  return validateManifest(parseStrictJson(bytes, `capability.json of ${id}@${version}`));
}

/**
 * The manifest of each installed capability's active version, read and validated once per
 * operation (null when it cannot be read: doctor reports that).
 */
export async function activeManifests(
  home: HomeLayout,
  installed: Map<string, PackageState | null>,
): Promise<Map<string, Manifest | null>> {
  const manifests = new Map<string, Manifest | null>();
  for (const [id, state] of installed) {
    if (state !== null) manifests.set(id, await readInstalledManifest(home, id, state.active).catch(() => null));
  }
  return manifests;
}

/** `arc.list()`: every installed capability with its status, revocation, enablement and policy marks. */
export async function listInstalled(store: PolicyView & { home: HomeLayout; sources: RegistrySources }): Promise<InstalledCapability[]> {
  const out: InstalledCapability[] = [];
  const { loaded } = await policyForReading(store);
  for (const id of await installedIds(store.home)) {
    const state = await readState(store.home, id);
    if (state === null) continue;
    const record = state.versions[state.active];
    const source = record?.source ?? { kind: 'registry', remote: '?', signedBy: [] };
    const status = source.kind === 'file' ? (source.unsigned ? 'unsigned' : source.unknownSigner ? 'unknown-signer' : 'sideloaded') : 'ok';
    // Issue 12 item 6: a revoked install is shown as such (from the stored catalogue, offline).
    const revoked = await revocationReason({ sources: store.sources, home: store.home.root }, id, state, { refresh: 'never' });
    const managed = managedMark(loaded, state);
    out.push({
      id,
      version: state.active,
      status,
      grants: state.grants,
      explicit: state.explicit,
      history: state.history,
      source,
      ...(revoked === null ? {} : { revoked }),
      ...(state.disabled === undefined ? {} : { disabled: state.disabled }),
      ...(managed === undefined ? {} : { managed }),
    });
  }
  return out;
}
