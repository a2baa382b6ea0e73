/**
 * The SDK's host-facing object (host contract "Embedding", DESIGN §7): a thin facade over one home
 * directory. Each job lives in its own module: options.ts (what a host passes),
 * store-core.ts (home, cache, sources, home lock), installed.ts (state, manifests, list),
 * discovery.ts (search, package documents), grants-ops.ts, planning.ts (plan and resolution),
 * applying.ts (approve, download, verify, switch), updating.ts, rollback.ts, removal.ts (uninstall,
 * cache gc), enablement.ts, policy-enforce.ts, agent-links/ and doctor.ts. The class keeps only
 * argument checks and delegation; run/ and doctor depend on narrow views (store-view.ts,
 * run/context.ts), not on it.
 */
import type { GcResult } from '../cache/content-cache.js';
import { AdcapError } from '../errors.js';
import type { Manifest, Permission } from '../format/manifest-types.js';
import type { SearchFilters, SearchHit } from '../registry/search.js';
import type { PackageDocument } from '../registry/types.js';
import type { HostEnvironment } from '../resolve/types.js';
import { mcpRegistrations, type McpRegistration } from './agent-links/agents.js';
import { agentsStatus, type AgentStatus } from './agent-links/agents-status.js';
import { linkSkillsLocked, unlinkSkillsLocked, type LinkOptions, type LinkResult, type UnlinkResult } from './agent-links/link-skills.js';
import { linkIntoPresentAgents, type PresentLinkResult } from './agent-links/link-present.js';
import type { PresenceOptions } from './agent-links/presence.js';
import { installPackages, type ApplyOptions, type ApplyResult } from './applying.js';
import { checkArcotheonOptions, checkId, checkIds, checkInstallRequest } from './arguments.js';
import { packageDocument, refreshRemotes, searchRemotes } from './discovery.js';
import { runDoctor, type DoctorOptions, type DoctorReport } from './doctor.js';
import { disableCapability, enableCapability, type EnablementResult } from './enablement.js';
import { grantPermission, grantsOf, revokeGrant } from './grants-ops.js';
import { installedIds, listInstalled, type InstalledCapability } from './installed.js';
import type { ArcotheonOptions, SandboxChoice } from './options.js';
import type { Plan } from './plan.js';
import { normalizeRequest, planInstall, type InstallRequest, type PackageSpec } from './planning.js';
import { applyPolicy, policyFindings, policyForChange, type PolicyApplyResult, type PolicyHost } from './policy-enforce.js';
import type { LoadedPolicy } from './policy.js';
import { gcCache, uninstallCapability } from './removal.js';
import { rollbackCapability } from './rollback.js';
import { StoreCore } from './store-core.js';
import { attachStore } from './store-of.js';
import { updatePackages, type UpdateResult } from './updating.js';

export type { ArcotheonOptions, HostInfo, SandboxChoice } from './options.js';
export type { InstalledCapability } from './installed.js';
export type { InstallRequest, PackageSpec } from './planning.js';
export type { ApplyOptions, ApplyResult, LifecycleProgress } from './applying.js';
export type { PinnedUpdate, UpdateResult, WaitingUpdate } from './updating.js';

/**
 * The SDK's host-facing object (host contract "Embedding", DESIGN §7): discovery, plan and
 * approval, install, grants, update, rollback, uninstall and doctor over one home directory.
 */
export class Arcotheon {
  private readonly core: StoreCore;

  constructor(options: ArcotheonOptions) {
    checkArcotheonOptions(options);
    this.core = new StoreCore(options);
    attachStore(this, this.core);
  }

  /** The environment capabilities are checked against (spec §11). */
  hostEnvironment(): Promise<HostEnvironment> {
    return this.core.hostEnvironment();
  }

  /** How this instance confines tools: the host's sandbox, or whether it may run them unconfined. */
  get sandboxChoice(): SandboxChoice {
    return this.core.sandboxChoice;
  }

  /** The quota of each tool's `storage:data` folder in bytes (`limits.toolDataBytes`, default 1 GiB). */
  get toolDataQuota(): number {
    return this.core.toolDataQuota;
  }

  // ---------------------------------------------------------------- organisation policy

  /** The policy in force, read now (never cached): null when none; E_POLICY when it is invalid. */
  policyInForce(): Promise<LoadedPolicy | null> {
    return this.core.policyInForce();
  }

