/**
 * Settings: registries with their pinned keys and last verification (add, remove, refresh), the
 * sandbox on each platform, the cache (size, clean up), the audit log with its chain verified,
 * appearance, and the organisation policy in force, whose registries cannot be removed.
 */
import { useEffect, useState } from 'react';
import type { HostError, RemoteStatus } from '../../../electron/common/index.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { host } from '../host.js';
import { formatBytes, formatDate, plural, timeAgo } from '../lib/format.js';
import { runOperation } from '../stores/operations.js';
import { useSettings } from '../stores/settings.js';

/** The status word of a registry, from its last attempt (host settings.ts remoteStatus). */
function RemoteBadge({ remote }: { remote: RemoteStatus }) {
  switch (remote.state) {
    case 'verified':
      return (
        <span className="badge ok" data-remote-state="verified">
          verified
        </span>
      );
    case 'failed':
      return (
        <span className="badge danger" data-remote-state="failed">
          last check failed
        </span>
      );
    case 'refused':
      return (
        <span className="badge danger" data-remote-state="refused">
          not verified
        </span>
      );
    case 'unread':
      return (
        <span className="badge neutral" data-remote-state="unread">
          not read yet
        </span>
      );
  }
}

/** When it was last tried and last verified, in that order of what the user needs to know. */
function remoteLine(r: RemoteStatus): string {
  switch (r.state) {
    case 'verified':
      return `Verified ${timeAgo(r.lastVerifiedAt)}`;
    case 'failed':
      return `Last checked ${timeAgo(r.lastAttemptAt)}, without success · ${
        r.lastVerifiedAt === null ? 'never verified' : `the catalogue in use was verified ${timeAgo(r.lastVerifiedAt)}`
      }`;
    case 'refused':
      return `Last checked ${timeAgo(r.lastAttemptAt)} · its stored catalogue is not used`;
    case 'unread':
      return 'Not read yet: it is read when Discover first needs it, or press Refresh';
  }
}

