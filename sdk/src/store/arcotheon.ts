import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import type { AuthorizeFn } from '../cache/authorize.js';
import { ContentCache, type GcResult } from '../cache/content-cache.js';
import { parseShardMap } from '../cache/shardset.js';
import { resolveUrl, type FetchLike } from '../cache/fetch.js';
import type { SourcePolicy } from '../cache/source-policy.js';
import { isLazy, materializeResource } from '../cache/resource.js';
import { AdcapError, isAdcapError } from '../errors.js';
import type { ArchiveLimits } from '../format/archive/limits.js';
import type { Manifest, Permission } from '../format/manifest-types.js';
import { validateManifest } from '../format/manifest.js';
import { validateWorkflowFiles } from '../format/workflow-doc.js';
import { readPackage } from '../format/package-read.js';
import { skillProgramsOf, type SkillPrograms } from '../format/skill-repo.js';
import { parseStrictJson } from '../format/strict-json.js';
import { grantCovers, grantString, parseGrant } from '../permissions/index.js';
import { parseCapabilityId } from '../registry/layout.js';
import { shippedRemote } from '../registry/embedded.js';
import { assertRemoteName, normalizeRemoteUrl, type RemoteConfig } from '../registry/remotes.js';
import { compareSearchHits, type SearchFilters, type SearchHit } from '../registry/search.js';
import type { DocumentVersion, PackageDocument } from '../registry/types.js';
import { checkCompatibility, hostPlatform } from '../resolve/compat.js';
import { resolve } from '../resolve/resolver.js';
import { detectRuntimes } from '../resolve/runtimes.js';
import type { CandidateVersion, HostEnvironment } from '../resolve/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { checkPackageSignature, verifyPackage } from '../trust/package-signature.js';
import type { TrustedKey } from '../trust/keys.js';
import { removeTree } from '../util/fs-tree.js';
import { withLock } from '../util/lock.js';
import type { Progress } from '../util/progress.js';
import { agentsStatus, linkSkillsLocked, mcpRegistrations, syncLinks, unlinkSkillsLocked, type AgentStatus, type LinkOptions, type LinkResult, type McpRegistration, type UnlinkResult } from './agent-links.js';
import { checkApplyOptions, checkArcotheonOptions, checkId, checkIds, checkInstallRequest } from './arguments.js';
import { runDoctor, type DoctorOptions, type DoctorReport } from './doctor.js';
import { disableCapability, enableCapability, type EnablementHook, type EnablementResult } from './enablement.js';
import { loadPolicy, blockedBy, assertGrantsAllowed, assertNotBlocked, assertNotRequired, assertSideloadAllowed, type LoadedPolicy, type LoadPolicyOptions } from './policy.js';
import { applyPolicy, enforcePlan, managedMark, policyFindings, policyForChange, policyForReading, policyRemotes, type ManagedMark, type PolicyApplyResult } from './policy-enforce.js';
import { HomeLayout } from './home.js';
import { addRevocation, clearRevocations, grantsAfterRollback } from './grant-revocations.js';
import { describeSource, finishPlan, newPermissionsOf, type Plan, type PlanAction, type PlanItem, type PlanSource } from './plan.js';
import { candidateOf, RegistrySources, type LocatedPackage } from './sources.js';
import { packageIdsOnDisk, readState, type DisabledMark, type InstallSource, type PackageState, type VersionRecord } from './state.js';
import { recoverOperations, runOperation, type VersionToCreate } from './transaction.js';
import { PreparedVersions } from './prepared-versions.js';
import { dependentsWithin, waitingUpdates } from './update-split.js';
import { callHost, cancelledError, explainCancel, GuardedListener } from '../util/host-call.js';
import { revocationReason } from './revocations.js';

export interface HostInfo {
  /** `${os}-${arch}`; defaults to this process's. */
  platform?: string;
  agent: { id: string; version: string };
}

export interface ArcotheonOptions {
  /** The home directory (DESIGN §6), inside the host app's data directory. */
  home: string;
  /**
   * Pinned root keys (base64) for default remotes that do not carry their own, and for the
   * registry the SDK ships when `remotes` is left out (host contract: `ARCOTHEON_ROOT_KEYS`).
   */
  rootKeys?: readonly string[];
  /**
   * Remotes the host ships; config.json entries of the same name win (issue 7). Left out, the
   * registry the SDK ships is the default remote (issue 12 item 1); `[]` means none.
   */
  remotes?: Array<{ name: string; url: string; rootKeys?: readonly string[]; minSequence?: number; maxCatalogAgeMs?: number | null }>;
  host: HostInfo;
  /**
   * spec §12: obtains authorisation for entitled downloads; null denies. It is asked only about
   * URLs on the installing registry, never about a URL a publisher chose (issue 11, item 13).
   */
  authorize?: AuthorizeFn;
  /**
   * Origins such as `https://mirror.intranet:8443` that resource and shard sources may use
   * although they are on this computer or a private network (issue 11, item 3: otherwise only
   * public https and the installing registry are fetched for a publisher).
   */
  sourceOrigins?: string[];
  fetch?: FetchLike;
  limits?: {
    /** DESIGN §10 (default 30 days). */
    maxCatalogAgeMs?: number;
    /** Previous versions kept for rollback (default 2). */
    keepVersions?: number;
    /** How long to wait for another process's operation before E_LOCKED (default 30 s). */
    lockWaitMs?: number;
    /**
     * A stored catalogue checked longer ago than this is fetched again before it is used, by
     * search, install, doctor and each tool run (default 1 hour; issue 12 item 9).
     */
    refreshAfterMs?: number;
    archive?: Partial<ArchiveLimits>;
  };
  /** Interpreter versions to assume instead of probing this computer (tests, hosts that ship their own). */
  runtimes?: HostEnvironment['runtimes'];
  /**
   * How tools are sandboxed (DESIGN §5). By default the platform's sandbox (bubblewrap, sandbox-exec)
   * and E_SANDBOX_UNAVAILABLE without one; `use` replaces it with the host's own. `optOut` names
   * capabilities the host ships itself, which then always run without a sandbox (host contract:
   * "only for capabilities it ships itself"; the host carries that risk).
   */
  sandbox?: SandboxChoice;
  /**
   * The host's tier check, called before each tool run (host contract "Free and Pro": the SDK
   * trusts the host here). Return false (or a promise of false) to refuse the run: E_ENTITLEMENT.
   */
  checkTier?: (capability: { id: string; version: string; tier: 'free' | 'pro' }) => boolean | Promise<boolean>;
  now?: () => Date;
  /**
   * Where the organisation policy is read from (issue 17, docs/admin.md). Default: ARCOTHEON_POLICY
   * in process.env, else the system location. A host that ships its own policy passes
   * `{ env: { ARCOTHEON_POLICY: path } }`.
   */
  policy?: LoadPolicyOptions;
  /**
   * Called after a capability is disabled or enabled, inside the home lock (issue 17: skills are
   * unlinked from agents while a capability is disabled, and linked again when it is enabled).
   */
  onEnablement?: EnablementHook;
}

export interface SandboxChoice {
  /** The host's own sandbox, used instead of the platform's (see `Sandbox`). */
  use?: Sandbox;
  /**
   * Capabilities the host ships itself: their tools always run without a sandbox (`sandbox:
   * 'none'` in the result). Capability ids, or a predicate over the id.
   */
  optOut?: string[] | ((id: string) => boolean);
}

