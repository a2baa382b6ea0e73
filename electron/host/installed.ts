/**
 * The Installed and Updates screens: what is installed with its health, one capability's kept
 * versions and what a rollback would restore, and the updates the registries offer with each
 * one's permission difference, computed without applying anything.
 */
import semver from 'semver';
import {
  AdcapError,
  grantString,
  isAdcapError,
  type Arcotheon,
  type DoctorReport,
  type InstalledCapability,
  type Manifest,
  type PackageState,
  type Plan,
} from '@arcotheon/sdk';
import { grantsAfterRollback, hostStore, toolDataUsage, type HostStore } from '@arcotheon/sdk/internal';
import type {
  AvailableUpdate,
  GrantsData,
  InstalledDetail,
  InstalledHealth,
  InstalledSummary,
  ToolDataView,
  UpdatesCheck,
} from '../common/types.js';
import { packageContents, permissionChange, permissionView } from './views.js';

const CACHE_MS = 2000;

interface LatestInfo {
  latest: string | null;
  revoked: string | null;
  name: string;
  summary: string;
}

export class Installed {
  private cached: Promise<InstalledCapability[]> | null = null;
  private cachedAt = 0;
  /** Problems from the last doctor run, per capability id. */
  private doctorProblems = new Map<string, string>();

  private readonly store: HostStore;

  constructor(private readonly arc: Arcotheon) {
    this.store = hostStore(arc);
  }

  invalidate(): void {
    this.cached = null;
  }

  /**
   * Installed capabilities, for the catalogue's hot path: cached until this host changes them, and
   * for at most two seconds (another process, such as adcap, may change the home meanwhile).
   */
  list(): Promise<InstalledCapability[]> {
    if (this.cached !== null && Date.now() - this.cachedAt > CACHE_MS) this.cached = null;
    if (this.cached === null) {
      this.cachedAt = Date.now();
      this.cached = this.arc.list().catch((error: unknown) => {
        this.cached = null;
        throw error;
      });
    }
    return this.cached;
  }

  rememberDoctor(report: DoctorReport, fixed: boolean): void {
    this.doctorProblems = new Map();
    for (const problem of report.problems) {
      if (problem.id === undefined || (fixed && problem.fixed !== undefined)) continue;
      if (problem.kind === 'damaged-install' || problem.kind === 'damaged-state' || problem.kind === 'missing-dependency')
        this.doctorProblems.set(problem.id, problem.message);
    }
  }

  /** The newest version the registries offer for an installed capability, and whether its active version is revoked. */
  private async latestOf(id: string, state: { active: string; range?: string }): Promise<LatestInfo> {
    try {
      const located = await this.store.locate(id);
      if (located === null) return { latest: null, revoked: null, name: id, summary: '' };
      const versions = Object.values(located.doc.versions);
      const active = located.doc.versions[state.active];
      const range = state.range ?? '*';
      const includePrerelease = semver.prerelease(state.active) !== null;
      const candidates = versions
        .filter(
          (v) => v.status === undefined && semver.gt(v.version, state.active) && semver.satisfies(v.version, range, { includePrerelease }),
        )
        .filter((v) => includePrerelease || semver.prerelease(v.version) === null)
        .map((v) => v.version)
        .sort(semver.rcompare);
      const newest = versions.map((v) => v.version).sort(semver.rcompare)[0];
      const meta = active ?? (newest === undefined ? undefined : located.doc.versions[newest]);
      return {
        latest: candidates[0] ?? null,
        revoked: active?.status === 'revoked' ? (active.statusReason ?? 'revoked by its publisher or the registry') : null,
        name: meta?.name ?? id,
        summary: meta?.summary ?? '',
      };
    } catch (error) {
      if (!isAdcapError(error)) throw error;
      return { latest: null, revoked: null, name: id, summary: '' };
    }
  }

