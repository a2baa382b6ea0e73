/**
 * Enable and disable (issue 17): a switch that turns an installed capability off (its files,
 * versions and grants stay; its tools stop running) or back on, the "Disabled" badge, and the
 * organisation's note when its policy manages the capability. Package text is shown as text only.
 */
import { useState } from 'react';
import type { HostError, InstalledSummary } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { useInstalled } from '../stores/installed.js';
import { ErrorBox } from './ErrorBox.js';

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

/** A real checkbox named "Enabled"; reloads the installed data after the change. */
export function EnabledToggle({ item }: { item: Pick<InstalledSummary, 'id' | 'disabled' | 'managed'> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HostError | null>(null);
  const enabled = item.disabled === undefined;
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
    <div className="enablement">
      <label className="toggle">
        <input type="checkbox" checked={enabled} disabled={busy} onChange={() => void change()} /> Enabled
      </label>
      {error !== null && <ErrorBox error={error} />}
    </div>
  );
}
