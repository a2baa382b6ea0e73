/**
 * Installed: what is on this computer with its status (ok, update available, broken, revoked)
 * and an Enabled switch on each row; one capability's page with its grants (revoke, re-grant), skill folders, versions kept for
 * rollback, and uninstall (refused with the dependents named when it would break them).
 */
import { useEffect, useState } from 'react';
import type { HostError, InstalledDetail, InstalledHealth, InstalledSummary, PermissionView } from '../../../electron/common/index.js';
import { useCardRiskMarker } from '../components/CardRisk.js';
import { DisabledBadge, EnabledToggle, ManagedNote } from '../components/Enablement.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { RollbackButton, UninstallButton } from '../components/Lifecycle.js';
import { Monogram } from '../components/Monogram.js';
import { PermissionItem } from '../components/Permissions.js';
import { host } from '../host.js';
import { formatDate } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { installedNames, useInstalled } from '../stores/installed.js';

const HEALTH: Record<InstalledHealth, { text: string; badge: string }> = {
  ok: { text: 'OK', badge: 'ok' },
  'update-available': { text: 'Update available', badge: 'warn' },
  broken: { text: 'Broken', badge: 'danger' },
  revoked: { text: 'Revoked', badge: 'danger' },
};

const ORIGIN: Record<string, string> = {
  ok: '',
  unsigned: 'Unsigned file',
  'unknown-signer': 'Unknown signer',
  sideloaded: 'From a file',
  damaged: 'Damaged',
};

/** "added by you from …" starts a line of its own here. */
function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function Installed({ id }: { id: string | null }) {
  return id === null ? <InstalledList /> : <InstalledPage id={id} />;
}

function InstalledList() {
  const { overview, loadOverview } = useInstalled();
  useEffect(() => {
    void loadOverview();
  }, [loadOverview]);
  const list = overview.value;
  return (
    <div className="screen screen-narrow">
      <div className="screen-header">
        <div>
          <h1 tabIndex={-1}>Installed</h1>
          <p>What is on this computer, and what each capability may do.</p>
        </div>
      </div>
      {overview.error !== null && <ErrorBox error={overview.error} onRetry={() => void loadOverview()} />}
      {list === null ? (
        <Loading what="installed capabilities" />
      ) : list.length === 0 ? (
        <div className="empty">
          <strong>Nothing installed yet</strong>
          Find something useful in <a href={hrefOf({ screen: 'discover' })}>Discover</a>.
        </div>
      ) : (
        <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Installed capabilities">
          {list.map((item) => (
            <InstalledRow key={item.id} item={item} />
          ))}
        </ul>
      )}
    </div>
  );
}

/** One row of Installed: the card (with the installed version's overall risk) and its Enabled switch. */
function InstalledRow({ item }: { item: InstalledSummary }) {
  // The installed version's verdict with its dependencies as installed, computed on the host.
  const risk = useCardRiskMarker(item.id, 'installed');
  return (
    <li className="installed-row">
      <a
        className="card"
        style={{ height: 'auto' }}
        href={hrefOf({ screen: 'installed', id: item.id })}
        data-id={item.id}
        aria-describedby={risk.describedBy}
      >
        <Monogram id={item.id} name={item.name} />
        <div className="card-body">
          <div className="card-title">
            <span className="name">{item.name}</span>
            <span className="version">{item.version}</span>
          </div>
          <div className="card-meta mono">{item.id}</div>
          {item.addedFrom !== undefined && (
            <div className="card-meta small" data-added-from="">
              {sentenceCase(item.addedFrom)}
            </div>
          )}
          <p className="card-summary">{item.healthReason ?? item.summary}</p>
        </div>
        <div className="card-badges">
          {risk.marker}
          <span className={`badge ${HEALTH[item.health].badge}`} data-health={item.health}>
            {item.health === 'update-available' && item.updateAvailable !== null
              ? `Update to ${item.updateAvailable}`
              : HEALTH[item.health].text}
          </span>
          <DisabledBadge item={item} />
          {item.managed !== undefined && <span className="badge">Managed by your organisation</span>}
          {/* An added capability says where it came from above; "From a file" would only repeat it. */}
          {ORIGIN[item.origin] !== '' && item.addedFrom === undefined && <span className="badge warn">{ORIGIN[item.origin]}</span>}
          <span className="small muted">
            {item.grants.length === 0 ? 'no permissions' : `${item.grants.length} permission${item.grants.length === 1 ? '' : 's'}`}
          </span>
        </div>
      </a>
      {/* Beside the link, not inside it: a control inside a link is neither valid nor reachable. */}
      <EnabledToggle item={item} row />
    </li>
  );
}

