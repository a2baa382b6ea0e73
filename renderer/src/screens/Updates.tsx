/**
 * Updates: each available update with its permission difference (added first and highlighted,
 * widened, removed). One that adds permissions is applied only after the user says yes in a
 * dialog that names them; its approval is the digest of exactly that update.
 */
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AvailableUpdate, HostError, UpdatesCheck } from '../../../electron/common/index.js';
import { Dialog } from '../components/Dialog.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { Markdown } from '../components/Markdown.js';
import { PermissionItem } from '../components/Permissions.js';
import { host } from '../host.js';
import { formatBytes, timeAgo } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { nameOf, useInstalled } from '../stores/installed.js';
import { runOperation } from '../stores/operations.js';

export function Updates() {
  const { updates, checkUpdates } = useInstalled();
  const [confirm, setConfirm] = useState<{ ids: string[] | null; list: AvailableUpdate[]; digest: string } | null>(null);
  const [applying, setApplying] = useState<string | null>(null);
  const [error, setError] = useState<HostError | null>(null);

  useEffect(() => {
    void checkUpdates();
  }, [checkUpdates]);

  const apply = async (ids: string[] | null, digest: string | null): Promise<void> => {
    setApplying(ids === null ? 'all' : (ids[0] ?? ''));
    setError(null);
    const label = ids === null ? 'Update everything' : `Update ${ids.join(', ')}`;
    const result = await runOperation(label, () =>
      digest === null ? host().updates.apply(ids) : host().updates.apply(ids, { approvedDigest: digest }),
    );
    setApplying(null);
    if (!result.ok) setError(result.error);
    else if (!result.value.applied && result.value.needsApproval)
      setError({ code: 'E_DENIED', message: 'This update asks for new permissions and was not applied without your approval.' });
    void checkUpdates();
  };

  const check: UpdatesCheck | null = updates.value;
  const visible = (check?.updates ?? []).filter((u) => !u.dependency);
  return (
    <div className="screen screen-narrow">
      <div className="screen-header">
        <div>
          <h1 tabIndex={-1}>Updates</h1>
          <p>{check === null ? 'Checking your registries…' : `Catalogues checked ${timeAgo(check.checkedAt)}.`}</p>
        </div>
        <div className="actions">
          <button type="button" onClick={() => void checkUpdates()} disabled={updates.loading}>
            {updates.loading ? 'Checking…' : 'Check now'}
          </button>
          {check !== null && check.allDigest !== null && visible.length > 1 && (
            <button
              type="button"
              className="primary"
              disabled={applying !== null}
              onClick={() =>
                check.allNeedsApproval
                  ? setConfirm({ ids: null, list: check.updates, digest: check.allDigest as string })
                  : void apply(null, check.allDigest)
              }
            >
              Update all
            </button>
          )}
        </div>
      </div>
      {updates.error !== null && <ErrorBox error={updates.error} onRetry={() => void checkUpdates()} />}
      {error !== null && <ErrorBox error={error} />}
      {(check?.unreachable ?? []).map((u) => (
        <div key={u.remote} className="warning" style={{ marginBottom: 10 }}>
          <span aria-hidden="true">⚠</span>
          <div>
            <strong>{u.remote} could not be reached.</strong> {u.message} The check used its last verified catalogue.
          </div>
        </div>
      ))}
      {check === null ? (
        updates.error === null && <Loading what="updates" />
      ) : visible.length === 0 ? (
        <div className="empty">
          <strong>Everything is up to date</strong>
          Catalogues were last checked {timeAgo(check.checkedAt)}.
        </div>
      ) : (
        <ul className="stack" style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-label="Available updates">
          {visible.map((u) => (
            <li key={u.id} className="panel" data-update={u.id}>
              <div className="row" style={{ justifyContent: 'space-between' }}>
                <div>
                  <h2 style={{ margin: 0 }}>
                    <a href={hrefOf({ screen: 'capability', id: u.id })}>
                      <InstalledName id={u.id} />
                    </a>
                  </h2>
                  <div className="mono small muted">{u.id}</div>
                  <div className="muted">
                    {u.from} → <strong>{u.to}</strong> · {u.downloadSize === 0 ? 'nothing to download' : formatBytes(u.downloadSize)}
                  </div>
                </div>
                <button
                  type="button"
                  className="primary"
                  disabled={applying !== null}
                  onClick={() =>
                    u.needsApproval ? setConfirm({ ids: [u.id], list: [u], digest: u.digest }) : void apply([u.id], u.digest)
                  }
                >
                  {applying === u.id ? 'Updating…' : u.needsApproval ? 'Review and update' : 'Update'}
                </button>
              </div>
              <Changes update={u} />
              {u.warnings.length > 0 && (
                <ul className="small">
                  {u.warnings.map((w, i) => (
                    <li key={i}>{w}</li>
                  ))}
                </ul>
              )}
              {u.changelog !== null && (
                <details>
                  <summary>What changed</summary>
                  <Markdown text={u.changelog} />
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
      {confirm !== null && (
        <UpdateDialog
          updates={confirm.list}
          onCancel={() => setConfirm(null)}
          onAccept={() => {
            const { ids, digest } = confirm;
            setConfirm(null);
            void apply(ids, digest);
          }}
        />
      )}
    </div>
  );
}

/** An installed capability's name (its id until the list has loaded). */
function InstalledName({ id }: { id: string }) {
  return <>{useInstalled(nameOf(id))}</>;
}

function Changes({ update }: { update: AvailableUpdate }) {
  const name = useInstalled(nameOf(update.id));
  const { added, widened, removed } = update.changes;
  if (added.length + widened.length + removed.length === 0) return <p className="muted">No change to what it may do.</p>;
  return (
    <ul className="permissions" style={{ marginTop: 10 }} aria-label={`Permission changes for ${name}`}>
      {added.map((p) => (
        <PermissionItem key={`a-${p.grant}`} permission={p} marker="added" />
      ))}
      {widened.map((p) => (
        <PermissionItem key={`w-${p.grant}`} permission={{ ...p, text: `${p.text} (was: ${p.was})` }} marker="widened" />
      ))}
      {removed.map((p) => (
        <PermissionItem key={`r-${p.grant}`} permission={p} marker="removed" />
      ))}
    </ul>
  );
}

/** The dialog that names every new permission before an update that adds them. */
function UpdateDialog({ updates, onCancel, onAccept }: { updates: AvailableUpdate[]; onCancel: () => void; onAccept: () => void }) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const asking = updates.filter((u) => u.changes.added.length + u.changes.widened.length > 0);
  const names = useInstalled(useShallow((s) => updates.map((u) => nameOf(u.id)(s))));
  const title = updates.length === 1 ? `Update ${names[0] ?? ''} to ${updates[0]?.to ?? ''}?` : `Apply ${updates.length} updates?`;
  return (
    <Dialog
      title={title}
      onCancel={onCancel}
      initialFocus={cancelRef}
      wide
      footer={
        <>
          <button ref={cancelRef} type="button" onClick={onCancel}>
            Not now
          </button>
          <button type="button" className="primary" onClick={onAccept}>
            Allow and update
          </button>
        </>
      }
    >
      <p>
        {asking.length === 1
          ? 'This update asks for more than the installed version had:'
          : 'These updates ask for more than the installed versions had:'}
      </p>
      {asking.map((u) => (
        <section key={u.id} aria-label={`New permissions for ${names[updates.indexOf(u)] ?? u.id}`} style={{ marginTop: 10 }}>
          {updates.length > 1 && <h3>{names[updates.indexOf(u)] ?? u.id}</h3>}
          <ul className="permissions">
            {u.changes.added.map((p) => (
              <PermissionItem key={p.grant} permission={p} marker="added" />
            ))}
            {u.changes.widened.map((p) => (
              <PermissionItem key={p.grant} permission={{ ...p, text: `${p.text} (was: ${p.was})` }} marker="widened" />
            ))}
            {u.changes.removed.map((p) => (
              <PermissionItem key={`r-${p.grant}`} permission={p} marker="removed" />
            ))}
          </ul>
        </section>
      ))}
      <p className="muted" style={{ marginTop: 12 }}>
        If you say not now, nothing changes: the installed version keeps running with the permissions it has.
      </p>
    </Dialog>
  );
}