  /**
   * Brings this home in line with the policy: blocked capabilities disabled, required ones
   * installed, enabled and updated (their permissions granted by the policy), and with
   * `updates.automatic` the updates that need no new permission applied. Hosts call it at start-up.
   */
  applyPolicy(): Promise<PolicyApplyResult> {
    const core = this.core;
    const host: PolicyHost = {
      home: core.home,
      enablementHook: core.enablementHook,
      state: (id) => core.state(id),
      readInstalledManifest: (id, version) => core.readInstalledManifest(id, version),
      policyInForce: () => core.policyInForce(),
      installedIds: () => this.installedIds(),
      withHome: (purpose, fn) => core.withHome(purpose, fn),
      install: (request, options) => this.install(request, options),
      update: (ids, options) => this.update(ids, options),
    };
    return applyPolicy(host, core.nowIso());
  }

  // ---------------------------------------------------------------- enable and disable

  /** Switches a capability off, keeping its files, versions, grants and data; refuses a required one. */
  async disable(id: string): Promise<EnablementResult> {
    return this.core.withHome(`disable ${id}`, async () =>
      disableCapability(this.core, id, await policyForChange(this.core), this.core.nowIso(), this.core.enablementHook),
    );
  }

  /** Switches a disabled capability back on; refuses one whose installed version the policy blocks. */
  async enable(id: string): Promise<EnablementResult> {
    return this.core.withHome(`enable ${id}`, async () =>
      enableCapability(this.core, id, await policyForChange(this.core), this.core.enablementHook),
    );
  }

  // ---------------------------------------------------------------- discovery (metadata only)

  /** Searches every remote (or only `filters.remote`); the first remote listing an id wins. */
  search(
    query: string,
    filters: Omit<SearchFilters, 'installedIds'> & { remote?: string } = {},
  ): Promise<Array<SearchHit & { remote: string }>> {
    return searchRemotes(this.core, query, filters, () => this.list());
  }

  /** The verified package document of a capability (every version and its status). */
  packageDoc(id: string, options: { remote?: string } = {}): Promise<PackageDocument & { remote: string }> {
    return packageDocument(this.core, id, options);
  }

  /**
   * Fetches every remote's catalogue now (an update looks for what is new). A remote that cannot
   * be reached keeps its last verified catalogue; a refused one (an attack) stops the update.
   */
  refreshRemotes(): Promise<void> {
    return refreshRemotes(this.core.sources);
  }

  // ---------------------------------------------------------------- installed state

  /** Every installed capability with its version, status, grants and marks. */
  list(): Promise<InstalledCapability[]> {
    return listInstalled(this.core);
  }

  /** Installed capabilities: package directories with a readable state.json. */
  installedIds(): Promise<string[]> {
    return installedIds(this.core.home);
  }

  /** Directory of the active installed version (host contract "Skills"). */
  installedDir(id: string): Promise<string> {
    return this.core.installedDir(id);
  }

  /** The manifest of the active installed version, re-validated from disk. */
  async installedManifest(id: string): Promise<Manifest> {
    const state = await this.core.state(id);
    return this.readInstalledManifest(id, state.active);
  }

  /** The manifest of one installed version, re-validated from disk (E_MISSING when its files are gone). */
  readInstalledManifest(id: string, version: string): Promise<Manifest> {
    return this.core.readInstalledManifest(id, version);
  }

  // ---------------------------------------------------------------- grants

  /** The permissions granted to an installed capability, and those its manifest declares. */
  grants(id: string): Promise<{ granted: string[]; declared: Permission[] }> {
    return grantsOf(this.core, id);
  }

  /** Withdraws a grant; the tools that need it stop running (E_NOT_GRANTED) until it is granted again. */
  revokeGrant(id: string, grant: string): Promise<string[]> {
    return revokeGrant(this.core, id, grant);
  }

  /** Grants a permission the capability declares (spec §6: never more than it declares). */
  grant(id: string, grant: string): Promise<string[]> {
    return grantPermission(this.core, id, grant);
  }

  // ---------------------------------------------------------------- plan, install and update

  /** What installing `request` would do, for the approval dialog. Changes nothing. */
  async plan(request: InstallRequest | PackageSpec | PackageSpec[]): Promise<Plan> {
    checkInstallRequest(request, 'plan');
    return (await planInstall(this.core, normalizeRequest(request))).plan;
  }

  /** Installs exactly the plan the user approved (host contract: reject unless the user confirms). */
  install(request: InstallRequest | PackageSpec | PackageSpec[], options: ApplyOptions = {}): Promise<ApplyResult> {
    return installPackages(this.core, request, options);
  }

  /**
   * Updates installed capabilities (all, or `ids`) to the newest versions their constraints allow.
   * spec §6: an update that needs permissions the user has not granted is not applied unless
   * `approve` accepts the plan that lists them. Without `approve`, such updates
   * wait (`waiting`) while the plain updates of other capabilities are applied; `plan` is then what
   * is left to approve (its digest is the next update's). Capabilities that the
   * range the user asked for keeps below the newest version are listed in `pinned`.
   */
  update(ids?: string[], options: ApplyOptions & { includePrerelease?: boolean } = {}): Promise<UpdateResult> {
    return updatePackages(this.core, ids, options);
  }