export function Settings() {
  const s = useSettings();
  const [error, setError] = useState<HostError | null>(null);
  const [removing, setRemoving] = useState<RemoteStatus | null>(null);
  const [gcResult, setGcResult] = useState<string | null>(null);
  const { loadAll } = s;
  const managedRemotes = s.policy?.policy?.remotes ?? [];
  useEffect(() => {
    void loadAll();
  }, [loadAll]);

  const refresh = async (name: string | null): Promise<void> => {
    setError(null);
    const result = await runOperation(name === null ? 'Refresh registries' : `Refresh ${name}`, () => host().remotes.refresh(name));
    if (!result.ok) setError(result.error);
    void loadAll();
  };
  const gc = async (): Promise<void> => {
    const result = await runOperation('Clean up the cache', () => host().cache.gc());
    if (result.ok)
      setGcResult(
        `Removed ${result.value.removed} unused file${result.value.removed === 1 ? '' : 's'}, ` +
          `freed ${formatBytes(result.value.freedBytes)}.`,
      );
    else setError(result.error);
    void loadAll();
  };

  return (
    <div className="screen screen-narrow">
      <div className="screen-header">
        <div>
          <h1 tabIndex={-1}>Settings</h1>
          <p>{s.info === null ? '' : `Arcotheon ${s.info.appVersion} · SDK ${s.info.sdkVersion} · home ${s.info.home}`}</p>
        </div>
      </div>
      {s.error !== null && <ErrorBox error={s.error} onRetry={() => void loadAll()} />}
      {error !== null && <ErrorBox error={error} />}

      {s.policy !== null && s.policy.policy !== null && (
        <section className="section" aria-labelledby="policy-h" data-policy-path={s.policy.policy.path}>
          <h2 id="policy-h">Managed by your organisation</h2>
          <ul className="list-plain panel small">
            {s.policy.policy.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      )}

      <section className="section" aria-labelledby="remotes-h">
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <h2 id="remotes-h">Registries</h2>
          <button type="button" onClick={() => void refresh(null)}>
            Refresh all
          </button>
        </div>
        {s.remotes === null ? (
          <Loading what="registries" />
        ) : s.remotes.length === 0 ? (
          <div className="empty panel">
            <strong>No registries</strong>Add one below with its address and root key.
          </div>
        ) : (
          <ul className="list-plain panel" aria-label="Registries">
            {s.remotes.map((r) => (
              <li key={r.name} data-remote={r.name}>
                <div className="row" style={{ justifyContent: 'space-between' }}>
                  <div>
                    <strong>{r.name}</strong> {r.builtIn && <span className="badge neutral">built in</span>} <RemoteBadge remote={r} />
                    <div className="mono small" style={{ overflowWrap: 'anywhere' }}>
                      {r.url}
                    </div>
                  </div>
                  <div className="actions">
                    <button type="button" className="small" onClick={() => void refresh(r.name)}>
                      Refresh
                    </button>
                    {managedRemotes.includes(r.name) ? (
                      <span className="badge neutral" title="Added by your organisation's policy; it cannot be removed.">
                        managed by your organisation
                      </span>
                    ) : (
                      !r.builtIn && (
                        <button type="button" className="small danger" onClick={() => setRemoving(r)}>
                          Remove
                        </button>
                      )
                    )}
                  </div>
                </div>
                <div className="small muted" data-remote-line>
                  {remoteLine(r)}
                  {r.capabilities === null ? '' : ` · ${plural(r.capabilities, 'capability', 'capabilities')}`}
                  {r.sequence === null ? '' : ` · catalogue #${r.sequence}`} · {r.rootKeys.length === 1 ? 'root key' : 'root keys'}{' '}
                  <span className="mono" style={{ overflowWrap: 'anywhere' }}>
                    {r.rootKeys.join(', ')}
                  </span>
                </div>
                {r.error !== null && (
                  <div className="small remote-error" role="status" data-remote-error={r.error.code}>
                    {r.error.message}
                    {r.error.next === undefined ? null : <div className="muted">{r.error.next}</div>}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
        <AddRemote onAdded={() => void loadAll()} />
      </section>

      <section className="section" aria-labelledby="sandbox-h">
        <h2 id="sandbox-h">Sandbox</h2>
        {s.sandbox === null ? (
          <Loading what="the sandbox status" />
        ) : (
          <div className="panel">
            <p>
              {s.sandbox.active === null ? (
                <strong style={{ color: 'var(--danger)' }}>
                  No sandbox is available here: tools will not run. {s.sandbox.reason ?? ''}
                </strong>
              ) : (
                <>
                  Tools run in <strong>{s.sandbox.active}</strong> on this computer ({s.sandbox.platform}).
                </>
              )}
            </p>
            <div className="table-wrap">
              <table className="data">
                <thead>
                  <tr>
                    <th scope="col">Platform</th>
                    <th scope="col">Sandbox</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {s.sandbox.platforms.map((p) => (
                    <tr key={p.platform}>
                      <td>
                        {p.platform} {p.current && <span className="badge accent">this computer</span>}
                      </td>
                      <td>{p.mechanism}</td>
                      <td>
                        {p.available === null ? 'not checked here' : p.available ? 'available' : 'missing'}
                        <div className="small muted">{p.detail}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </section>

      <section className="section" aria-labelledby="cache-h">
        <h2 id="cache-h">Download cache</h2>
        <div className="panel row" style={{ justifyContent: 'space-between' }}>
          <span>
            {s.cache === null ? 'Measuring…' : `${formatBytes(s.cache.bytes)} in ${s.cache.entries.toLocaleString()} files`}
            {gcResult !== null && <span className="muted"> · {gcResult}</span>}
          </span>
          <button type="button" onClick={() => void gc()}>
            Clean up
          </button>
        </div>
      </section>

      <section className="section" aria-labelledby="audit-h">
        <h2 id="audit-h">Audit log</h2>
        {s.auditCheck !== null && (
          <p role="status" data-audit-ok={String(s.auditCheck.ok)}>
            {s.auditCheck.ok ? (
              <span className="verified">
                ✓ The log’s hash chain verifies ({s.auditCheck.lines} entries): nothing was removed or changed.
              </span>
            ) : (
              <strong style={{ color: 'var(--danger)' }}>The log does not verify: {s.auditCheck.problem}</strong>
            )}
          </p>
        )}
        {s.audit === null ? (
          <Loading what="the audit log" />
        ) : s.audit.length === 0 ? (
          <p className="muted">Nothing recorded yet.</p>
        ) : (
          <div className="table-wrap" style={{ maxHeight: 360 }}>
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Capability</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {s.audit.map((e) => (
                  <tr key={e.seq}>
                    <td>{e.seq}</td>
                    <td>{formatDate(e.time)}</td>
                    <td>
                      {e.event}
                      {e.tool !== undefined ? ` ${e.tool}` : e.workflow !== undefined ? ` ${e.workflow}` : ''}
                    </td>
                    <td>
                      {e.capability ?? ''} {e.version ?? ''}
                    </td>
                    <td>{e.outcome ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="section" aria-labelledby="appearance-h">
        <h2 id="appearance-h">Appearance</h2>
        <p className="muted">Light and dark follow your system setting.</p>
      </section>

      {removing !== null && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          action="Remove"
          danger
          onConfirm={() => host().remotes.remove(removing.name)}
          tray={{
            label: `Remove registry ${removing.name}`,
            texts: { done: `Removed registry ${removing.name}`, failed: `Registry ${removing.name} could not be removed` },
          }}
          onClose={() => {
            setRemoving(null);
            void loadAll();
          }}
        >
          <p>
            Its catalogue is forgotten and its capabilities no longer appear in Discover. What you installed from it stays installed, but
            gets no updates until you add it again.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function AddRemote({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<HostError | null>(null);
  const [busy, setBusy] = useState(false);
  const add = async (event: React.FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await host().remotes.add(name.trim(), url.trim(), [key.trim()]);
    setBusy(false);
    if (!result.ok) return setError(result.error);
    setName('');
    setUrl('');
    setKey('');
    onAdded();
  };
  return (
    <form className="panel stack" style={{ marginTop: 12 }} onSubmit={(e) => void add(e)} aria-labelledby="add-remote-h">
      <h3 id="add-remote-h">Add a registry</h3>
      <div className="row">
        <label htmlFor="remote-name" style={{ width: 80 }}>
          Name
        </label>
        <input id="remote-name" type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder="acme" required />
      </div>
      <div className="row">
        <label htmlFor="remote-url" style={{ width: 80 }}>
          Address
        </label>
        <input
          id="remote-url"
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://registry.example.com/v1/"
          style={{ flex: '1 1 280px' }}
          required
        />
      </div>
      <div className="row">
        <label htmlFor="remote-key" style={{ width: 80 }}>
          Root key
        </label>
        <input
          id="remote-key"
          type="text"
          className="mono"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder="base64 public key from the registry’s operator"
          style={{ flex: '1 1 280px' }}
          required
        />
      </div>
      <p className="small muted">
        Get the key from the registry’s operator through a channel you trust: it is what proves every catalogue is theirs.
      </p>
      {error !== null && <ErrorBox error={error} />}
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add registry'}
        </button>
      </div>
    </form>
  );
}
