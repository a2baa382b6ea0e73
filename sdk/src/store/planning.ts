/**
 * Planning (spec §6 approval, §11 resolution; host contract "Install"): what installing or updating
 * would do, resolved against the configured remotes, the installed set and the policy in force,
 * with what carrying it out needs kept beside the plan. Nothing is changed here.
 */
import semver from 'semver';
import { AdcapError } from '../errors.js';
import { parseCapabilityId } from '../registry/layout.js';
import { assertRemoteName } from '../registry/remotes.js';
import { checkCompatibility } from '../resolve/compat.js';
import { resolve } from '../resolve/resolver.js';
import type { CandidateVersion } from '../resolve/types.js';
import { refreshRemotes } from './discovery.js';
import { activeManifests, installedStates } from './installed.js';
import { candidateOfManifest, movedFrom, registryItem, rootRange, sideloadItem, sourcePins } from './plan-items.js';
import { describeSource, finishPlan, type Plan, type PlanAction, type PlanItem } from './plan.js';
import { enforcePlan, policyForChange } from './policy-enforce.js';
import { assertSideloadAllowed, blockedBy, type LoadedPolicy } from './policy.js';
import { inspectSideload, type SideloadCandidate } from './sideload.js';
import { candidateOf, type LocatedPackage } from './sources.js';
import type { AddedOrigin, PackageState } from './state.js';
import type { StoreCore } from './store-core.js';
import type { TrustedKey } from '../trust/keys.js';

/**
 * `publisher/name[@range]`, or `remote:publisher/name[@range]` to install from that remote (moving
 * an installed capability there); the object form has the same three parts.
 */
export type PackageSpec = string | { id: string; range?: string; remote?: string };

/** What `Arcotheon.plan()` and `install()` take: packages by id and range from a remote, or a local file to sideload. */
export interface InstallRequest {
  /** The capabilities to install from registries, each `publisher/name[@range]` or its object form. */
  packages?: PackageSpec[];
  /**
   * The remote every package of this request comes from (a spec's own remote wins). Without one, an
   * installed capability keeps to the registry it came from and a new one comes from the first
   * remote that lists it. Naming another remote moves an installed capability there; the plan
   * shows that as a change of source (`PlanItem.previousSource`).
   */
  remote?: string;
  /** Sideload a local .adcap file. */
  file?: string;
  /**
   * docs/skills.md: the file was built by `adcap add` and signed with the user's own key: that key is
   * trusted for this file only, and the origin is recorded with the installed version.
   */
  added?: { origin: AddedOrigin; ownKey: TrustedKey };
  /** spec §11: consider prereleases. */
  includePrerelease?: boolean;
}

/** What the plan needs to carry out each item, kept beside the user-facing plan. */
export interface PlanContext {
  plan: Plan;
  /** The range asked for, per explicitly requested id (recorded in state.json). */
  ranges: Map<string, string>;
  located: Map<string, LocatedPackage>;
  sideload: SideloadCandidate | null;
  states: Map<string, PackageState | null>;
}

/** The plan of `arc.plan` and `arc.install`: the request resolved with everything installed kept where it can stay. */
export async function planInstall(core: StoreCore, request: InstallRequest): Promise<PlanContext> {
  // Read the policy first, so an invalid one stops the change before anything else.
  const loaded = await policyForChange(core);
  if (request.file !== undefined) assertSideloadAllowed(loaded, request.file);
  const sideload = request.file === undefined ? null : await inspectSideload(core, request.file, request.added);
  const specs = (request.packages ?? []).map(parseSpec);
  if (sideload !== null) specs.push({ id: sideload.manifest.id, range: `=${sideload.manifest.version}` });
  if (specs.length === 0)
    throw new AdcapError('E_USAGE', 'Nothing to install: name a capability (publisher/name[@range]) or a .adcap file.');
  const roots: Array<{ id: string; range: string }> = specs.map(({ id, range }) => ({ id, range }));
  const explicitIds = new Set(roots.map((r) => r.id));
  const installed = await installedStates(core.home);
  // An installed capability comes only from where it came from, unless this
  // request names another remote for it (an explicit move, shown in the plan).
  const requested = new Map<string, string>();
  for (const spec of specs) {
    const remote = spec.remote ?? (sideload !== null && spec.id === sideload.manifest.id ? undefined : request.remote);
    if (remote === undefined) continue;
    await core.sources.client(remote); // E_NOT_FOUND for a remote that is not configured
    requested.set(spec.id, remote);
  }
  const pins = sourcePins(installed, requested, explicitIds);
  // Installed explicit capabilities keep to the range the user asked for (a sideload to its
  // version), so their dependencies stay satisfied; `preferred` keeps them where they are.
  for (const [id, state] of installed) {
    if (state !== null && state.explicit && !explicitIds.has(id)) roots.push({ id, range: rootRange(state) });
  }
  const preferred: Record<string, string> = {};
  for (const [id, state] of installed) if (state !== null) preferred[id] = state.active;
  const context = await resolvePlan(
    core,
    roots,
    preferred,
    explicitIds,
    installed,
    sideload,
    request.includePrerelease === true,
    false,
    pins,
  );
  for (const root of roots) if (explicitIds.has(root.id)) context.ranges.set(root.id, root.range);
  enforcePolicy(loaded, context);
  return context;
}

