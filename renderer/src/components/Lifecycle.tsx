/**
 * Roll back and Uninstall, shared by the capability page and the Installed page. Both say what will
 * change first: the version that comes back and the grants it brings back; what else is removed,
 * or which installed capabilities still need this one (then uninstall is refused up front).
 */
import { useState } from 'react';
import type { InstalledDetail } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { navigate } from '../router.js';
import { ConfirmDialog } from './ConfirmDialog.js';

export function RollbackButton({ detail }: { detail: InstalledDetail }) {
  const [open, setOpen] = useState(false);
  const rollback = detail.rollback;
  if (rollback === null) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Roll back to {rollback.to}
      </button>
      {open && (
        <ConfirmDialog
          title={`Roll back ${detail.name} to ${rollback.to}?`}
          action={`Roll back to ${rollback.to}`}
          onConfirm={() => host().installs.rollback(detail.id)}
          onClose={() => setOpen(false)}
        >
          <p>
            {detail.name} goes back from {detail.version} to {rollback.to}, the version you had before. {detail.version} stays on this
            computer until it is cleaned up, so you can update again.
          </p>
          <h3>Permissions after rolling back</h3>
          {rollback.grants.length === 0 ? (
            <p className="muted">None: {rollback.to} had no permissions granted.</p>
          ) : (
            <ul>
              {rollback.grants.map((g) => (
                <li key={g}>
                  <code>{g}</code>
                  {rollback.grantsAdded.includes(g) && <span className="badge warn">comes back</span>}
                </li>
              ))}
            </ul>
          )}
          {rollback.grantsRemoved.length > 0 && (
            <p>
              No longer granted:{' '}
              {rollback.grantsRemoved.map((g) => (
                <code key={g}>{g} </code>
              ))}
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

export function UninstallButton({ detail, afterwards = 'installed' }: { detail: InstalledDetail; afterwards?: 'installed' | 'stay' }) {
  const [open, setOpen] = useState(false);
  const blocked = detail.dependents.length > 0;
  return (
    <>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Uninstall
      </button>
      {open &&
        (blocked ? (
          <ConfirmDialog
            title={`${detail.name} is still needed`}
            action="Show them"
            onConfirm={async () => {
              navigate({ screen: 'installed', id: null });
              return { ok: true, value: null };
            }}
            onClose={() => setOpen(false)}
          >
            <p role="alert">
              {detail.name} cannot be uninstalled while these installed capabilities depend on it:{' '}
              <strong>{detail.dependents.join(', ')}</strong>. Uninstall them first.
            </p>
          </ConfirmDialog>
        ) : (
          <ConfirmDialog
            title={`Uninstall ${detail.name}?`}
            action="Uninstall"
            danger
            onConfirm={() => host().installs.uninstall(detail.id)}
            onClose={(done) => {
              setOpen(false);
              if (done && afterwards === 'installed') navigate({ screen: 'installed', id: null });
            }}
          >
            <p>
              {detail.name} {detail.version} and its kept earlier versions ({detail.versions.length}) are removed from this computer, with
              its permissions ({detail.grants.length} granted). Capabilities installed only for it are removed too.
            </p>
          </ConfirmDialog>
        ))}
    </>
  );
}
