/**
 * Updating (spec §6, §11): installed capabilities move to the newest
 * versions their ranges allow. An update that needs permissions nobody approved waits while the
 * plain updates of other capabilities go ahead, and capabilities the user's range keeps below the
 * newest version are reported as pinned.
 */
import semver from 'semver';
import { checkCompatibility } from '../resolve/compat.js';
import { applyPlan, cancellable, requireApproval, type ApplyOptions, type ApplyResult } from './applying.js';
import { checkApplyOptions, checkIds } from './arguments.js';
import { finishPlan } from './plan.js';
import { planUpdate, type PlanContext } from './planning.js';
import { candidateOf } from './sources.js';
import type { StoreCore } from './store-core.js';
import { dependentsWithin, waitingUpdates } from './update-split.js';

/** What `Arcotheon.update()` did: what was applied, what waits for approval and what a range keeps back. */
export interface UpdateResult extends ApplyResult {
  /**
   * True when some update needs permissions nobody approved: those wait (listed in `waiting`),
   * while the plain updates of other capabilities were applied. `plan` is then
   * what is left to approve: show it, and pass its digest as `approvedDigest` to the next update().
   */
  needsApproval: boolean;
  /** Updates that wait for the user's approval of new permissions; `update(ids, { approve })` applies them. */
  waiting: WaitingUpdate[];
  /**
   * Installed capabilities kept where they are by the range the user asked for, although newer
   * versions exist, with the request that moves to the newest.
   */
  pinned: PinnedUpdate[];
}

/** An update that needs permissions nobody approved yet: it waits for `approve`. */
export interface WaitingUpdate {
  /** The capability. */
  id: string;
  /** Its installed version; absent for a dependency the update would add. */
  from?: string;
  /** The version it would update to. */
  version: string;
  /** The permissions to approve (`id[:scope]`); empty for an update held back by one that waits. */
  newPermissions: string[];
}

/** A capability that the range the user asked for keeps below its newest version. */
export interface PinnedUpdate {
  /** The capability. */
  id: string;
  /** Its installed version. */
  version: string;
  /** The range in state.json that keeps it there. */
  range: string;
  /** The newest version the registry offers. */
  latest: string;
  /** What to install to move to `latest` ("acme/lib@^2.0.0"). */
  request: string;
}

/**
 * Updates installed capabilities (all, or `ids`) to the newest versions their constraints allow.
 * spec §6: an update that needs permissions the user has not granted is not applied unless
 * `approve` accepts the plan that lists them. Without `approve`, such updates
 * wait (`waiting`) while the plain updates of other capabilities are applied; `plan` is then what
 * is left to approve (its digest is the next update's). Capabilities that the
 * range the user asked for keeps below the newest version are listed in `pinned`.
 */
export async function updatePackages(
  core: StoreCore,
  ids: string[] | undefined,
  options: ApplyOptions & { includePrerelease?: boolean },
): Promise<UpdateResult> {
  checkIds(ids, 'update');
  checkApplyOptions(options, 'update');
  return cancellable('The update', options.signal, () =>
    core.withHome('update', async () => {
      const prerelease = options.includePrerelease === true;
      const context = await planUpdate(core, ids, prerelease);
      const { plan } = context;
      const pinned = await pinnedUpdates(core, context, ids, prerelease);
      if (plan.items.length === 0) return { plan, applied: false, installed: [], needsApproval: false, waiting: [], pinned };
      if (options.approve !== undefined || options.approvedDigest !== undefined) {
        await requireApproval(context, options, false);
        return {
          ...(await applyPlan(core, context, 'update', options)),
          needsApproval: plan.newPermissions.length > 0,
          waiting: [],
          pinned,
        };
      }
      if (plan.newPermissions.length === 0)
        return { ...(await applyPlan(core, context, 'update', options)), needsApproval: false, waiting: [], pinned };
      // Hold back what needs approval (and what cannot move without it); apply the rest.
      const plain = await planPlainUpdate(core, context, ids, prerelease);
      const waiting = waitingUpdates(plan, plain.plan);
      if (plain.plan.items.length === 0) return { plan, applied: false, installed: [], needsApproval: true, waiting, pinned };
      const applied = await applyPlan(core, plain, 'update', options);
      // `plan` is what is left: the plan the next update() carries out, so a host can show it and
      // pass its digest back as `approvedDigest`.
      const remaining = (await planUpdate(core, ids, prerelease, new Set(), false)).plan;
      return { plan: remaining, applied: applied.applied, installed: applied.installed, needsApproval: true, waiting, pinned };
    }),
  );
}

/**
 * The part of an update that needs no new permission: items asking for permissions are kept at
 * their installed version, and so is every target whose new version depends on one of them,
 * until the plan asks for nothing new (each round holds at least one more capability back).
 */
async function planPlainUpdate(
  core: StoreCore,
  full: PlanContext,
  ids: string[] | undefined,
  includePrerelease: boolean,
): Promise<PlanContext> {
  const held = new Set<string>();
  let context = full;
  for (;;) {
    const asking = context.plan.items.filter((i) => i.newPermissions.length > 0).map((i) => i.id);
    if (asking.length === 0) return context;
    const before = held.size;
    for (const id of dependentsWithin(context, new Set(asking))) held.add(id);
    if (held.size === before) return { ...context, plan: finishPlan([], context.plan.versions) };
    context = await planUpdate(core, ids, includePrerelease, held);
  }
}

/** Installed explicit targets the user's range keeps below a newer version. */
async function pinnedUpdates(
  core: StoreCore,
  context: PlanContext,
  ids: string[] | undefined,
  includePrerelease: boolean,
): Promise<PinnedUpdate[]> {
  const host = await core.hostEnvironment();
  const out: PinnedUpdate[] = [];
  for (const [id, state] of context.states) {
    if (state === null || !state.explicit || (ids !== undefined && !ids.includes(id))) continue;
    if (state.versions[state.active]?.source.kind === 'file') continue;
    const range = state.range ?? '*';
    const doc = context.located.get(id)?.doc;
    if (doc === undefined) continue;
    const newer = Object.values(doc.versions)
      .filter(
        (v) => v.status === undefined && semver.gt(v.version, state.active) && (includePrerelease || semver.prerelease(v.version) === null),
      )
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
