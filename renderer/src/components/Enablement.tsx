/**
 * Enable and disable: a switch that turns an installed capability off (its files,
 * versions and grants stay; its tools stop running) or back on, the "Disabled" badge, and the
 * organisation's note when its policy manages the capability. Package text is shown as text only.
 */
import { useId, useState } from 'react';
import type { HostError, InstalledSummary } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { useInstalled } from '../stores/installed.js';
import { ErrorBox } from './ErrorBox.js';
import './feedback.css';

export function DisabledBadge({ item }: { item: Pick<InstalledSummary, 'disabled'> }) {
  if (item.disabled === undefined) return null;
  return (
    <span className="badge warn" data-disabled={item.disabled.by}>
      Disabled{item.disabled.by === 'policy' ? ' by policy' : ''}
    </span>
  );
}

export function ManagedNote({ item }: { item: Pick<InstalledSummary, 'managed'> }) {
  if (item.managed === undefined) return null;
  return (
    <p className="small muted" data-managed="">
      <strong>Managed by your organisation.</strong> {item.managed.text}
    </p>
  );
}

/**
 * Why the policy keeps the switch where it is, or null when the user may flip it: a required
 * capability cannot be switched off, a blocked one cannot be switched on.
 */
function policyLock(item: Pick<InstalledSummary, 'disabled' | 'managed'>): { who: string; what: string } | null {
  if (item.managed?.required !== undefined && item.disabled?.by !== 'policy')
    return { who: 'Required by your organisation', what: 'it cannot be switched off.' };
  if (item.disabled?.by === 'policy' || item.managed?.blocked !== undefined)
    return { who: 'Blocked by your organisation', what: 'it cannot be switched on.' };
  return null;
}

/**
 * A switch (a checkbox with role="switch", WAI-ARIA APG "Switch": Space flips it, its state is
 * on or off) named "Enabled" (on a list row, "Enabled <name>", so each row's switch says which
 * capability it turns off), drawn as a track and thumb inside the row it belongs to; reloads the
 * installed data after the change. When the policy decides,
 * the switch is disabled and the reason is shown beside it and read with it (aria-describedby).
 */
export function EnabledToggle({
  item,
  row = false,
}: {
  item: Pick<InstalledSummary, 'id' | 'name' | 'disabled' | 'managed'>;
  row?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HostError | null>(null);
  const reasonId = useId();
  const enabled = item.disabled === undefined;
  const locked = policyLock(item);
  const change = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const result = enabled ? await host().installs.disable(item.id) : await host().installs.enable(item.id);
    setBusy(false);
    if (!result.ok) setError(result.error);
    const store = useInstalled.getState();
    void store.loadDetail(item.id);
    void store.loadOverview();
  };
  return (
    <div className={row ? 'enablement row-toggle' : 'enablement'} data-toggle-for={item.id}>
      <label className="toggle switch">
        <input
          type="checkbox"
          role="switch"
          checked={enabled}
          disabled={busy || locked !== null}
          aria-describedby={locked === null ? undefined : reasonId}
          onChange={() => void change()}
        />
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        <span>
          Enabled
          {row && <span className="visually-hidden"> {item.name}</span>}
        </span>
      </label>
      {locked !== null && (
        <span id={reasonId} className="small muted" data-policy-lock="">
          {/* On a row, the short reason (the page beside it says the rest); on the page, the whole sentence. */}
          {row ? `${locked.who}.` : `${locked.who}: ${locked.what}`}
        </span>
      )}
      {error !== null && <ErrorBox error={error} />}
    </div>
  );
}