/**
 * `publisher/name[@range]`, or `remote:publisher/name[@range]` to install from that remote (moving
 * an installed capability there: issue 11, item 1); the object form has the same three parts.
 */
export type PackageSpec = string | { id: string; range?: string; remote?: string };

export interface InstallRequest {
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
  /** spec §11: consider prereleases. */
  includePrerelease?: boolean;
}

export type LifecycleProgress = Progress & { item?: string };

export interface ApplyOptions {
  /** Asked with the exact plan; nothing is installed unless it returns true (host contract, "Install"). */
  approve?: (plan: Plan) => boolean | Promise<boolean>;
  /** Alternatively, the digest of a plan the user approved earlier; a different plan is refused. */
  approvedDigest?: string;
  /** The extra confirmation an unsigned or unknown-signer sideload needs. */
  allowUnsigned?: boolean;
  onProgress?: (progress: LifecycleProgress) => void;
  signal?: AbortSignal;
}

export interface ApplyResult {
  plan: Plan;
  applied: boolean;
  installed: Array<{ id: string; version: string }>;
}

export interface UpdateResult extends ApplyResult {
  /**
   * True when some update needs permissions nobody approved: those wait (listed in `waiting`),
   * while the plain updates of other capabilities were applied (issue 12 item 7). `plan` is then
   * what is left to approve: show it, and pass its digest as `approvedDigest` to the next update().
   */
  needsApproval: boolean;
  /** Updates that wait for the user's approval of new permissions; `update(ids, { approve })` applies them. */
  waiting: WaitingUpdate[];
  /**
   * Installed capabilities kept where they are by the range the user asked for, although newer
   * versions exist (issue 12 item 10), with the request that moves to the newest.
   */
  pinned: PinnedUpdate[];
}

export interface WaitingUpdate {
  id: string;
  from?: string;
  version: string;
  /** The permissions to approve (`id[:scope]`); empty for an update held back by one that waits. */
  newPermissions: string[];
}

export interface PinnedUpdate {
  id: string;
  version: string;
  /** The range in state.json that keeps it there. */
  range: string;
  /** The newest version the registry offers. */
  latest: string;
  /** What to install to move to `latest` ("acme/lib@^2.0.0"). */
  request: string;
}

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

interface SideloadCandidate {
  file: string;
  manifest: Manifest;
  manifestSha256: string;
  archiveSha256: string;
  size: number;
  unsigned: boolean;
  unknownSigner: boolean;
  signedBy: string[];
  trusted: TrustedKey[];
}

/** What the plan needs to carry out each item, kept beside the user-facing plan. */
interface PlanContext {
  plan: Plan;
  /** The range asked for, per explicitly requested id (recorded in state.json). */
  ranges: Map<string, string>;
  located: Map<string, LocatedPackage>;
  sideload: SideloadCandidate | null;
  states: Map<string, PackageState | null>;
}

/**
 * The SDK's host-facing object (host contract "Embedding", DESIGN §7): discovery, plan and
 * approval, install, grants, update, rollback, uninstall and doctor over one home directory.
 */
export class Arcotheon {
  readonly home: HomeLayout;
  readonly cache: ContentCache;
  readonly sources: RegistrySources;
  private readonly options: ArcotheonOptions;
  private hostEnv: Promise<HostEnvironment> | undefined;

