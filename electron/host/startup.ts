/**
 * What a host does once when it starts (docs/admin.md "Applying the policy"):
 * it brings the home in line with the organisation policy (`arc.applyPolicy()`:
 * required capabilities installed, enabled and updated, blocked ones disabled), then, where asked,
 * runs doctor on the result. Both run as operations of the host service, so their progress and
 * results reach the UI like any other operation (the operation events, `operations.list`, and
 * `policy.show` for the policy's outcome). Nothing here is fatal: a policy that cannot be applied
 * (invalid, a required capability offline) leaves the host serving, and the UI shows a banner.
 * Transport-agnostic: the Electron utility process and `arcotheon ui` both call it.
 */
import type { Result } from '../common/types.js';
import type { HostService } from './service.js';

export interface StartUpOutcome {
  /** The final Result of `policy.apply` (ok with nothing done when no policy is in force). */
  policy: Result<unknown>;
  /** The final Result of `doctor.run`, when it was asked for. */
  doctor: Result<unknown> | null;
}

/** Runs an operation method through `dispatch` (as a transport would) and waits for its Result. */
async function runToEnd(service: Pick<HostService, 'dispatch'>, method: 'policy.apply' | 'doctor.run'): Promise<Result<unknown>> {
  const started = await service.dispatch(method, []);
  if (!started.ok) return started;
  return service.dispatch('operations.wait', [(started.value as { operation: string }).operation]);
}

/**
 * Applies the policy, then (with `doctor`) checks the home, one after the other so doctor sees
 * the home as the policy left it. `log` hears a one-line summary of what could not be done.
 */
export async function startUp(
  service: Pick<HostService, 'dispatch'>,
  options: { doctor: boolean; log?: (message: string) => void },
): Promise<StartUpOutcome> {
  // Messages can quote a registry's or a policy's text: no terminal control characters reach a log.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const log = (message: string): void => options.log?.(message.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?'));
  const policy = await runToEnd(service, 'policy.apply');
  if (!policy.ok) log(`the organisation policy could not be applied: ${policy.error.message} (${policy.error.code})`);
  else {
    const failed = (policy.value as { failed?: Array<{ id: string; code: string; message: string }> }).failed ?? [];
    for (const f of failed)
      log(`the organisation policy requires ${f.id}, which could not be installed or updated: ${f.message} (${f.code})`);
  }
  const doctor = options.doctor ? await runToEnd(service, 'doctor.run') : null;
  return { policy, doctor };
}
