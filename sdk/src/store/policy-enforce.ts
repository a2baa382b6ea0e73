/**
 * Where the organisation policy (policy.ts, docs/admin.md) meets the install lifecycle:
 * the checks plan, install, update, grant, rollback, uninstall and run make with the policy in
 * force, `applyPolicy` (blocked ones disabled, required ones installed, enabled and updated,
 * automatic updates), the marks `list` shows, and what doctor reports.
 *
 * The policy is read once per operation (`policyForChange`), never cached across operations, so an
 * administrator's new file takes effect on the next operation. An invalid policy stops every change
 * with E_POLICY; read-only work (list, search, doctor) carries on and reports it.
 */
import { AdcapError, isAdcapError } from '../errors.js';
import { normalizeRemoteUrl, type RemoteConfig } from '../registry/remotes.js';
import type { Problem } from './doctor-problem.js';

export { managedMark, policyForReading, type ManagedMark } from './policy-marks.js';
import { setEnablement, type EnablementHook } from './enablement.js';
import type { Plan } from './plan.js';
import { grantString } from '../permissions/index.js';
import {
  assertGrantsAllowed,
  assertNotBlocked,
  assertRemoteAllowed,
  assertSideloadAllowed,
  assertSignedAllowed,
  blockedBy,
  deniedBy,
  managedBy,
  splitSpec,
  type LoadedPolicy,
} from './policy.js';
import { policyForReading } from './policy-marks.js';
import type { PackageState } from './state.js';
import type { InstalledView, PolicyView } from './store-view.js';

/**
 * What `applyPolicy` reads and calls: the installed side, the home lock, and
 * the public install and update, so the policy goes through the same approval and lifecycle as a
 * user would. `Arcotheon` is one.
 */
export interface PolicyHost extends InstalledView, PolicyView {
  readonly enablementHook: EnablementHook | undefined;
  installedIds(): Promise<string[]>;
  withHome<T>(purpose: string, fn: () => Promise<T>): Promise<T>;
  install(
    request: { id: string; range: string },
    options: { approve: () => boolean },
  ): Promise<{ installed: Array<{ id: string; version: string }> }>;
  update(
    ids: string[],
    options?: { approve: () => boolean },
  ): Promise<{ installed: Array<{ id: string; version: string }>; needsApproval: boolean }>;
}

/** The policy for an operation that changes something: E_POLICY when the file is invalid. */
export function policyForChange(arc: PolicyView): Promise<LoadedPolicy | null> {
  return arc.policyInForce();
}

/**
 * The checks every plan passes before anyone is asked to approve it: no blocked id or version, no
 * permission the policy denies, no file when sideloading is off, no package without a signature an
 * allowed registry trusts when unsigned packages are off, and only allowed registries.
 */
export function enforcePlan(loaded: LoadedPolicy | null, plan: Plan, remoteOf: (name: string) => RemoteConfig | undefined): void {
  if (loaded === null) return;
  for (const item of plan.items) {
    assertNotBlocked(loaded, item.id, item.version);
    if (item.source.kind === 'file') {
      assertSideloadAllowed(loaded, item.source.file);
      assertSignedAllowed(loaded, item.id, !item.source.unsigned && !item.source.unknownSigner);
    } else {
      const remote = remoteOf(item.source.remote);
      if (remote !== undefined) assertRemoteAllowed(loaded, remote);
    }
    assertGrantsAllowed(
      loaded,
      item.permissions.map((p) => ({ id: item.id, grant: grantString(p) })),
    );
  }
}

/**
 * The registries in force under the policy (docs/admin.md "The rules"): when it lists remotes,
 * exactly those (added for the user; no other is used). Without a `remotes` rule, `sideload: false`
 * or `unsigned: false` still mean "only registries the policy or the built-in configuration trust":
 * the host's own remotes (`builtIn`, the Arcotheon `remotes` option, by default the registry the SDK
 * ships), never one a user added to config.json with a key of their own, nor a user's entry that
 * takes a built-in one's name. null when the policy says nothing that limits registries.
 */
