/**
 * What is installed in a home (DESIGN §6: packages/<pub>/<name>/state.json and each version's
 * capability.json): the states, the installed manifests, and the list a host shows.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { AdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { validateManifest } from '../format/manifest.js';
import { parseStrictJson } from '../format/strict-json.js';
import { parseCapabilityId } from '../registry/layout.js';
import { sha256Hex } from '../util/hash.js';
import { checkId } from './arguments.js';
import { manifestCheckRecorded, recordManifestCheck } from './file-fingerprints.js';
import type { HomeLayout } from './home.js';
import { managedMark, policyForReading, type ManagedMark } from './policy-marks.js';
import { revocationReason } from './revocations.js';
import type { RegistrySources } from './sources.js';
import { packageIdsOnDisk, readState, type DisabledMark, type InstallSource, type PackageState } from './state.js';
import type { PolicyView } from './store-view.js';

/** One installed capability as `Arcotheon.list()` reports it: version, status, grants and marks. */
export interface InstalledCapability {
  /** The capability id. */
  id: string;
  /** The active version. */
  version: string;
  /**
   * "ok", "unsigned", "unknown-signer" or "sideloaded", from where the version came from; "damaged"
   * when its state.json cannot be read (then `damaged` says what doctor would do).
   */
  status: 'ok' | 'unsigned' | 'unknown-signer' | 'sideloaded' | 'damaged';
  /** The permissions granted, as `id[:scope]` strings. */
  grants: string[];
  /** Whether the user asked for it (false for a dependency). */
  explicit: boolean;
  /** The versions kept, oldest first (rollback goes back one). */
  history: string[];
  /** Where the active version came from: a registry remote or a file. */
  source: InstallSource;
  /**
   * Set when the stored catalogue of its registry says this version was revoked:
   * the reason. Its tools do not run; update or uninstall it.
   */
  revoked?: string;
  /** Set while it is switched off: by the user, or by the policy's `blocked` rule. */
  disabled?: DisabledMark;
  /** Set when the organisation policy manages it: required, blocked, or holding a denied grant. */
  managed?: ManagedMark;
  /**
   * Set when its state.json is damaged (DESIGN §6: doctor says which state is left and repairs):
   * `problem` is what is wrong, `repair` what a repair (`doctor({ fix: true })`) would do. `version` is then the
   * version a repair would make active (the highest intact one), or "" when none is left; grants,
   * history and source are unknown until the repair (empty, and a registry source named "?").
   */
  damaged?: DamagedMark;
}

/** What list() says of a capability whose state cannot be read. */
export interface DamagedMark {
  /** What is wrong, in a sentence ("The state file of acme/x is damaged: ..."). */
  problem: string;
  /** What a repair (`doctor({ fix: true })`, `adcap doctor --fix`, Health's Fix) would do. */
  repair: string;
}

/**
 * The version a repair of a damaged state makes active: the highest version folder whose manifest is
 * intact, or null when none is (doctor then removes the capability). Shared by list() and doctor.
 */
export async function repairableVersion(
  home: HomeLayout,
  id: string,
  readManifest: (id: string, version: string) => Promise<Manifest> = (i, v) => readInstalledManifest(home, i, v),
): Promise<{ version: string; manifest: Manifest } | null> {
  const versions = (await readdir(home.packageDir(id)).catch(() => [] as string[]))
    .filter((v) => semver.valid(v) !== null)
    .sort(semver.rcompare);
  for (const version of versions) {
    const manifest = await readManifest(id, version).catch(() => null);
    if (manifest !== null) return { version, manifest };
  }
  return null;
}

/** The list() entry of a capability whose state.json is damaged. */
async function damagedEntry(home: HomeLayout, id: string, error: unknown): Promise<InstalledCapability> {
  const intact = await repairableVersion(home, id);
  const problem = `The state file of ${id} is damaged: ${error instanceof Error ? error.message : String(error)}`;
  const repair =
    intact === null
      ? 'a repair removes it (no intact version is left); install it again'
      : `a repair rebuilds its state with ${intact.version} active and no grants; grant its permissions again`;
  return {
    id,
    version: intact?.version ?? '',
    status: 'damaged',
    grants: [],
    explicit: true,
    history: [],
    source: { kind: 'registry', remote: '?', signedBy: [] },
    damaged: { problem, repair },
  };
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

/** SHA-256 of capability.json bytes that passed validateManifest in this process. */
const checkedInProcess = new Set<string>();
const MAX_CHECKED_IN_PROCESS = 4096;

/**
 * The manifest of an installed version, read from disk and checked (spec §3-§4: strict JSON, the
 * schema, tool schemas that compile, the semantic rules). The full check runs once per content:
 * bytes whose SHA-256 passed it before, in this process or as recorded beside the version's file
 * fingerprints under the same SDK and rules (file-fingerprints.ts manifestCheckRecorded), are only
 * parsed. Any other bytes, or no record, get the full check, which records them when they pass.
 */
export async function readInstalledManifest(home: HomeLayout, id: string, version: string): Promise<Manifest> {
  const path = join(home.versionDir(id, version), 'capability.json');
  let bytes: Buffer;
  try {
    bytes = readFileSync(path); // synchronous, as readState: read before every run
  } catch (cause) {
    throw new AdcapError('E_MISSING', `The installed files of ${id}@${version} are missing; run "adcap doctor --fix" to reinstall them.`, {
      cause,
    });
  }
  const sha256 = sha256Hex(bytes);
  // The same bytes passed the strict parser, so JSON.parse reads the same value from them.
  if (await manifestCheckRecorded(home, id, version, sha256)) return JSON.parse(bytes.toString('utf8')) as Manifest;
  let manifest: Manifest;
  if (checkedInProcess.has(sha256)) {
    manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
  } else {
    manifest = validateManifest(parseStrictJson(bytes, `capability.json of ${id}@${version}`));
    if (checkedInProcess.size >= MAX_CHECKED_IN_PROCESS) checkedInProcess.clear();
    checkedInProcess.add(sha256);
  }
  await recordManifestCheck(home, id, version, sha256);
  return manifest;
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

/**
 * `arc.list()`: every installed capability with its status, revocation, enablement and policy marks;
 * one whose state.json is damaged is listed too, with status "damaged" and `damaged`.
 */
export async function listInstalled(store: PolicyView & { home: HomeLayout; sources: RegistrySources }): Promise<InstalledCapability[]> {
  const out: InstalledCapability[] = [];
  const { loaded } = await policyForReading(store);
  for (const id of await packageIdsOnDisk(store.home, { withState: true })) {
    let state: PackageState | null;
    try {
      state = await readState(store.home, id);
    } catch (error) {
      // Listed, marked damaged, with what doctor would do (never dropped).
      out.push(await damagedEntry(store.home, id, error));
      continue;
    }
    if (state === null) continue;
    const record = state.versions[state.active];
    const source = record?.source ?? { kind: 'registry', remote: '?', signedBy: [] };
    const status = source.kind === 'file' ? (source.unsigned ? 'unsigned' : source.unknownSigner ? 'unknown-signer' : 'sideloaded') : 'ok';
    // A revoked install is shown as such (from the stored catalogue, offline).
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