  private async summaryOf(
    capability: InstalledCapability,
  ): Promise<{ summary: InstalledSummary; manifest: Manifest | null; state: PackageState | null }> {
    const state = await this.store.state(capability.id).catch(() => null);
    const manifest = await this.arc.readInstalledManifest(capability.id, capability.version).catch(() => null);
    const latest = await this.latestOf(capability.id, {
      active: capability.version,
      ...(state?.range === undefined ? {} : { range: state.range }),
    });
    let health: InstalledHealth = 'ok';
    let healthReason: string | null = null;
    if (capability.damaged !== undefined) {
      health = 'broken';
      healthReason = `${capability.damaged.problem}. Repair it from Health: ${capability.damaged.repair}.`;
    } else if (latest.revoked !== null) {
      health = 'revoked';
      healthReason = `${capability.id}@${capability.version} was revoked: ${latest.revoked}. Update or uninstall it.`;
    } else if (manifest === null) {
      health = 'broken';
      healthReason = `The installed files of ${capability.id}@${capability.version} are missing or damaged; repair them from Health.`;
    } else if (this.doctorProblems.has(capability.id)) {
      health = 'broken';
      healthReason = this.doctorProblems.get(capability.id) ?? null;
    } else if (latest.latest !== null) {
      health = 'update-available';
    }
    return {
      summary: {
        id: capability.id,
        name: manifest?.name ?? latest.name,
        summary: manifest?.summary ?? latest.summary,
        version: capability.version,
        health,
        healthReason,
        updateAvailable: latest.latest,
        origin: capability.status,
        explicit: capability.explicit,
        grants: capability.grants,
        source: capability.source,
        ...addedFrom(capability.source),
        ...(capability.disabled === undefined ? {} : { disabled: capability.disabled }),
        ...(capability.managed === undefined ? {} : { managed: capability.managed }),
      },
      manifest,
      state,
    };
  }

  async overview(): Promise<InstalledSummary[]> {
    this.invalidate();
    const list = await this.list();
    const out: InstalledSummary[] = [];
    for (const capability of list) out.push((await this.summaryOf(capability)).summary);
    return out;
  }

  async detail(id: string): Promise<InstalledDetail> {
    await this.store.state(id);
    const list = await this.arc.list();
    const capability = list.find((c) => c.id === id);
    if (capability === undefined) throw new AdcapError('E_NOT_INSTALLED', `${id} is not installed; install it from Discover.`);
    const { summary, manifest, state } = await this.summaryOf(capability);
    const active = state as PackageState;
    const versions = [active.active, ...[...active.history].reverse()]
      .filter((v) => active.versions[v] !== undefined)
      .map((version) => {
        const record = active.versions[version];
        return {
          version,
          installedAt: record?.installedAt ?? '',
          source: record?.source ?? capability.source,
          grants: record?.grants ?? [],
          active: version === active.active,
        };
      });
    // installs.rollback swaps to the last kept version: an older one, or, after a rollback, the newer
    // one rolled back from (then it is an update again, and the UI says so). Its grants are the SDK's
    // (the kept version's, minus what the user withdrew since), each shown as a sentence.
    const previous = active.history.at(-1);
    const target = previous === undefined ? undefined : active.versions[previous];
    let rollback: InstalledDetail['rollback'] = null;
    if (previous !== undefined && target !== undefined) {
      const grants = grantsAfterRollback(target.grants, active.revoked);
      const targetManifest = await this.arc.readInstalledManifest(id, previous).catch(() => null);
      rollback = {
        to: previous,
        direction:
          semver.valid(previous) !== null && semver.valid(active.active) !== null && semver.gt(previous, active.active)
            ? 'forward'
            : 'back',
        grants,
        grantsAdded: grants.filter((g) => !active.grants.includes(g)),
        grantsRemoved: active.grants.filter((g) => !grants.includes(g)),
        permissions: (targetManifest?.permissions ?? []).map((p) => permissionView(p, grants)),
        removed: (manifest?.permissions ?? [])
          .filter((p) => !grants.includes(grantString(p)) && active.grants.includes(grantString(p)))
          .map((p) => permissionView(p)),
      };
    }
    const manifests = new Map<string, Manifest | null>();
    for (const other of list) manifests.set(other.id, await this.arc.readInstalledManifest(other.id, other.version).catch(() => null));
    const dependents = list
      .filter((other) => other.id !== id && Object.hasOwn(manifests.get(other.id)?.dependencies ?? {}, id))
      .map((other) => other.id);
    const dir = await this.arc.installedDir(id);
    return {
      ...summary,
      directory: dir,
      permissions: (manifest?.permissions ?? []).map((p) => permissionView(p, active.grants)),
      versions,
      rollback,
      dependents,
      dependencies: Object.entries(manifest?.dependencies ?? {}).map(([dep, range]) => ({
        id: dep,
        range,
        installed: list.find((c) => c.id === dep)?.version ?? null,
      })),
      package: manifest === null ? null : await packageContents(manifest, dir, true),
      toolData: await this.toolData(id, manifest),
    };
  }

