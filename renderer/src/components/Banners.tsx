/**
 * The banner above every screen when something needs the user (docs/ui.md "Navigation"): a revoked or
 * broken install, a catalogue that could not be verified, an update waiting for permission, and an
 * organisation policy that is refused or could not be applied at start-up.
 */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { timeAgo } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { nameOf, troubled, useInstalled } from '../stores/installed.js';
import { useSettings } from '../stores/settings.js';

export function Banners() {
  const problems = useInstalled(useShallow(troubled));
  // Named as the Installed list names them (their id until it has loaded).
  const waiting = useInstalled(
    useShallow((s) => (s.updates.value?.updates ?? []).filter((u) => u.needsApproval).map((u) => nameOf(u.id)(s))),
  );
  // From each registry's last attempt: one that was never read yet is not a problem (a fresh home).
  const troubledRemotes = useSettings(useShallow((s) => (s.remotes ?? []).filter((r) => r.state === 'failed' || r.state === 'refused')));
  const remotesLoaded = useSettings((s) => s.remotes !== null);
  const policy = useSettings(useShallow(policyProblem));

  useEffect(() => {
    if (!remotesLoaded) void useSettings.getState().loadRemotes();
  }, [remotesLoaded]);

  if (problems.length === 0 && waiting.length === 0 && troubledRemotes.length === 0 && policy === null) return null;
  return (
    <div className="banners" role="region" aria-label="Needs your attention">
      {policy !== null && (
        <div className={`banner ${policy.danger ? 'danger' : 'warn'}`} data-banner="policy">
          <span aria-hidden="true">⚠</span>
          <span className="grow">
            <strong>{policy.title}</strong> {policy.message}
          </span>
          <a className="button small" href={hrefOf({ screen: 'health' })}>
            Open Health
          </a>
        </div>
      )}
      {problems.map((p) => (
        <div key={p.id} className={`banner ${p.health === 'revoked' ? 'danger' : 'warn'}`} data-banner={p.health}>
          <span aria-hidden="true">⚠</span>
          <span className="grow">
            <strong>
              {p.name} {p.health === 'revoked' ? 'was revoked' : 'is broken'}.
            </strong>{' '}
            {p.healthReason ?? ''}
          </span>
          <a className="button small" href={hrefOf({ screen: 'health' })}>
            {p.health === 'revoked' ? 'Review' : 'Repair'}
          </a>
        </div>
      ))}
      {troubledRemotes.map((r) => (
        <div key={r.name} className="banner warn" data-banner="catalogue" data-remote={r.name}>
          <span aria-hidden="true">⚠</span>
          <span className="grow">
            <strong>
              {r.state === 'refused'
                ? `The registry "${r.name}" could not be verified; its catalogue is not being used.`
                : r.lastVerifiedAt === null
                  ? `The registry "${r.name}" could not be read.`
                  : `The registry "${r.name}" could not be checked; Discover shows its catalogue verified ${timeAgo(r.lastVerifiedAt)}.`}
            </strong>{' '}
            {r.error?.message ?? ''}
          </span>
          <a className="button small" href={hrefOf({ screen: 'settings' })}>
            Open Settings
          </a>
        </div>
      ))}
      {waiting.length > 0 && (
        <div className="banner info" data-banner="update-permission">
          <span aria-hidden="true">↻</span>
          <span className="grow">
            {waiting.length === 1 ? `An update to ${waiting[0]} asks` : `${waiting.length} updates ask`} for new permissions.
          </span>
          <a className="button small" href={hrefOf({ screen: 'updates' })}>
            Review
          </a>
        </div>
      )}
    </div>
  );
}

/**
 * Selector: what went wrong with the organisation policy, for the banner: a policy that is refused
 * (every change is stopped), one that could not be applied, or required capabilities that could
 * not be installed. Null when all is well (or no policy is in force).
 */
function policyProblem(s: ReturnType<typeof useSettings.getState>): { danger: boolean; title: string; message: string } | null {
  const status = s.policy;
  if (status === null) return null;
  if (status.error !== null)
    return { danger: true, title: 'Your organisation\u2019s policy is refused, so no changes can be made.', message: status.error.message };
  const last = status.lastApply;
  if (last === null) return null;
  if (last.error !== null)
    return { danger: true, title: 'Your organisation\u2019s policy could not be applied.', message: last.error.message };
  const failed = last.result?.failed ?? [];
  if (failed.length === 0) return null;
  return {
    danger: false,
    title: `Your organisation requires ${failed.map((f) => f.id).join(', ')}, which could not be installed or updated.`,
    message: failed[0]?.message ?? '',
  };
}