function InstalledPage({ id }: { id: string }) {
  const entry = useInstalled((s) => s.details[id]);
  const loadDetail = useInstalled((s) => s.loadDetail);
  const list = useInstalled((s) => s.overview.value);
  useEffect(() => {
    void loadDetail(id);
  }, [id, loadDetail]);
  const back = (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <a href={hrefOf({ screen: 'installed', id: null })}>← Installed</a>
    </nav>
  );
  const d = entry?.value ?? null;
  if (d === null)
    return (
      <div className="screen screen-narrow">
        {back}
        <h1 tabIndex={-1}>{id}</h1>
        {entry?.error !== undefined && entry.error !== null ? (
          <ErrorBox error={entry.error} onRetry={() => void loadDetail(id)} />
        ) : (
          <Loading what="the installed capability" />
        )}
      </div>
    );
  return (
    <div className="screen screen-narrow">
      {back}
      <header className="page-head">
        <Monogram id={d.id} name={d.name} large />
        <div className="titles">
          <h1 tabIndex={-1}>{d.name}</h1>
          <div className="muted">
            <span className="mono">{d.id}</span> · version {d.version} ·{' '}
            <span className={`badge ${HEALTH[d.health].badge}`} data-health={d.health}>
              {HEALTH[d.health].text}
            </span>{' '}
            <DisabledBadge item={d} />
          </div>
          <p className="summary">{d.healthReason ?? d.summary}</p>
          {d.addedFrom !== undefined && (
            <p className="muted small" data-added-from="">
              {sentenceCase(d.addedFrom)}.
            </p>
          )}
          <ManagedNote item={d} />
          <EnabledToggle item={d} />
        </div>
        <div className="actions">
          {/* After a rollback, the version rolled back from is offered by the rollback button ("Update to …") instead. */}
          {d.updateAvailable !== null && !(d.rollback?.direction === 'forward' && d.rollback.to === d.updateAvailable) && (
            <a className="button primary" href={hrefOf({ screen: 'updates' })}>
              Update to {d.updateAvailable}
            </a>
          )}
          <a className="button" href={hrefOf({ screen: 'run', id: d.id, kind: null, name: null })}>
            Open in Run
          </a>
          <a className="button" href={hrefOf({ screen: 'capability', id: d.id })}>
            Catalogue page
          </a>
          <RollbackButton detail={d} />
          <UninstallButton detail={d} />
        </div>
      </header>
      {d.dependents.length > 0 && (
        <p className="muted" style={{ marginTop: 12 }}>
          Needed by: {installedNames(d.dependents, list)}. It cannot be uninstalled while they are installed.
        </p>
      )}
      <Grants detail={d} />
      <section className="section" aria-labelledby="skills-h">
        <h2 id="skills-h">Skill folders</h2>
        {(d.package?.skills ?? []).length === 0 ? (
          <p className="muted">This capability has no skills.</p>
        ) : (
          <ul className="list-plain panel">
            {(d.package?.skills ?? []).map((s) => (
              <li key={s.path}>
                <strong>{s.name}</strong>
                <div className="mono small">{s.directory ?? s.path}</div>
                {s.programs.length > 0 && (
                  <div className="small">Contains programs your agent may run outside the sandbox: {s.programs.join(', ')}</div>
                )}
              </li>
            ))}
          </ul>
        )}
        <p className="small muted">
          Installed in <span className="mono">{d.directory}</span>
        </p>
      </section>
      <section className="section" aria-labelledby="hist-h">
        <h2 id="hist-h">Versions on this computer</h2>
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Installed</th>
                <th scope="col">From</th>
                <th scope="col">Permissions it had</th>
              </tr>
            </thead>
            <tbody>
              {d.versions.map((v) => (
                <tr key={v.version}>
                  <td>
                    <strong>{v.version}</strong> {v.active && <span className="badge ok">Active</span>}
                  </td>
                  <td>{formatDate(v.installedAt)}</td>
                  <td>{v.source.kind === 'registry' ? `registry ${v.source.remote}` : v.source.unsigned ? 'unsigned file' : 'file'}</td>
                  <td className="mono small">{v.grants.join(', ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {d.dependencies.length > 0 && (
        <section className="section" aria-labelledby="ideps-h">
          <h2 id="ideps-h">Depends on</h2>
          <ul>
            {d.dependencies.map((dep) => {
              const href = hrefOf({ screen: 'installed', id: dep.id });
              return (
                <li key={dep.id}>
                  <a href={href}>{dep.id}</a> <span className="muted mono small">{dep.range}</span>{' '}
                  {dep.installed === null ? (
                    <span className="badge danger">missing</span>
                  ) : (
                    <span className="muted">({dep.installed})</span>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </div>
  );
}

/** Grants with revoke and re-grant: each declared permission, granted or not. */
function Grants({ detail }: { detail: InstalledDetail }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<HostError | null>(null);
  const toggle = async (p: PermissionView): Promise<void> => {
    setBusy(p.grant);
    setError(null);
    const result =
      p.granted === true ? await host().installs.revokeGrant(detail.id, p.grant) : await host().installs.grant(detail.id, p.grant);
    setBusy(null);
    if (!result.ok) setError(result.error);
    void useInstalled.getState().loadDetail(detail.id);
  };
  return (
    <section className="section" aria-labelledby="grants-h">
      <h2 id="grants-h">Permissions</h2>
      {error !== null && <ErrorBox error={error} />}
      {detail.permissions.length === 0 ? (
        <p className="muted">It asks for no access beyond its own files.</p>
      ) : (
        <ul className="permissions">
          {detail.permissions.map((p) => (
            <PermissionItem
              key={p.grant}
              permission={p}
              action={
                <div style={{ marginTop: 6 }}>
                  <button
                    type="button"
                    className={`small${p.granted === true ? ' danger' : ''}`}
                    disabled={busy !== null}
                    onClick={() => void toggle(p)}
                  >
                    {p.granted === true ? 'Withdraw' : 'Grant again'}
                    <span className="visually-hidden"> {p.grant}</span>
                  </button>
                </div>
              }
            />
          ))}
        </ul>
      )}
    </section>
  );
}