  /** Each tool's storage:data folder that exists: its size against the quota (shown on the capability page). */
  private async toolData(id: string, manifest: Manifest | null): Promise<ToolDataView[]> {
    const out: ToolDataView[] = [];
    for (const tool of manifest?.tools ?? []) {
      if (!(tool.permissions ?? []).includes('storage:data')) continue;
      out.push({ tool: tool.name, bytes: await toolDataUsage(this.store.toolDataDir(id, tool.name)), quota: this.arc.toolDataQuota });
    }
    return out;
  }

  async grants(id: string): Promise<GrantsData> {
    const { granted, declared } = await this.arc.grants(id);
    return { granted, declared, permissions: declared.map((p) => permissionView(p, granted)) };
  }

  /**
   * The update plan for `ids` (all when undefined), computed without applying: the SDK's update()
   * hands the plan to `approve`, which declines, so nothing changes (spec §6).
   */
  private async previewUpdate(ids: string[] | undefined): Promise<Plan | null> {
    let seen: Plan | null = null;
    try {
      const result = await this.arc.update(ids, {
        approve: (plan) => {
          seen = plan;
          return false;
        },
      });
      // No items: update() returned before asking.
      return seen ?? result.plan;
    } catch (error) {
      if (seen !== null && isAdcapError(error, 'E_DENIED')) return seen;
      throw error;
    }
  }

  async checkUpdates(): Promise<UpdatesCheck> {
    this.invalidate();
    const unreachable: UpdatesCheck['unreachable'] = [];
    for (const client of await this.store.clients()) {
      try {
        await client.update();
      } catch (error) {
        if (!isAdcapError(error)) throw error;
        unreachable.push({ remote: client.remote.name, message: error.message });
      }
    }
    const all = await this.previewUpdate(undefined);
    const checkedAt = new Date().toISOString();
    if (all === null || all.items.length === 0) return { checkedAt, updates: [], allDigest: null, allNeedsApproval: false, unreachable };
    const installed = new Map((await this.list()).map((c) => [c.id, c]));
    const updates: AvailableUpdate[] = [];
    for (const item of all.items) {
      if (item.action !== 'upgrade') continue;
      const current = installed.get(item.id);
      const before =
        current === undefined
          ? []
          : ((await this.arc.readInstalledManifest(item.id, current.version).catch(() => null))?.permissions ?? []);
      const alone = await this.previewUpdate([item.id]).catch(() => null);
      const located = await this.store.locate(item.id).catch(() => null);
      updates.push({
        id: item.id,
        from: item.from ?? current?.version ?? '',
        to: item.version,
        dependency: !(current?.explicit ?? item.explicit),
        changes: permissionChange(before, item.permissions),
        needsApproval: item.newPermissions.length > 0,
        digest: alone?.digest ?? all.digest,
        changelog: located?.doc.versions[item.version]?.changelog ?? null,
        downloadSize: item.downloadSize,
        warnings: all.warnings.filter((w) => w.includes(item.id)),
      });
    }
    return { checkedAt, updates, allDigest: all.digest, allNeedsApproval: all.newPermissions.length > 0, unreachable };
  }
}

/** docs/skills.md: a capability brought in with `adcap add` says where from, as `adcap list` does. */
function addedFrom(source: InstalledCapability['source']): { addedFrom?: string } {
  if (source.kind !== 'file' || source.added === undefined) return {};
  const { added } = source;
  return { addedFrom: `added by you from ${added.source}${added.commit === undefined ? '' : ` at ${added.commit.slice(0, 12)}`}` };
}
