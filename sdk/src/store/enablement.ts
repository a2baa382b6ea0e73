/**
 * Enable and disable: a disabled capability keeps its files, its versions (rollback
 * still works), its grants and its tool data; only its tools stop running (`runTool`, workflows and
 * MCP refuse with E_DISABLED) and `mcpServe` stops listing them. The mark lives in its state.json
 * (`disabled: { at, by, rule? }`), so it survives updates and rollbacks, and a file written before
 * this existed reads as enabled.
 */
import { resumeLinks, suspendLinks } from './agent-links/suspend-links.js';
import { AdcapError } from '../errors.js';
import { reasonError } from '../surface-text.js';
import type { InstalledView } from './store-view.js';
import { assertNotBlocked, assertNotRequired, managedBy, type LoadedPolicy } from './policy.js';
import type { DisabledMark, PackageState } from './state.js';
import { runOperation } from './transaction.js';

/** What `disable` and `enable` report. `changed` is false when it already was in that state. */
export interface EnablementResult {
  /** The capability. */
  id: string;
  /** Whether it is switched on now. */
  enabled: boolean;
  /** False when it already was in that state. */
  changed: boolean;
  /** When it is off: since when and by whom. */
  disabled?: DisabledMark;
}

/**
 * Called after a capability is disabled or enabled, inside the home lock, after its agent links
 * were taken off or put back (agent-links/suspend-links.ts): a host that keeps its own
 * registrations (an MCP server list, say) passes one through ArcotheonOptions.onEnablement.
 */
export type EnablementHook = (change: { id: string; enabled: boolean; state: PackageState }) => void | Promise<void>;

/** E_DISABLED with how to switch it back on (or who switched it off). */
export function disabledError(id: string, mark: DisabledMark, loaded: LoadedPolicy | null = null): AdcapError {
  // Switched off by the user: how to switch it back on depends on where the message is read.
  if (mark.by !== 'policy') return reasonError('disabled-by-user', { id, disabled: mark });
  const how =
    "It was switched off by your organisation's policy (blocked: " +
    `${mark.rule ?? id})${loaded === null ? '' : `. ${managedBy(loaded, 'blocked')}`}`;
  return new AdcapError('E_DISABLED', `${id} is disabled, so its tools do not run. ${how}.`.replace(/\.\.$/, '.'), {
    details: { id, disabled: mark },
  });
}

/** Throws E_DISABLED when the installed capability is switched off (run, workflows, MCP). */
export function assertEnabled(state: PackageState): void {
  if (state.disabled !== undefined) throw disabledError(state.id, state.disabled);
}

/**
 * Sets or clears the disabled mark of `id` under the home lock, through the journal like any other
 * state change. `mark: null` enables. A required capability cannot be disabled by the user, and a
 * capability the policy blocks cannot be enabled (checked by the caller with the policy in force).
 */
export async function setEnablement(
  arc: InstalledView,
  id: string,
  mark: DisabledMark | null,
  hook: EnablementHook | undefined,
): Promise<EnablementResult> {
  const state = await arc.state(id);
  const already = mark === null ? state.disabled === undefined : state.disabled?.by === mark.by && state.disabled.rule === mark.rule;
  if (already) return { id, enabled: mark === null, changed: false, ...(state.disabled === undefined ? {} : { disabled: state.disabled }) };
  const { disabled: _previous, ...rest } = state;
  const after: PackageState = mark === null ? rest : { ...rest, disabled: mark };
  await runOperation(arc.home, { op: mark === null ? 'enable' : 'disable', before: { [id]: state }, after: { [id]: after }, creates: [] });
  // Its skills leave the agents' folders while it is off and come back as they were.
  // What cannot be done is left for doctor to report (the state change above has happened).
  await (mark === null ? resumeLinks(arc, id) : suspendLinks(arc, id));
  await hook?.({ id, enabled: mark === null, state: after });
  return { id, enabled: mark === null, changed: true, ...(mark === null ? {} : { disabled: mark }) };
}

/** `arc.disable(id)`: refuses a capability the policy requires (E_POLICY, rule "required"). */
export async function disableCapability(
  arc: InstalledView,
  id: string,
  loaded: LoadedPolicy | null,
  now: string,
  hook: EnablementHook | undefined,
): Promise<EnablementResult> {
  assertNotRequired(loaded, id, 'disable');
  const state = await arc.state(id);
  // Already off (by the user or by the policy): nothing changes, and a policy mark stays a policy mark.
  if (state.disabled !== undefined) return { id, enabled: false, changed: false, disabled: state.disabled };
  return setEnablement(arc, id, { at: now, by: 'user' }, hook);
}

/** `arc.enable(id)`: refuses a capability whose installed version the policy blocks (E_POLICY). */
export async function enableCapability(
  arc: InstalledView,
  id: string,
  loaded: LoadedPolicy | null,
  hook: EnablementHook | undefined,
): Promise<EnablementResult> {
  const state = await arc.state(id);
  assertNotBlocked(loaded, id, state.active);
  return setEnablement(arc, id, null, hook);
}