export function policyRemotes(loaded: LoadedPolicy | null, builtIn: readonly RemoteConfig[] = []): RemoteConfig[] | null {
  if (loaded === null) return null;
  if (loaded.policy.remotes !== undefined)
    return loaded.policy.remotes.map((r) => ({ name: r.name, url: normalizeRemoteUrl(r.url), rootKeys: [...r.rootKeys] }));
  if (loaded.policy.sideload === false || loaded.policy.unsigned === false)
    return builtIn.map((r) => ({ ...r, rootKeys: [...r.rootKeys] }));
  return null;
}

/**
 * E_POLICY when the tool may not run under the policy in force: its capability version is blocked,
 * or one of the permissions it uses is denied (a policy newer than the grant).
 */
export function assertToolAllowed(loaded: LoadedPolicy | null, id: string, version: string, permissions: readonly string[]): void {
  if (loaded === null) return;
  assertNotBlocked(loaded, id, version);
  assertGrantsAllowed(
    loaded,
    permissions.map((grant) => ({ id, grant })),
  );
}

/** Whether the tool may run under the policy (what assertToolAllowed checks), for lists such as MCP's. */
export function toolAllowed(loaded: LoadedPolicy | null, id: string, version: string, permissions: readonly string[]): boolean {
  if (loaded === null) return true;
  return blockedBy(loaded.policy, id, version) === undefined && permissions.every((p) => deniedBy(loaded.policy, p) === undefined);
}

/** What `applyPolicy` did, and what it could not do (each with its error code and sentence). */
export interface PolicyApplyResult {
  /** Where the policy came from; null when none is in force. */
  policy: { path: string; source: LoadedPolicy['source'] } | null;
  /** Capabilities the policy's `blocked` rule switched off, each with the entry that blocks it. */
  disabled: Array<{ id: string; rule: string }>;
  /** Capabilities switched back on because the policy no longer blocks them (or requires them). */
  enabled: string[];
  /** Required capabilities installed. */
  installed: Array<{ id: string; version: string }>;
  /** Capabilities updated (required ones within their range, and automatic updates). */
  updated: Array<{ id: string; version: string }>;
  /** Updates that need a new permission, left for the user to approve (automatic updates only). */
  awaitingApproval: string[];
  /** What could not be done (a required capability offline, say), each with its error code and sentence. */
  failed: Array<{ id: string; code: string; message: string }>;
}

/**
 * Brings this home in line with the policy in force (a host calls it at start-up; `adcap policy
 * apply`):
 * - `blocked`: installed versions it matches are disabled (by: 'policy', rule recorded); ones the
 *   policy disabled and no longer blocks are enabled again.
 * - `required`: missing ones are installed, disabled ones enabled, and all kept updated; the
 *   permissions they declare are granted by the policy (no one is asked).
 * - `updates.automatic`: every other enabled capability is updated when the update needs no new
 *   permission; the others are listed in `awaitingApproval`.
 * An invalid policy throws E_POLICY. A required capability that cannot be installed or updated
 * (offline, not found, denied) is reported in `failed`, and the rest still goes ahead.
 */
