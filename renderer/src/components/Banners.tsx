/**
 * The banner above every screen when something needs the user (UI.md "Navigation"): a revoked or
 * broken install, a catalogue that could not be verified, an update waiting for permission.
 */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { hrefOf } from '../router.js';
import { troubled, useInstalled } from '../stores/installed.js';
import { useSettings } from '../stores/settings.js';

export function Banners() {
  const problems = useInstalled(useShallow(troubled));
  const waiting = useInstalled(useShallow((s) => (s.updates.value?.updates ?? []).filter((u) => u.needsApproval).map((u) => u.id)));
  const unverified = useSettings(useShallow((s) => (s.remotes ?? []).filter((r) => r.error !== null).map((r) => r.name)));
  const remotesLoaded = useSettings((s) => s.remotes !== null);

  useEffect(() => {
    if (!remotesLoaded) void useSettings.getState().loadRemotes();
  }, [remotesLoaded]);

  if (problems.length === 0 && waiting.length === 0 && unverified.length === 0) return null;
  return (
    <div className="banners" role="region" aria-label="Needs your attention">
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
      {unverified.length > 0 && (
        <div className="banner warn" data-banner="catalogue">
          <span aria-hidden="true">⚠</span>
          <span className="grow">
            <strong>{unverified.join(', ')}</strong> could not be verified; its catalogue is not being used.
          </span>
          <a className="button small" href={hrefOf({ screen: 'settings' })}>
            Open Settings
          </a>
        </div>
      )}
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