  constructor(options: ArcotheonOptions) {
    checkArcotheonOptions(options);
    this.options = options;
    this.home = new HomeLayout(options.home);
    this.cache = new ContentCache(join(this.home.cacheDir), options.fetch === undefined ? {} : { fetch: options.fetch });
    const defaults: RemoteConfig[] = options.remotes === undefined
      ? defaultRemotes(options.rootKeys)
      : options.remotes.map((r) => ({
          name: r.name,
          url: normalizeRemoteUrl(r.url),
          rootKeys: [...(r.rootKeys ?? options.rootKeys ?? [])],
          ...(r.minSequence === undefined ? {} : { minSequence: r.minSequence }),
          ...(r.maxCatalogAgeMs === undefined ? {} : { maxCatalogAgeMs: r.maxCatalogAgeMs }),
        }));
    for (const remote of defaults) {
      if (remote.rootKeys.length === 0) throw new AdcapError('E_USAGE', `The default remote "${remote.name}" has no pinned root key; pass rootKeys.`);
    }
    this.sources = new RegistrySources({
      home: options.home,
      defaults,
      // issue 17: when the policy lists registries, they are the ones in force.
      policyRemotes: async () => policyRemotes((await policyForReading(this)).loaded),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.limits?.maxCatalogAgeMs === undefined ? {} : { maxCatalogAgeMs: options.limits.maxCatalogAgeMs }),
      ...(options.limits?.refreshAfterMs === undefined ? {} : { refreshAfterMs: options.limits.refreshAfterMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /** The environment capabilities are checked against (spec §11). */
  hostEnvironment(): Promise<HostEnvironment> {
    this.hostEnv ??= (async () => ({
      platform: this.options.host.platform ?? hostPlatform(),
      agent: this.options.host.agent,
      runtimes: this.options.runtimes ?? (await detectRuntimes()),
    }))();
    return this.hostEnv;
  }

  get authorize(): AuthorizeFn | undefined {
    return this.options.authorize;
  }

  /**
   * The rules for publisher-chosen URLs of a version (resources, shards; issue 11, items 3 and 13):
   * the installing registry's URL (null for a sideload or a removed remote) and the host's allowed
   * private origins.
   */
  async sourcePolicy(source: InstallSource | undefined): Promise<SourcePolicy> {
    let registry: string | null = null;
    if (source?.kind === 'registry') {
      registry = await this.sources.client(source.remote).then(
        (client) => client.remote.url,
        (error: unknown) => {
          if (isAdcapError(error)) return null;
          throw error;
        },
      );
    }
    return { registry, allowedOrigins: this.options.sourceOrigins ?? [] };
  }

  get sandboxChoice(): SandboxChoice {
    return this.options.sandbox ?? {};
  }

  get checkTier(): ArcotheonOptions['checkTier'] {
    return this.options.checkTier;
  }

  get enablementHook(): EnablementHook | undefined {
    return this.options.onEnablement;
  }

  // ---------------------------------------------------------------- organisation policy (issue 17)

  /** The policy in force, read now (never cached): null when none; E_POLICY when it is invalid. */
  policyInForce(): Promise<LoadedPolicy | null> {
    return loadPolicy(this.options.policy ?? {});
  }

  /**
   * Brings this home in line with the policy: blocked capabilities disabled, required ones
   * installed, enabled and updated (their permissions granted by the policy), and with
   * `updates.automatic` the updates that need no new permission applied. Hosts call it at start-up.
   */
  applyPolicy(): Promise<PolicyApplyResult> {
    return applyPolicy(this, this.nowIso());
  }

  // ---------------------------------------------------------------- enable and disable (issue 17)

  /** Switches a capability off, keeping its files, versions, grants and data; refuses a required one. */
  async disable(id: string): Promise<EnablementResult> {
    return this.withHome(`disable ${id}`, async () => disableCapability(this, id, await policyForChange(this), this.nowIso(), this.options.onEnablement));
  }

  /** Switches a disabled capability back on; refuses one whose installed version the policy blocks. */
  async enable(id: string): Promise<EnablementResult> {
    return this.withHome(`enable ${id}`, async () => enableCapability(this, id, await policyForChange(this), this.options.onEnablement));
  }

  private nowIso(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  // ---------------------------------------------------------------- discovery (metadata only)

  /** Searches every remote (or only `filters.remote`); the first remote listing an id wins. */
  async search(query: string, filters: Omit<SearchFilters, 'installedIds'> & { remote?: string } = {}): Promise<Array<SearchHit & { remote: string }>> {
    if (typeof query !== 'string') throw new AdcapError('E_USAGE', 'search() takes the words to look for as a string ("" lists everything).', { details: { argument: 'query' } });
    const installedIds = new Set((await this.list()).map((c) => c.id));
    const seen = new Set<string>();
    const hits: Array<SearchHit & { remote: string }> = [];
    const { remote, ...catalogueFilters } = filters;
    for (const client of await this.sources.clients()) {
      if (remote !== undefined && client.remote.name !== remote) continue;
      for (const hit of await client.search(query, { ...catalogueFilters, installedIds, limit: undefined })) {
        if (seen.has(hit.id)) continue;
        seen.add(hit.id);
        hits.push({ ...hit, remote: client.remote.name });
      }
    }
    hits.sort(compareSearchHits);
    return filters.limit === undefined ? hits : hits.slice(0, filters.limit);
  }

  /** The verified package document of a capability (every version and its status). */
  async packageDoc(id: string, options: { remote?: string } = {}): Promise<PackageDocument & { remote: string }> {
    checkId(id, 'packageDoc');
    parseCapabilityId(id);
    // An installed capability is shown as its own registry has it (issue 11, item 1).
    const state = await readState(this.home, id).catch(() => null);
    const installedFrom = state?.versions[state.active]?.source;
    const where = options.remote !== undefined ? { only: options.remote } : installedFrom?.kind === 'registry' ? { prefer: installedFrom.remote } : {};
    const located = await this.sources.locate(id, where);
    if (located === null) throw new AdcapError('E_NOT_FOUND', `No configured registry has ${id}; check the id with "adcap search".`);
    return { ...located.doc, remote: located.remote };
  }

  // ---------------------------------------------------------------- installed state

  async list(): Promise<InstalledCapability[]> {
    const out: InstalledCapability[] = [];
    const { loaded } = await policyForReading(this);
    for (const id of await this.installedIds()) {
      const state = await readState(this.home, id);
      if (state === null) continue;
      const record = state.versions[state.active];
      const source = record?.source ?? { kind: 'registry', remote: '?', signedBy: [] };
      const status = source.kind === 'file' ? (source.unsigned ? 'unsigned' : source.unknownSigner ? 'unknown-signer' : 'sideloaded') : 'ok';
      // Issue 12 item 6: a revoked install is shown as such (from the stored catalogue, offline).
      const revoked = await revocationReason({ sources: this.sources, home: this.home.root }, id, state, { refresh: 'never' });
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

  /** Installed capabilities: package directories with a readable state.json. */
  async installedIds(): Promise<string[]> {
    const ids: string[] = [];
    for (const id of await packageIdsOnDisk(this.home, { withState: true })) {
      if (await readState(this.home, id).catch(() => null)) ids.push(id);
    }
    return ids;
  }

  async state(id: string): Promise<PackageState> {
    checkId(id, 'state');
    parseCapabilityId(id);
    const state = await readState(this.home, id);
    if (state === null) throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed; install it with "adcap install ${id}".`);
    return state;
  }

  /** Directory of the active installed version (host contract "Skills"). */
  async installedDir(id: string): Promise<string> {
    const state = await this.state(id);
    return this.home.versionDir(id, state.active);
  }

  /** The manifest of the active installed version, re-validated from disk. */
  async installedManifest(id: string): Promise<Manifest> {
    const state = await this.state(id);
    return this.readInstalledManifest(id, state.active);
  }

  async readInstalledManifest(id: string, version: string): Promise<Manifest> {
    const path = join(this.home.versionDir(id, version), 'capability.json');
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (cause) {
      throw new AdcapError('E_MISSING', `The installed files of ${id}@${version} are missing; run "adcap doctor --fix" to reinstall them.`, { cause });
    }
    return validateManifest(parseStrictJson(bytes, `capability.json of ${id}@${version}`));
  }

  // ---------------------------------------------------------------- grants

  async grants(id: string): Promise<{ granted: string[]; declared: Permission[] }> {
    const state = await this.state(id);
    const manifest = await this.readInstalledManifest(id, state.active);
    return { granted: state.grants, declared: manifest.permissions ?? [] };
  }

  /** Withdraws a grant; the tools that need it stop running (E_NOT_GRANTED) until it is granted again. */
  async revokeGrant(id: string, grant: string): Promise<string[]> {
    parseGrant(grant);
    return this.changeGrants(
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

  /** Grants a permission the capability declares (spec §6: never more than it declares). */
  async grant(id: string, grant: string): Promise<string[]> {
    parseGrant(grant);
    const manifest = await this.installedManifest(id);
    const declared = (manifest.permissions ?? []).map(grantString);
    if (!declared.includes(grant)) {
      throw new AdcapError('E_NOT_GRANTED', `${id} does not declare the permission "${grant}", so it cannot be granted (spec §6); it declares: ${declared.join(', ') || 'nothing'}.`);
    }
    assertGrantsAllowed(await policyForChange(this), [{ id, grant }]);
    return this.changeGrants(
      id,
      (grants) => (grants.includes(grant) ? grants : [...grants, grant].sort()),
      (revoked) => clearRevocations(revoked, [grant]),
    );
  }

  private async changeGrants(id: string, change: (grants: string[]) => string[], changeRevoked: (revoked: string[] | undefined) => string[]): Promise<string[]> {
    return this.withHome(`grants ${id}`, async () => {
      const state = await this.state(id);
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
      await runOperation(this.home, { op: 'grants', before: { [id]: state }, after: { [id]: after }, creates: [] });
      return grants;
    });
  }

  // ---------------------------------------------------------------- plan and install

  /** What installing `request` would do, for the approval dialog. Changes nothing. */
  async plan(request: InstallRequest | PackageSpec | PackageSpec[]): Promise<Plan> {
    checkInstallRequest(request, 'plan');
    return (await this.planInstall(normalizeRequest(request))).plan;
  }

  /** Installs exactly the plan the user approved (host contract: reject unless the user confirms). */
  async install(request: InstallRequest | PackageSpec | PackageSpec[], options: ApplyOptions = {}): Promise<ApplyResult> {
    checkInstallRequest(request, 'install');
    checkApplyOptions(options, 'install');
    const normalized = normalizeRequest(request);
    return this.cancellable('The install', options.signal, () =>
      this.withHome('install', async () => {
        const context = await this.planInstall(normalized);
        await this.requireApproval(context, options, true);
        return this.apply(context, 'install', options);
      }),
    );
  }

  /**
   * Updates installed capabilities (all, or `ids`) to the newest versions their constraints allow.
   * spec §6: an update that needs permissions the user has not granted is not applied unless
   * `approve` accepts the plan that lists them. Issue 12 item 7: without `approve`, such updates
   * wait (`waiting`) while the plain updates of other capabilities are applied; `plan` is then what
   * is left to approve (its digest is the next update's). Issue 12 item 10: capabilities that the
   * range the user asked for keeps below the newest version are listed in `pinned`.
   */
  async update(ids?: string[], options: ApplyOptions & { includePrerelease?: boolean } = {}): Promise<UpdateResult> {
    checkIds(ids, 'update');
    checkApplyOptions(options, 'update');
    return this.cancellable('The update', options.signal, () =>
      this.withHome('update', async () => {
        const prerelease = options.includePrerelease === true;
        const context = await this.planUpdate(ids, prerelease);
        const { plan } = context;
        const pinned = await this.pinnedUpdates(context, ids, prerelease);
        if (plan.items.length === 0) return { plan, applied: false, installed: [], needsApproval: false, waiting: [], pinned };
        if (options.approve !== undefined || options.approvedDigest !== undefined) {
          await this.requireApproval(context, options, false);
          return { ...(await this.apply(context, 'update', options)), needsApproval: plan.newPermissions.length > 0, waiting: [], pinned };
        }
        if (plan.newPermissions.length === 0) return { ...(await this.apply(context, 'update', options)), needsApproval: false, waiting: [], pinned };
        // Hold back what needs approval (and what cannot move without it); apply the rest.
        const plain = await this.planPlainUpdate(context, ids, prerelease);
        const waiting = waitingUpdates(plan, plain.plan);
        if (plain.plan.items.length === 0) return { plan, applied: false, installed: [], needsApproval: true, waiting, pinned };
        const applied = await this.apply(plain, 'update', options);
        // `plan` is what is left: the plan the next update() carries out, so a host can show it and
        // pass its digest back as `approvedDigest`.
        const remaining = (await this.planUpdate(ids, prerelease, new Set(), false)).plan;
        return { plan: remaining, applied: applied.applied, installed: applied.installed, needsApproval: true, waiting, pinned };
      }),
    );
  }

  /**
   * The part of an update that needs no new permission: items asking for permissions are kept at
   * their installed version, and so is every target whose new version depends on one of them,
   * until the plan asks for nothing new (each round holds at least one more capability back).
   */
  private async planPlainUpdate(full: PlanContext, ids: string[] | undefined, includePrerelease: boolean): Promise<PlanContext> {
    const held = new Set<string>();
    let context = full;
    for (;;) {
      const asking = context.plan.items.filter((i) => i.newPermissions.length > 0).map((i) => i.id);
      if (asking.length === 0) return context;
      const before = held.size;
      for (const id of dependentsWithin(context, new Set(asking))) held.add(id);
      if (held.size === before) return { ...context, plan: finishPlan([], context.plan.versions) };
      context = await this.planUpdate(ids, includePrerelease, held);
    }
  }

  /** Issue 12 item 10: installed explicit targets the user's range keeps below a newer version. */
  private async pinnedUpdates(context: PlanContext, ids: string[] | undefined, includePrerelease: boolean): Promise<PinnedUpdate[]> {
    const host = await this.hostEnvironment();
    const out: PinnedUpdate[] = [];
    for (const [id, state] of context.states) {
      if (state === null || !state.explicit || (ids !== undefined && !ids.includes(id))) continue;
      if (state.versions[state.active]?.source.kind === 'file') continue;
      const range = state.range ?? '*';
      const doc = context.located.get(id)?.doc;
      if (doc === undefined) continue;
      const newer = Object.values(doc.versions)
        .filter((v) => v.status === undefined && semver.gt(v.version, state.active) && (includePrerelease || semver.prerelease(v.version) === null))
        .filter((v) => !semver.satisfies(v.version, range, { includePrerelease }) && checkCompatibility(candidateOf(v), host).ok)
        .map((v) => v.version)
        .sort(semver.rcompare);
      const latest = newer[0];
      const chosen = context.plan.versions[id] ?? state.active;
      if (latest === undefined || semver.gte(chosen, latest)) continue;
      out.push({ id, version: chosen, range, latest, request: `${id}@^${latest}` });
    }
    return out;
  }

  /** Runs an operation that `signal` may cancel: checked before it starts, and E_CANCELLED after. */
  private async cancellable<T>(what: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    if (signal?.aborted === true) throw cancelledError(what);
    try {
      return await fn();
    } catch (error) {
      throw explainCancel(error, signal, what);
    }
  }

  private async requireApproval(context: PlanContext, options: ApplyOptions, always: boolean): Promise<void> {
    const { plan } = context;
    if (plan.items.length === 0) return;
    const risky = plan.items.filter((i) => i.source.kind === 'file' && (i.source.unsigned || i.source.unknownSigner));
    if (risky.length > 0 && options.allowUnsigned !== true) {
      throw new AdcapError(
        'E_DENIED',
        `${risky.map((i) => `${i.id}@${i.version}`).join(', ')} is ${risky[0]?.source.kind === 'file' && risky[0].source.unsigned ? 'not signed' : 'signed by an unknown key'}; installing it needs your explicit extra confirmation (allowUnsigned, or --allow-unsigned).`,
      );
    }
    if (options.approvedDigest !== undefined) {
      if (options.approvedDigest !== plan.digest) {
        throw new AdcapError('E_DENIED', 'The plan changed since it was approved (the registry or the installed set changed); review the new plan and approve it again.', {
          details: { approved: options.approvedDigest, current: plan.digest },
        });
      }
      if (options.approve === undefined) return;
    }
    if (options.approve === undefined) {
      if (always) throw new AdcapError('E_DENIED', 'Installing needs the user\'s approval of the plan; pass an approve callback (or --yes on the command line).');
      return;
    }
    // Hand the callback a copy, so it cannot change what gets installed after approving it.
    const approve = options.approve;
    const approved = await callHost('approve', () => approve(structuredClone(plan)));
    if (approved !== true) throw new AdcapError('E_DENIED', 'The plan was not approved, so nothing was installed.');
  }

  private async planInstall(request: InstallRequest): Promise<PlanContext> {
    // issue 17: read the policy first, so an invalid one stops the change before anything else.
    const loaded = await policyForChange(this);
    if (request.file !== undefined) assertSideloadAllowed(loaded, request.file);
    const sideload = request.file === undefined ? null : await this.inspectSideload(request.file);
    const specs = (request.packages ?? []).map(parseSpec);
    if (sideload !== null) specs.push({ id: sideload.manifest.id, range: `=${sideload.manifest.version}` });
    if (specs.length === 0) throw new AdcapError('E_USAGE', 'Nothing to install: name a capability (publisher/name[@range]) or a .adcap file.');
    const roots: Array<{ id: string; range: string }> = specs.map(({ id, range }) => ({ id, range }));
    const explicitIds = new Set(roots.map((r) => r.id));
    const installed = await this.installedStates();
    // Issue 11, item 1: an installed capability comes only from where it came from, unless this
    // request names another remote for it (an explicit move, shown in the plan).
    const requested = new Map<string, string>();
    for (const spec of specs) {
      const remote = spec.remote ?? (sideload !== null && spec.id === sideload.manifest.id ? undefined : request.remote);
      if (remote === undefined) continue;
      await this.sources.client(remote); // E_NOT_FOUND for a remote that is not configured
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
    const context = await this.resolvePlan(roots, preferred, explicitIds, installed, sideload, request.includePrerelease === true, false, pins);
    for (const root of roots) if (explicitIds.has(root.id)) context.ranges.set(root.id, root.range);
    this.enforcePolicy(loaded, context);
    return context;
  }

  private async planUpdate(ids: string[] | undefined, includePrerelease: boolean, held: ReadonlySet<string> = new Set(), refresh = held.size === 0): Promise<PlanContext> {
    const loaded = await policyForChange(this);
    if (refresh) await this.refreshRemotes();
    const installed = await this.installedStates();
    const targets = new Set(ids ?? [...installed.keys()]);
    for (const id of targets) {
      if (!installed.has(id)) throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed, so it cannot be updated; install it with "adcap install ${id}".`);
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
    // installed capability updates only from the registry it came from (issue 11, item 1).
    // issue 17: an update never moves to a version the policy blocks (it stays, or takes a newer allowed one).
    const skip = (id: string, version: string): boolean => loaded !== null && installed.get(id)?.active !== version && blockedBy(loaded.policy, id, version) !== undefined;
    const context = await this.resolvePlan(roots, preferred, new Set(), installed, null, includePrerelease, true, sourcePins(installed, new Map(), new Set()), skip);
    this.enforcePolicy(loaded, context);
    return context;
  }

  /** issue 17: blocked ids and versions, denied permissions, sideload, unsigned and registries. */
  private enforcePolicy(loaded: LoadedPolicy | null, context: PlanContext): void {
    enforcePlan(loaded, context.plan, (name) => [...context.located.values()].find((l) => l.remote === name)?.client.remote);
  }

  private async resolvePlan(
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
    const host = await this.hostEnvironment();
    const tolerate = new Set([...installed.keys()].filter((id) => !explicitIds.has(id)));
    const located = await this.sources.closure(
      roots.map((r) => r.id).filter((id) => id !== sideload?.manifest.id).concat(sideload === null ? [] : Object.keys(sideload.manifest.dependencies ?? {})),
      pins,
      { tolerate },
    );
    // An installed version stays resolvable although no configured registry lists it (a sideload,
    // or a remote that was removed): its own manifest says what it needs.
    const installedCandidates = new Map<string, CandidateVersion>();
    for (const [id, manifest] of await this.activeManifests(installed)) {
      if (manifest !== null) installedCandidates.set(id, candidateOfManifest(manifest));
    }
    const available = (id: string): CandidateVersion[] => {
      if (sideload !== null && id === sideload.manifest.id) return [candidateOfManifest(sideload.manifest)];
      const versions: CandidateVersion[] = Object.values(located.get(id)?.doc.versions ?? {}).map(candidateOf);
      const kept = installedCandidates.get(id);
      if (kept === undefined) return skip === undefined ? versions : versions.filter((v) => !skip(id, v.version));
      // Issue 12 item 6: the installed version may stay where it is even when its registry has
      // since yanked or revoked it (it is reported by doctor and list, and offered for update),
      // so it never makes unrelated work unresolvable. It is never newly chosen: the resolver
      // prefers it only for the capability that has it installed.
      const all = [...versions.filter((v) => v.version !== kept.version), kept];
      // issue 17: `skip` (versions the policy blocks) never drops the installed one.
      return skip === undefined ? all : all.filter((v) => !skip(id, v.version));
    };
    // Issue 12 item 6: an installed capability nothing can resolve any more (its registry gone and
    // its installed manifest unreadable: doctor reports it) is no root of unrelated work.
    const resolvable = roots.filter((r) => explicitIds.has(r.id) || !installed.has(r.id) || available(r.id).length > 0);
    const resolution = resolve({ roots: resolvable, available, installed: preferred, host, includePrerelease });
    const items: PlanItem[] = [];
    for (const id of resolution.order) {
      const version = resolution.versions[id] as string;
      const state = installed.get(id) ?? null;
      const isSideload = sideload !== null && id === sideload.manifest.id;
      const place = isSideload ? undefined : located.get(id);
      const previousSource = state === null ? undefined : movedFrom(state, isSideload ? { kind: 'file', file: sideload.file } : place === undefined ? undefined : { kind: 'registry', remote: place.remote });
      if (state !== null && state.active === version && previousSource === undefined) continue;
      const action: PlanAction = state === null ? 'install' : semver.gt(version, state.active) ? 'upgrade' : semver.lt(version, state.active) ? 'downgrade' : 'reinstall';
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
          `${id} ${version} from registry "${place.remote}" is a different package than the ${version} installed from ${previousSource === undefined ? 'before' : describeSource(previousSource)}; uninstall ${id} first to switch, or install another version.`,
          { details: { id, version } },
        );
      }
      const compat = checkCompatibility(candidateOf(entry), host);
      if (!compat.ok) throw new AdcapError('E_INCOMPATIBLE', compat.reason, { details: { id, version } });
      const cached = await this.cache.has(entry.archive.sha256, entry.archive.size);
      items.push({ ...registryItem(place, entry, action, state, explicit, granted, cached ? 0 : entry.archive.size), ...moved });
    }
    const kept: string[] = [];
    for (const [id, version] of Object.entries(resolution.versions)) {
      const entry = located.get(id)?.doc.versions[version];
      if (entry?.status === 'revoked' && installed.get(id)?.active === version) {
        kept.push(`${id} ${version} stays installed but was revoked by its registry (${entry.statusReason ?? 'no reason given'}); its tools do not run. Update or uninstall it.`);
      }
    }
    const plan = finishPlan(items, resolution.versions, kept);
    return { plan, ranges: new Map(), located, sideload, states: installed };
  }

  /**
   * Fetches every remote's catalogue now (an update looks for what is new). A remote that cannot
   * be reached keeps its last verified catalogue; a refused one (an attack) stops the update.
   */
  async refreshRemotes(): Promise<void> {
    for (const client of await this.sources.clients()) {
      try {
        await client.update();
      } catch (error) {
        if (!isAdcapError(error, 'E_DOWNLOAD')) throw error;
      }
    }
  }

  private async installedStates(): Promise<Map<string, PackageState | null>> {
    const map = new Map<string, PackageState | null>();
    for (const id of await this.installedIds()) map.set(id, await readState(this.home, id));
    return map;
  }

  private async inspectSideload(file: string): Promise<SideloadCandidate> {
    const read = await readPackage(file, this.options.limits?.archive === undefined ? {} : { limits: this.options.limits.archive });
    const { publisher } = parseCapabilityId(read.manifest.id);
    const trusted = await this.sources.publisherKeys(publisher);
    let unknownSigner = false;
    let signedBy: string[] = [];
    if (read.signatureBytes !== null) {
      try {
        signedBy = checkPackageSignature(read, { trusted }).signedBy;
      } catch (error) {
        // A signature nobody we know made is labelled, not hidden; a revoked or broken one is refused.
        if (!isAdcapError(error, 'E_UNTRUSTED')) throw error;
        checkPackageSignature(read, {});
        unknownSigner = true;
      }
    }
    return {
      file,
      manifest: read.manifest,
      manifestSha256: read.manifestSha256,
      archiveSha256: read.archiveSha256,
      size: read.size,
      unsigned: read.signatureBytes === null,
      unknownSigner,
      signedBy,
      trusted,
    };
  }

  /**
   * Downloads, verifies and switches in every item of the plan under one journal record. A throw
   * from the host's onProgress is reported as such (E_HOST_CALLBACK), whatever it broke.
   */
  private async apply(context: PlanContext, op: 'install' | 'update', options: ApplyOptions): Promise<ApplyResult> {
    const guard = new GuardedListener<LifecycleProgress>('onProgress', options.onProgress);
    try {
      return await this.applyWith(context, op, options, guard.fn);
    } catch (error) {
      throw guard.explain(error);
    }
  }

  private async applyWith(context: PlanContext, op: 'install' | 'update', options: ApplyOptions, progress: ((p: LifecycleProgress) => void) | undefined): Promise<ApplyResult> {
    const { plan } = context;
    const before: Record<string, PackageState | null> = {};
    const after: Record<string, PackageState | null> = {};
    // Asking for an installed capability again records the request (explicit, range) even when
    // no version changes.
    for (const [id, range] of context.ranges) {
      const state = context.states.get(id) ?? null;
      if (state === null || plan.items.some((i) => i.id === id) || (state.explicit && state.range === range)) continue;
      before[id] = state;
      after[id] = { ...state, explicit: true, range };
    }
    if (plan.items.length === 0) {
      if (Object.keys(after).length > 0) await runOperation(this.home, { op, before, after, creates: [] });
      return { plan, applied: false, installed: [] };
    }
    const creates: VersionToCreate[] = [];
    const now = (this.options.now?.() ?? new Date()).toISOString();
    const prepared = new PreparedVersions(); // issue 15 item 12: registry versions extracted in their download's read
    try {
    for (const item of plan.items) {
      const label = `${item.id}@${item.version}`;
      const report = (p: Progress): void => progress?.({ ...p, item: label });
      let archivePath: string;
      let trusted: TrustedKey[];
      let source: InstallSource;
      if (item.source.kind === 'file') {
        const sideload = context.sideload as SideloadCandidate;
        // Keep the sideloaded archive in the cache, so doctor can reinstall it from there.
        archivePath = await this.cache.putFile(sideload.file, { sha256: sideload.archiveSha256, size: sideload.size });
        trusted = sideload.trusted;
        source = { kind: 'file', file: sideload.file, signedBy: sideload.signedBy, unsigned: sideload.unsigned, unknownSigner: sideload.unknownSigner };
        await this.fetchEagerResources(sideload.manifest, [], { registry: null, allowedOrigins: this.options.sourceOrigins ?? [] }, report, options.signal);
      } else {
        const place = context.located.get(item.id) as LocatedPackage;
        const download = {
          cache: this.cache,
          ...(this.options.authorize === undefined ? {} : { authorize: this.options.authorize }),
          onProgress: report,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        };
        const target = this.home.versionDir(item.id, item.version);
        const preparedDir = await prepared.dirFor(target);
        const downloaded =
          preparedDir === undefined
            ? await place.client.downloadArchive(item.id, item.version, download)
            : await place.client.downloadAndExtract(item.id, item.version, {
                ...download,
                extractTo: preparedDir,
                readOnly: true,
                ...(this.options.limits?.archive === undefined ? {} : { limits: this.options.limits.archive }),
              });
        // spec §8 / issue 6: workflow documents are validated at install too, not only at build.
        if (preparedDir !== undefined) await validateWorkflowFiles(downloaded.manifest, preparedDir);
        archivePath = downloaded.path;
        trusted = place.publisherKeys;
        source = { kind: 'registry', remote: place.remote, signedBy: downloaded.signedBy };
        const policy = { registry: place.client.remote.url, allowedOrigins: this.options.sourceOrigins ?? [] };
        await this.fetchEagerResources(downloaded.manifest, [resolveUrl(place.client.remote.url, 'blobs/sha256/')], policy, report, options.signal);
      }
      const unsignedOk = item.source.kind === 'file' && (item.source.unsigned || item.source.unknownSigner);
      const preparedTarget = this.home.versionDir(item.id, item.version);
      creates.push({
        id: item.id,
        version: item.version,
        extract: prepared.has(preparedTarget) ? (target) => prepared.moveIn(target) : async (target) => {
          const verified = await verifyPackage(archivePath, {
            ...(unsignedOk ? {} : { trusted, requireSignature: true }),
            extractTo: target,
            readOnly: true,
            onProgress: report,
            ...(this.options.limits?.archive === undefined ? {} : { limits: this.options.limits.archive }),
          });
          // spec §8 / issue 6: workflow documents are validated at install too, not only at build.
          try {
            await validateWorkflowFiles(verified.manifest, target);
          } catch (error) {
            await removeTree(target);
            throw error;
          }
        },
      });
      const previous = context.states.get(item.id) ?? null;
      before[item.id] = previous;
      after[item.id] = this.nextState(previous, item, source, now, context.ranges.get(item.id));
    }
    await runOperation(this.home, {
      op,
      before,
      after,
      creates,
      // 'switch': the journal is written and new versions are being switched in.
      onStep: (step) => {
        if (step === 'journal') progress?.({ phase: 'switch', done: 0, total: creates.length });
      },
    });
    } finally {
      await prepared.discard();
    }
    await syncLinks(this, plan.items.map((i) => i.id)); // issue 13: links follow the active version
    return { plan, applied: true, installed: plan.items.map((i) => ({ id: i.id, version: i.version })) };
  }

  /**
   * spec §9: resources with `lazy: false` are fetched at install (lazy ones on first use by a
   * tool), verified into the cache before anything is switched in. After the declared sources,
   * the installing registry's content-addressed mirror is tried.
   */
  private async fetchEagerResources(
    manifest: Manifest,
    mirrors: string[],
    policy: SourcePolicy,
    onProgress: (p: Progress) => void,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    for (const resource of manifest.resources ?? []) {
      if (isLazy(resource)) continue;
      await materializeResource(this.cache, resource, {
        mirrors,
        policy,
        onProgress,
        ...(this.options.authorize === undefined ? {} : { authorize: this.options.authorize }),
        ...(signal === undefined ? {} : { signal }),
      });
    }
  }

  private nextState(previous: PackageState | null, item: PlanItem, source: InstallSource, now: string, range: string | undefined): PackageState {
    const declared = item.permissions.map(grantString);
    // Grants carried over are only those the new version still declares (spec §6: never more than
    // declared); the approved plan adds the new ones.
    const kept = (previous?.grants ?? []).filter((g) => declared.some((d) => grantCovers(g, d) || g === d));
    const approved = item.newPermissions.map(grantString);
    const grants = [...new Set([...kept, ...approved])].sort();
    // Approving a plan that lists a revoked permission grants it again (issue 11, item 10).
    const revoked = clearRevocations(previous?.revoked, approved);
    const record: VersionRecord = {
      manifestSha256: item.manifestSha256,
      archiveSha256: item.archive.sha256,
      archiveSize: item.archive.size,
      installedAt: now,
      source,
      grants,
    };
    const keep = this.options.limits?.keepVersions ?? 2;
    let history = previous === null ? [] : [...previous.history.filter((v) => v !== item.version && v !== previous.active), previous.active];
    if (previous !== null && previous.active === item.version) history = previous.history.filter((v) => v !== item.version);
    history = history.slice(Math.max(0, history.length - keep));
    const versions: Record<string, VersionRecord> = {};
    for (const v of history) {
      const old = previous?.versions[v];
      if (old !== undefined) versions[v] = old;
    }
    versions[item.version] = record;
    return {
      id: item.id,
      active: item.version,
      history: history.filter((v) => versions[v] !== undefined),
      grants,
      versions,
      explicit: item.explicit,
      ...(range !== undefined ? { range } : previous?.range !== undefined ? { range: previous.range } : {}),
      ...(revoked.length === 0 ? {} : { revoked }),
      // issue 17: an update keeps a disabled capability disabled.
      ...(previous?.disabled === undefined ? {} : { disabled: previous.disabled }),
      updatedAt: now,
    };
  }

  // ---------------------------------------------------------------- rollback and uninstall

  /**
   * Back to the previous version, with the grants it had (issue 4) minus what the user revoked
   * since (issue 11, item 10); anything more is asked for when a tool needs it.
   */
  async rollback(id: string): Promise<{ id: string; from: string; to: string }> {
    checkId(id, 'rollback');
    return this.withHome(`rollback ${id}`, async () => {
      const state = await this.state(id);
      const previous = state.history.at(-1);
      if (previous === undefined) throw new AdcapError('E_NOT_FOUND', `${id} has no earlier version to roll back to; only ${state.active} is installed.`);
      const loaded = await policyForChange(this);
      assertNotBlocked(loaded, id, previous);
      assertGrantsAllowed(loaded, (state.versions[previous]?.grants ?? []).map((grant) => ({ id, grant })));
      const target = await this.readInstalledManifest(id, previous);
      const installed = await this.installedStates();
      for (const [dep, range] of Object.entries(target.dependencies ?? {})) {
        const have = installed.get(dep)?.active;
        if (have === undefined || !semver.satisfies(have, range, { includePrerelease: true })) {
          throw new AdcapError('E_RESOLVE', `${id} ${previous} needs ${dep} ${range}, but ${have === undefined ? 'it is not installed' : `${have} is installed`}; install a matching ${dep} first.`);
        }
      }
      assertNoDependentsBroken(id, previous, await this.activeManifests(installed));
      const record = state.versions[previous];
      const after: PackageState = {
        ...state,
        active: previous,
        history: [...state.history.filter((v) => v !== previous), state.active],
        grants: grantsAfterRollback(record?.grants ?? [], state.revoked),
      };
      await runOperation(this.home, { op: 'rollback', before: { [id]: state }, after: { [id]: after }, creates: [] });
      await syncLinks(this, [id]); // issue 13: links follow the active version
      return { id, from: state.active, to: previous };
    });
  }

  /** Removes a capability, and dependencies nothing else needs; refuses while a dependent is installed. */
  async uninstall(id: string): Promise<{ removed: string[] }> {
    checkId(id, 'uninstall');
    return this.withHome(`uninstall ${id}`, async () => {
      parseCapabilityId(id);
      if ((await readState(this.home, id)) === null) {
        throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed, so there is nothing to uninstall; "adcap list" shows what is installed.`, { details: { id } });
      }
      assertNotRequired(await policyForChange(this), id, 'uninstall');
      const installed = await this.installedStates();
      const manifests = await this.activeManifests(installed);
      const dependents = dependentsOf(id, manifests, new Set([id]));
      if (dependents.length > 0) {
        throw new AdcapError('E_DEPENDENTS', `${id} is needed by ${dependents.join(', ')}; uninstall ${dependents.length === 1 ? 'it' : 'them'} first.`, { details: { dependents } });
      }
      const removing = new Set([id]);
      // Dependencies installed only for what is being removed go with it.
      for (let changed = true; changed; ) {
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
      await runOperation(this.home, { op: 'uninstall', before, after, creates: [] });
      await syncLinks(this, [...removing]); // issue 13: uninstall removes its links
      return { removed: [...removing] };
    });
  }

  /**
   * The manifest of each installed capability's active version, read and validated once per
   * operation (null when it cannot be read: doctor reports that).
   */
  private async activeManifests(installed: Map<string, PackageState | null>): Promise<Map<string, Manifest | null>> {
    const manifests = new Map<string, Manifest | null>();
    for (const [id, state] of installed) {
      if (state !== null) manifests.set(id, await this.readInstalledManifest(id, state.active).catch(() => null));
    }
    return manifests;
  }

  // ---------------------------------------------------------------- skills in agents (issue 13)

  /** Links every skill of an installed capability into an agent's skills folder (agent-links.ts). */
  async linkSkills(id: string, options: LinkOptions): Promise<LinkResult> {
    checkId(id, 'linkSkills');
    if (typeof options !== 'object' || options === null || typeof options.agent !== 'string') {
      throw new AdcapError('E_USAGE', 'linkSkills() takes { agent } naming the agent to link into.', { details: { argument: 'options' } });
    }
    return this.withHome(`link ${id}`, () => linkSkillsLocked(this, id, options));
  }

  /** Removes the links Arcotheon made for `id` (one agent, or every agent); nothing else. */
  async unlinkSkills(id: string, options: { agent?: string; project?: string } = {}): Promise<UnlinkResult> {
    checkId(id, 'unlinkSkills');
    return this.withHome(`unlink ${id}`, () => unlinkSkillsLocked(this, id, options));
  }

  /** The agents Arcotheon knows, whether each is present, and what is linked where. */
  async agents(options: { userHome?: string } = {}): Promise<AgentStatus[]> {
    return agentsStatus(this, options);
  }

  /** Per agent, how to register the granted tools of `ids` as an MCP server. */
  async agentMcp(ids: string[], options: { userHome?: string; command?: string } = {}): Promise<McpRegistration[]> {
    checkIds(ids, 'agentMcp');
    for (const id of ids) {
      const manifest = await this.installedManifest(id);
      if ((manifest.tools ?? []).length === 0) throw new AdcapError('E_NOT_FOUND', `${id} has no tools to serve over MCP; link its skills instead ("adcap link ${id} --agent <agent>").`);
    }
    return mcpRegistrations(ids, { home: this.home.root, ...options });
  }

  // ---------------------------------------------------------------- cache

  /**
   * `cache gc` (issue 5): removes blobs that no installed version references. Archives and
   * resources of the active and the kept previous versions stay (rollback needs them), and so do
   * the shards listed by the cached shard maps of those resources.
   */
  async gcCache(): Promise<GcResult & { kept: number }> {
    return this.withHome('cache gc', async () => {
      const keep = new Set<string>();
      for (const id of await this.installedIds()) {
        const state = await readState(this.home, id);
        if (state === null) continue;
        for (const version of [state.active, ...state.history]) {
          const archive = state.versions[version]?.archiveSha256;
          if (archive) keep.add(archive);
          const manifest = await this.readInstalledManifest(id, version).catch(() => null);
          for (const resource of manifest?.resources ?? []) {
            keep.add(resource.sha256);
            if (resource.format !== 'shardset' || !(await this.cache.has(resource.sha256))) continue;
            const map = parseShardMap(await readFile(this.cache.pathFor(resource.sha256)), `the shard map of ${id} resource ${resource.id}`);
            for (const shard of map.shards) keep.add(shard.sha256);
          }
        }
      }
      return { ...(await this.cache.gc(keep)), kept: keep.size };
    });
  }

  // ---------------------------------------------------------------- repair

  /** Checks (and with `fix`, repairs) the home, like `flatpak repair` (issue 4). */
  async doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
    const work = async (): Promise<DoctorReport> => {
      const report = await runDoctor(this, options);
      // issue 17: policy findings (invalid policy, blocked installed, required missing, denied grants).
      const findings = await policyFindings(this);
      return findings.length === 0 ? report : { ...report, problems: [...report.problems, ...findings], ok: false };
    };
    if (options.fix === true && options.dryRun !== true) return this.withHome('doctor --fix', work, false);
    return work();
  }

  /** Takes the home lock, finishing or undoing any operation a crash interrupted first. */
  async withHome<T>(purpose: string, fn: () => Promise<T>, recoverFirst = true): Promise<T> {
    return withLock(
      this.home.homeLock,
      purpose,
      async () => {
        if (recoverFirst) await recoverOperations(this.home);
        return fn();
      },
      { waitMs: this.options.limits?.lockWaitMs ?? 30_000, what: `The Arcotheon home ${this.home.root}` },
    );
  }
}

/**
 * Issue 12 item 1: an instance that names no remotes starts on the registry the SDK ships. Root
 * keys the host pins (`rootKeys`, normally ARCOTHEON_ROOT_KEYS) replace the shipped pin's, so a
 * host that pins other keys gets a refused catalogue rather than an unpinned one.
 */
function defaultRemotes(rootKeys: readonly string[] | undefined): RemoteConfig[] {
  const remote = shippedRemote();
  if (remote === null) return [];
  return [{ ...remote, rootKeys: rootKeys === undefined || rootKeys.length === 0 ? remote.rootKeys : [...rootKeys] }];
}

/** Installed capabilities (not in `ignore`) whose active version depends on `id`. */
function dependentsOf(id: string, manifests: Map<string, Manifest | null>, ignore: Set<string>): string[] {
  const out: string[] = [];
  for (const [other, manifest] of manifests) {
    if (!ignore.has(other) && manifest !== null && Object.hasOwn(manifest.dependencies ?? {}, id)) out.push(other);
  }
  return out;
}

/** E_DEPENDENTS when an installed capability needs `id` in a range `version` does not satisfy. */
function assertNoDependentsBroken(id: string, version: string, manifests: Map<string, Manifest | null>): void {
  for (const [other, manifest] of manifests) {
    const range = other === id ? undefined : manifest?.dependencies?.[id];
    if (range !== undefined && !semver.satisfies(version, range, { includePrerelease: true })) {
      throw new AdcapError('E_DEPENDENTS', `${other} needs ${id} ${range}, which ${version} does not satisfy; roll back or update ${other} first.`, { details: { dependents: [other] } });
    }
  }
}

/**
 * Where each installed capability may come from (issue 11, item 1): the remote it was installed
 * from, or no registry for a sideload, unless the request names a remote for it (`requested`) or,
 * for a sideload, asks for it by id (explicitly choosing a registry). Unpinned ids (new ones) come
 * from the first remote that lists them.
 */
function sourcePins(installed: Map<string, PackageState | null>, requested: ReadonlyMap<string, string>, explicitIds: ReadonlySet<string>): Map<string, string | null> {
  const pins = new Map<string, string | null>(requested);
  for (const [id, state] of installed) {
    if (state === null || pins.has(id)) continue;
    const source = state.versions[state.active]?.source;
    if (source?.kind === 'registry') pins.set(id, source.remote);
    else if (source?.kind === 'file' && !explicitIds.has(id)) pins.set(id, null);
  }
  return pins;
}

/** The installed version's source when `next` differs from it (a move), else undefined. */
function movedFrom(state: PackageState, next: { kind: 'registry'; remote: string } | { kind: 'file'; file: string } | undefined): PlanSource | undefined {
  const current = state.versions[state.active]?.source;
  if (current === undefined || next === undefined) return undefined;
  if (current.kind === 'registry') {
    if (next.kind === 'registry' && next.remote === current.remote) return undefined;
    return { kind: 'registry', remote: current.remote };
  }
  // A sideload replaced by another local file is not a change of source kind worth a warning.
  if (next.kind === 'file') return undefined;
  return { kind: 'file', file: current.file, unsigned: current.unsigned, unknownSigner: current.unknownSigner };
}

/** The constraint an installed explicit capability keeps: the range asked for; a sideload its own version. */
function rootRange(state: PackageState): string {
  if (state.versions[state.active]?.source.kind === 'file') return `=${state.active}`;
  return state.range ?? '*';
}

function normalizeRequest(request: InstallRequest | PackageSpec | PackageSpec[]): InstallRequest {
  if (typeof request === 'string') return { packages: [request] };
  if (Array.isArray(request)) return { packages: request };
  if ('id' in request) return { packages: [request] };
  return request;
}

/** `publisher/name`, `publisher/name@range`, each optionally after `remote:`. */
export function parseSpec(spec: PackageSpec): { id: string; range: string; remote?: string } {
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
  if (semver.validRange(range) === null) throw new AdcapError('E_USAGE', `"${range}" in "${spec}" is not a semver range (try ^1.2.0, ~1.2, 1.2.3 or *).`);
  return { id, range, ...(remote === undefined ? {} : { remote }) };
}

/** A version as the resolver sees it, from its own manifest (a sideload, or an installed version). */
function candidateOfManifest(manifest: Manifest): CandidateVersion {
  return {
    version: manifest.version,
    dependencies: manifest.dependencies ?? {},
    ...(manifest.compat === undefined ? {} : { compat: manifest.compat }),
    hasTools: (manifest.tools ?? []).length > 0,
  };
}

function sideloadItem(s: SideloadCandidate, action: PlanAction, state: PackageState | null, explicit: boolean, granted: string[]): PlanItem {
  const permissions = s.manifest.permissions ?? [];
  return {
    id: s.manifest.id,
    version: s.manifest.version,
    action,
    ...(state === null ? {} : { from: state.active }),
    explicit,
    source: { kind: 'file', file: s.file, unsigned: s.unsigned, unknownSigner: s.unknownSigner },
    archive: { sha256: s.archiveSha256, size: s.size },
    downloadSize: 0,
    manifestSha256: s.manifestSha256,
    permissions,
    newPermissions: newPermissionsOf(permissions, granted),
    tier: s.manifest.distribution?.tier ?? 'free',
    access: s.manifest.distribution?.access ?? 'public',
    prerelease: semver.prerelease(s.manifest.version) !== null,
    ...withPrograms(skillProgramsOf(s.manifest)),
  };
}

function registryItem(
  place: LocatedPackage,
  entry: DocumentVersion,
  action: PlanAction,
  state: PackageState | null,
  explicit: boolean,
  granted: string[],
  downloadSize: number,
): PlanItem {
  return {
    id: entry.id,
    version: entry.version,
    action,
    ...(state === null ? {} : { from: state.active }),
    explicit,
    source: { kind: 'registry', remote: place.remote },
    archive: { sha256: entry.archive.sha256, size: entry.archive.size },
    downloadSize,
    manifestSha256: entry.manifestSha256,
    permissions: entry.permissions,
    newPermissions: newPermissionsOf(entry.permissions, granted),
    tier: entry.tier,
    access: entry.access,
    ...(entry.entitlement === undefined ? {} : { entitlement: entry.entitlement }),
    ...(entry.status === 'yanked' ? { yanked: entry.statusReason ?? 'no reason given' } : {}),
    ...(place.doc.deprecated === undefined ? {} : { deprecated: place.doc.deprecated.message }),
    prerelease: semver.prerelease(entry.version) !== null,
    ...withPrograms(entry.contents.skillPrograms ?? []),
  };
}

/** issue 13: the plan names the skills that ship programs (none: no field). */
function withPrograms(programs: SkillPrograms[]): { skillPrograms?: SkillPrograms[] } {
  return programs.length > 0 ? { skillPrograms: programs } : {};
}