export async function applyPolicy(arc: PolicyHost, now: string): Promise<PolicyApplyResult> {
  const loaded = await policyForChange(arc);
  const result: PolicyApplyResult = {
    policy: loaded === null ? null : { path: loaded.path, source: loaded.source },
    disabled: [],
    enabled: [],
    installed: [],
    updated: [],
    awaitingApproval: [],
    failed: [],
  };
  const fail = (id: string, error: unknown): void => {
    const e = isAdcapError(error) ? error : new AdcapError('E_IO', String(error));
    result.failed.push({ id, code: e.code, message: e.message });
  };

  // 1. blocked: disable what the policy blocks; enable what it disabled and no longer blocks.
  await arc.withHome('policy apply', async () => {
    for (const id of await arc.installedIds()) {
      const state = await arc.state(id);
      const entry = loaded === null ? undefined : blockedBy(loaded.policy, id, state.active);
      if (entry !== undefined && (state.disabled?.by !== 'policy' || state.disabled.rule !== entry)) {
        await setEnablement(arc, id, { at: now, by: 'policy', rule: entry }, arc.enablementHook);
        result.disabled.push({ id, rule: entry });
      } else if (entry === undefined && state.disabled?.by === 'policy') {
        await setEnablement(arc, id, null, arc.enablementHook);
        result.enabled.push(id);
      }
    }
  });
  if (loaded === null) return result;

  // 2. required: installed (with the policy's grant of their permissions), enabled, updated.
  const required = loaded.policy.required ?? [];
  for (const entry of required) {
    const { id, range } = splitSpec(entry);
    try {
      const installed = await arc.installedIds();
      if (!installed.includes(id)) {
        const done = await arc.install({ id, range: range ?? '*' }, { approve: () => true });
        result.installed.push(...done.installed);
        continue;
      }
      const state = await arc.state(id);
      if (state.disabled?.by === 'user') {
        await arc.withHome(`policy enable ${id}`, () => setEnablement(arc, id, null, arc.enablementHook));
        result.enabled.push(id);
      }
      // Keep it to the policy's range (any version when it names none), explicit: asking for it
      // records the range, so the update below may move it anywhere the policy allows.
      const wanted = range ?? '*';
      if (state.range !== wanted || !state.explicit) {
        const done = await arc.install({ id, range: wanted }, { approve: () => true });
        result.installed.push(...done.installed);
      }
      const updated = await arc.update([id], { approve: () => true });
      result.updated.push(...updated.installed);
    } catch (error) {
      fail(id, error);
    }
  }

  // 3. updates.automatic: everything else that is enabled, one capability at a time, so one that
  //    needs a new permission does not hold back the others.
  if (loaded.policy.updates?.automatic === true) {
    const requiredIds = new Set(required.map((r) => splitSpec(r).id));
    for (const id of await arc.installedIds()) {
      if (requiredIds.has(id)) continue;
      const state = await arc.state(id);
      if (state.disabled !== undefined || !state.explicit) continue;
      try {
        const updated = await arc.update([id]);
        if (updated.needsApproval) result.awaitingApproval.push(id);
        result.updated.push(...updated.installed);
      } catch (error) {
        fail(id, error);
      }
    }
  }
  return result;
}

/** Doctor's policy findings: an invalid policy, blocked capabilities installed, required ones missing, denied grants held. */
export async function policyFindings(
  arc: PolicyView & Pick<InstalledView, 'state'> & { installedIds(): Promise<string[]> },
): Promise<Problem[]> {
  const { loaded, error } = await policyForReading(arc);
  if (error !== undefined) return [{ kind: 'policy', message: error.message, fixable: false }];
  if (loaded === null) return [];
  const problems: Problem[] = [];
  const fix = 'run "adcap policy apply" (or arc.applyPolicy())';
  const installed = new Map<string, PackageState>();
  for (const id of await arc.installedIds()) installed.set(id, await arc.state(id));
  for (const [id, state] of installed) {
    const entry = blockedBy(loaded.policy, id, state.active);
    if (entry !== undefined && state.disabled?.by !== 'policy') {
      problems.push({
        kind: 'policy',
        id,
        version: state.active,
        message: `${id}@${state.active} is blocked by the policy (${entry}) but still enabled; ${fix}. ${managedBy(loaded, 'blocked')}`,
        fixable: false,
      });
    }
    for (const grant of state.grants) {
      const pattern = deniedBy(loaded.policy, grant);
      if (pattern !== undefined) {
        problems.push({
          kind: 'policy',
          id,
          version: state.active,
          message:
            `${id} holds the grant ${grant}, which the policy denies (${pattern}); ` +
            `tools that use it are refused. ${managedBy(loaded, 'deniedPermissions')}`,
          fixable: false,
        });
      }
    }
  }
  for (const entry of loaded.policy.required ?? []) {
    const { id } = splitSpec(entry);
    const state = installed.get(id);
    if (state === undefined) {
      problems.push({
        kind: 'policy',
        id,
        message: `${id} is required by the policy (${entry}) but not installed; ${fix}. ${managedBy(loaded, 'required')}`,
        fixable: false,
      });
    } else if (state.disabled !== undefined) {
      problems.push({
        kind: 'policy',
        id,
        message: `${id} is required by the policy (${entry}) but disabled; ${fix}. ${managedBy(loaded, 'required')}`,
        fixable: false,
      });
    }
  }
  return problems;
}
