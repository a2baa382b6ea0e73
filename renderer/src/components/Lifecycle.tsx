/**
 * Roll back and Uninstall, shared by the capability page and the Installed page. Both say what will
 * change first (docs/ui.md "Destructive actions"): the version that comes back and its permissions as
 * sentences, which come back and which end; what else is removed, or which installed capabilities
 * still need this one (then uninstall is refused up front). After a rollback the kept newer version
 * is offered as an update ("Update to 1.1.0"), not as a rollback.
 */
import { useState } from 'react';
import type { InstalledDetail } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { navigate } from '../router.js';
import { installedNames, useInstalled } from '../stores/installed.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { PermissionItem } from './Permissions.js';

export function RollbackButton({ detail }: { detail: InstalledDetail }) {
  const [open, setOpen] = useState(false);
  const rollback = detail.rollback;
  if (rollback === null) return null;
  const forward = rollback.direction === 'forward';
  const action = forward ? `Update to ${rollback.to}` : `Roll back to ${rollback.to}`;
  const granted = rollback.permissions.filter((p) => p.granted === true);
  const notGranted = rollback.permissions.filter((p) => p.granted !== true);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-rollback={rollback.direction}>
        {action}
      </button>
      {open && (
        <ConfirmDialog
          title={forward ? `Update ${detail.name} to ${rollback.to} again?` : `Roll back ${detail.name} to ${rollback.to}?`}
          action={action}
          onConfirm={() => host().installs.rollback(detail.id)}
          onClose={() => setOpen(false)}
          tray={{
            label: forward ? `Update ${detail.name} to ${rollback.to}` : `Roll back ${detail.name} to ${rollback.to}`,
            texts: {
              done: forward ? `Updated ${detail.name} to ${rollback.to}` : `Rolled back ${detail.name} to ${rollback.to}`,
              failed: forward ? `${detail.name} could not be updated to ${rollback.to}` : `${detail.name} could not be rolled back`,
            },
            subject: detail.id,
          }}
        >
          <p>
            {forward
              ? `${detail.name} goes from ${detail.version} to ${rollback.to}, the version you rolled back from. It is still on this ` +
                `computer, so nothing is downloaded, and ${detail.version} stays too, so you can roll back again.`
              : `${detail.name} goes from ${detail.version} back to ${rollback.to}, the version you had before. ${detail.version} stays ` +
                'on this computer until it is cleaned up, so you can update again.'}
          </p>
          <h3>{forward ? 'Permissions after updating' : 'Permissions after rolling back'}</h3>
          {granted.length === 0 ? (
            <p className="muted">None: {rollback.to} is granted no access beyond its own files.</p>
          ) : (
            <ul className="permissions">
              {granted.map((p) => (
                <PermissionItem
                  key={p.grant}
                  permission={p}
                  action={rollback.grantsAdded.includes(p.grant) ? <span className="badge warn">Comes back</span> : undefined}
                />
              ))}
            </ul>
          )}
          {notGranted.length > 0 && (
            <>
              <h3>Asked for by {rollback.to} but not granted</h3>
              <ul className="permissions">
                {notGranted.map((p) => (
                  <PermissionItem key={p.grant} permission={p} />
                ))}
              </ul>
            </>
          )}
          {rollback.removed.length > 0 && (
            <>
              <h3>No longer granted</h3>
              <ul className="permissions">
                {rollback.removed.map((p) => (
                  <PermissionItem key={p.grant} permission={p} marker="removed" />
                ))}
              </ul>
            </>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

export function UninstallButton({ detail, afterwards = 'installed' }: { detail: InstalledDetail; afterwards?: 'installed' | 'stay' }) {
  const [open, setOpen] = useState(false);
  const blocked = detail.dependents.length > 0;
  const list = useInstalled((s) => s.overview.value);
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
              <strong>{installedNames(detail.dependents, list)}</strong>. Uninstall them first.
            </p>
          </ConfirmDialog>
        ) : (
          <ConfirmDialog
            title={`Uninstall ${detail.name}?`}
            action="Uninstall"
            danger
            onConfirm={() => host().installs.uninstall(detail.id)}
            tray={{
              label: `Uninstall ${detail.name}`,
              texts: { done: `Uninstalled ${detail.name}`, failed: `${detail.name} could not be uninstalled` },
              subject: detail.id,
            }}
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