/**
 * The plan of `arc.update`: installed capabilities (all, or `ids`) at the newest versions their
 * ranges allow, never a downgrade; `held` ones stay where they are (updating.ts).
 */
export async function planUpdate(
  core: StoreCore,
  ids: string[] | undefined,
  includePrerelease: boolean,
  held: ReadonlySet<string> = new Set(),
  refresh = held.size === 0,
): Promise<PlanContext> {
  const loaded = await policyForChange(core);
  if (refresh) await refreshRemotes(core.sources);
  const installed = await installedStates(core.home);
  const targets = new Set(ids ?? [...installed.keys()]);
  for (const id of targets) {
    if (!installed.has(id))
      throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed, so it cannot be updated; install it with "adcap install ${id}".`);
  }
  for (const id of held) targets.delete(id);
  const roots: Array<{ id: string; range: string }> = [];
  const preferred: Record<string, string> = {};
  for (const [id, state] of installed) {
    if (state === null) continue;
    const sideloaded = state.versions[state.active]?.source.kind === 'file';
    if (state.explicit) roots.push({ id, range: rootRange(state) });
    if (!targets.has(id) || sideloaded) preferred[id] = state.active;
  }
  // Dependencies of updated capabilities may move too; everything else stays where it is. Every
  // installed capability updates only from the registry it came from.
  // An update never moves to a version the policy blocks (it stays, or takes a newer allowed one).
  const skip = (id: string, version: string): boolean =>
    loaded !== null && installed.get(id)?.active !== version && blockedBy(loaded.policy, id, version) !== undefined;
  const context = await resolvePlan(
    core,
    roots,
    preferred,
    new Set(),
    installed,
    null,
    includePrerelease,
    true,
    sourcePins(installed, new Map(), new Set()),
    skip,
  );
  enforcePolicy(loaded, context);
  return context;
}

/** Blocked ids and versions, denied permissions, sideload, unsigned and registries. */
function enforcePolicy(loaded: LoadedPolicy | null, context: PlanContext): void {
  enforcePlan(loaded, context.plan, (name) => [...context.located.values()].find((l) => l.remote === name)?.client.remote);
}

async function resolvePlan(
  core: StoreCore,
  roots: Array<{ id: string; range: string }>,
  preferred: Record<string, string>,
  explicitIds: Set<string>,
  installed: Map<string, PackageState | null>,
  sideload: SideloadCandidate | null,
  includePrerelease: boolean,
  isUpdate: boolean,
  pins: ReadonlyMap<string, string | null>,
  skip?: (id: string, version: string) => boolean,
): Promise<PlanContext> {
  const tolerate = new Set([...installed.keys()].filter((id) => !explicitIds.has(id)));
  const located = await core.sources.closure(
    roots
      .map((r) => r.id)
      .filter((id) => id !== sideload?.manifest.id)
      .concat(sideload === null ? [] : Object.keys(sideload.manifest.dependencies ?? {})),
    pins,
    { tolerate },
  );
  // An installed version stays resolvable although no configured registry lists it (a sideload,
  // or a remote that was removed): its own manifest says what it needs.
  const installedCandidates = new Map<string, CandidateVersion>();
  for (const [id, manifest] of await activeManifests(core.home, installed)) {
    if (manifest !== null) installedCandidates.set(id, candidateOfManifest(manifest));
  }
  const available = (id: string): CandidateVersion[] => {
    if (sideload !== null && id === sideload.manifest.id) return [candidateOfManifest(sideload.manifest)];
    const versions: CandidateVersion[] = Object.values(located.get(id)?.doc.versions ?? {}).map(candidateOf);
    const kept = installedCandidates.get(id);
    if (kept === undefined) return skip === undefined ? versions : versions.filter((v) => !skip(id, v.version));
    // The installed version may stay where it is even when its registry has
    // since yanked or revoked it (it is reported by doctor and list, and offered for update),
    // so it never makes unrelated work unresolvable. It is never newly chosen: the resolver
    // prefers it only for the capability that has it installed.
    const all = [...versions.filter((v) => v.version !== kept.version), kept];
    // `skip` (versions the policy blocks) never drops the installed one.
    return skip === undefined ? all : all.filter((v) => !skip(id, v.version));
  };
  // An installed capability nothing can resolve any more (its registry gone and
  // its installed manifest unreadable: doctor reports it) is no root of unrelated work.
  const resolvable = roots.filter((r) => explicitIds.has(r.id) || !installed.has(r.id) || available(r.id).length > 0);
  // spec §11 compat.runtimes is the only rule that reads the interpreters' versions (`node
  // --version`, `python3 --version`: child processes, and a pyenv shim takes seconds). They are
  // asked only when some version this resolution could choose declares it; otherwise no answer
  // could change the outcome.
  const candidates = [
    ...[...located.values()].flatMap((l) => Object.values(l.doc.versions).map(candidateOf)),
    ...installedCandidates.values(),
    ...(sideload === null ? [] : [candidateOfManifest(sideload.manifest)]),
  ];
  const host = candidates.some((c) => c.compat?.runtimes !== undefined) ? await core.hostEnvironment() : core.hostWithoutProbe();
  const resolution = resolve({ roots: resolvable, available, installed: preferred, host, includePrerelease });
  const items: PlanItem[] = [];
  for (const id of resolution.order) {
    const version = resolution.versions[id] as string;
    const state = installed.get(id) ?? null;
    const isSideload = sideload !== null && id === sideload.manifest.id;
    const place = isSideload ? undefined : located.get(id);
    const previousSource =
      state === null
        ? undefined
        : movedFrom(
            state,
            isSideload
              ? { kind: 'file', file: sideload.file }
              : place === undefined
                ? undefined
                : { kind: 'registry', remote: place.remote },
          );
    if (state !== null && state.active === version && previousSource === undefined) continue;
    const action: PlanAction =
      state === null
        ? 'install'
        : semver.gt(version, state.active)
          ? 'upgrade'
          : semver.lt(version, state.active)
            ? 'downgrade'
            : 'reinstall';
    if (isUpdate && action === 'downgrade') continue;
    const explicit = explicitIds.has(id) || (state?.explicit ?? false);
    const granted = state?.grants ?? [];
    const moved = previousSource === undefined ? {} : { previousSource };
    if (isSideload) {
      items.push({ ...sideloadItem(sideload, action, state, explicit, granted), ...moved });
      continue;
    }
    const entry = place?.doc.versions[version];
    if (place === undefined || entry === undefined) throw new AdcapError('E_NOT_FOUND', `No configured registry has ${id}@${version}.`);
    const kept = state?.versions[version];
    if (kept !== undefined && kept.manifestSha256 !== entry.manifestSha256) {
      // A version still on disk is reused, not extracted again: a move must not relabel it.
      throw new AdcapError(
        'E_USAGE',
        `${id} ${version} from registry "${place.remote}" is a different package than the ${version} ` +
          `installed from ${previousSource === undefined ? 'before' : describeSource(previousSource)}; ` +
          `uninstall ${id} first to switch, or install another version.`,
        { details: { id, version } },
      );
    }
    const compat = checkCompatibility(candidateOf(entry), host);
    if (!compat.ok) throw new AdcapError('E_INCOMPATIBLE', compat.reason, { details: { id, version } });
    const cached = await core.cache.has(entry.archive.sha256, entry.archive.size);
    items.push({ ...registryItem(place, entry, action, state, explicit, granted, cached ? 0 : entry.archive.size), ...moved });
  }
  const kept: string[] = [];
  for (const [id, version] of Object.entries(resolution.versions)) {
    const entry = located.get(id)?.doc.versions[version];
    if (entry?.status === 'revoked' && installed.get(id)?.active === version) {
      kept.push(
        `${id} ${version} stays installed but was revoked by its registry ` +
          `(${entry.statusReason ?? 'no reason given'}); its tools do not run. Update or uninstall it.`,
      );
    }
  }
  const plan = finishPlan(items, resolution.versions, kept, { canAuthorize: core.authorize !== undefined });
  return { plan, ranges: new Map(), located, sideload, states: installed };
}

export function normalizeRequest(request: InstallRequest | PackageSpec | PackageSpec[]): InstallRequest {
  if (typeof request === 'string') return { packages: [request] };
  if (Array.isArray(request)) return { packages: request };
  if ('id' in request) return { packages: [request] };
  return request;
}

/** `publisher/name`, `publisher/name@range`, each optionally after `remote:`. */
function parseSpec(spec: PackageSpec): { id: string; range: string; remote?: string } {
  if (typeof spec !== 'string') {
    parseCapabilityId(spec.id);
    if (spec.remote !== undefined) assertRemoteName(spec.remote);
    return { id: spec.id, range: spec.range ?? '*', ...(spec.remote === undefined ? {} : { remote: spec.remote }) };
  }
  const colon = spec.indexOf(':');
  const slash = spec.indexOf('/');
  const remote = colon >= 0 && (slash < 0 || colon < slash) ? spec.slice(0, colon) : undefined;
  if (remote !== undefined) assertRemoteName(remote);
  const rest = remote === undefined ? spec : spec.slice(colon + 1);
  const at = rest.indexOf('@');
  const id = at < 0 ? rest : rest.slice(0, at);
  const range = at < 0 ? '*' : rest.slice(at + 1);
  parseCapabilityId(id);
  if (semver.validRange(range) === null)
    throw new AdcapError('E_USAGE', `"${range}" in "${spec}" is not a semver range (try ^1.2.0, ~1.2, 1.2.3 or *).`);
  return { id, range, ...(remote === undefined ? {} : { remote }) };
}