  // ---------------------------------------------------------------- rollback and uninstall

  /**
   * Back to the previous version, with the grants it had minus what the user revoked
   * since; anything more is asked for when a tool needs it.
   */
  rollback(id: string): Promise<{ id: string; from: string; to: string }> {
    return rollbackCapability(this.core, id);
  }

  /** Removes a capability, and dependencies nothing else needs; refuses while a dependent is installed. */
  uninstall(id: string): Promise<{ removed: string[] }> {
    return uninstallCapability(this.core, id);
  }

  // ---------------------------------------------------------------- skills in agents

  /** Links every skill of an installed capability into an agent's skills folder (agent-links/link-skills.ts). */
  async linkSkills(id: string, options: LinkOptions): Promise<LinkResult> {
    checkId(id, 'linkSkills');
    if (typeof options !== 'object' || options === null || typeof options.agent !== 'string') {
      throw new AdcapError('E_USAGE', 'linkSkills() takes { agent } naming the agent to link into.', { details: { argument: 'options' } });
    }
    return this.core.withHome(`link ${id}`, () => linkSkillsLocked(this.core, id, options));
  }

  /** Removes the links Arcotheon made for `id` (one agent, or every agent); nothing else. */
  async unlinkSkills(id: string, options: { agent?: string; project?: string } = {}): Promise<UnlinkResult> {
    checkId(id, 'unlinkSkills');
    return this.core.withHome(`unlink ${id}`, () => unlinkSkillsLocked(this.core, id, options));
  }

  /**
   * docs/skills.md: links every skill of `id` into every agent present on this machine (its program on
   * PATH or its own configuration file), one link per folder several agents share; none present:
   * links nothing (`present` is empty).
   */
  async linkSkillsToPresentAgents(
    id: string,
    options: Omit<LinkOptions, 'agent' | 'folder' | 'project'> & PresenceOptions = {},
  ): Promise<PresentLinkResult> {
    checkId(id, 'linkSkillsToPresentAgents');
    return linkIntoPresentAgents(this, id, options);
  }

  /** The agents Arcotheon knows, whether each is present (the agent itself, docs/skills.md "Agents"), and what is linked where. */
  agents(options: PresenceOptions = {}): Promise<AgentStatus[]> {
    return agentsStatus(this.core, options);
  }

  /**
   * Per agent, how to register the granted tools of `ids` as an MCP server: `adcap mcp` (which
   * serves no Pro or entitled tools: it cannot check a plan), or `server`, a command line the host
   * owns that runs mcpServe with its own checkTier, authorize and sandbox.
   */
  async agentMcp(
    ids: string[],
    options: { userHome?: string; command?: string; server?: { command: string; args: string[] } } = {},
  ): Promise<McpRegistration[]> {
    checkIds(ids, 'agentMcp');
    const server = options.server;
    const badArgs = (args: unknown): boolean => !Array.isArray(args) || args.some((a) => typeof a !== 'string');
    if (server !== undefined && (typeof server.command !== 'string' || server.command === '' || badArgs(server.args)))
      throw new AdcapError('E_USAGE', 'agentMcp() takes server: { command, args } (a program and its arguments) or no server.', {
        details: { argument: 'server' },
      });
    for (const id of ids) {
      const manifest = await this.installedManifest(id);
      if ((manifest.tools ?? []).length === 0)
        throw new AdcapError(
          'E_NOT_FOUND',
          `${id} has no tools to serve over MCP; link its skills instead ("adcap link ${id} --agent <agent>").`,
        );
    }
    return mcpRegistrations(ids, { home: this.core.home.root, ...options });
  }

  // ---------------------------------------------------------------- cache and repair

  /**
   * `cache gc`: removes blobs that no installed version references. Archives and
   * resources of the active and the kept previous versions stay (rollback needs them), and so do
   * the shards listed by the cached shard maps of those resources.
   */
  gcCache(): Promise<GcResult & { kept: number }> {
    return gcCache(this.core);
  }

  /** Checks (and with `fix`, repairs) the home, like `flatpak repair`. */
  async doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
    const work = async (): Promise<DoctorReport> => {
      const report = await runDoctor(this.core, options);
      // Policy findings (invalid policy, blocked installed, required missing, denied grants).
      const findings = await policyFindings({
        policyInForce: () => this.core.policyInForce(),
        state: (id) => this.core.state(id),
        installedIds: () => this.installedIds(),
      });
      return findings.length === 0 ? report : { ...report, problems: [...report.problems, ...findings], ok: false };
    };
    if (options.fix === true && options.dryRun !== true) return this.core.withHome('doctor --fix', work, false);
    return work();
  }
}
