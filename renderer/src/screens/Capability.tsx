/**
 * The capability page (docs/ui.md "Cards and pages"), top to bottom: name, publisher, summary, the
 * overall risk and the primary action; what it can do (permissions); what is inside (skills, tools
 * with their inputs, workflows, knowledge, resources with sizes); versions with their marks and
 * changelog; dependencies; compatibility; signature; description and readme (Markdown, inert).
 * It is drawn at once from metadata (the catalogue and the package document); the archive is
 * downloaded to install, or when the user asks to look inside (readme, tool inputs).
 */
import { useCallback, useEffect, useState } from 'react';
import type { CapabilityDetail, HostError, InstallTargetData, InstalledDetail, ToolView } from '../../../electron/common/index.js';
import { DistributionBadges, Publisher } from '../components/Badges.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { InstallDialog } from '../components/InstallDialog.js';
import { DisabledBadge, EnabledToggle, ManagedNote } from '../components/Enablement.js';
import { RollbackButton, UninstallButton } from '../components/Lifecycle.js';
import { UseWith } from '../components/UseWith.js';
import { Markdown, SafeLink } from '../components/Markdown.js';
import { Monogram } from '../components/Monogram.js';
import { PermissionList, RiskBadge, RiskSummary } from '../components/Permissions.js';
import { host } from '../host.js';
import { formatBytes, formatDate, plural } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { useInstalled } from '../stores/installed.js';
import { runningFor, useOperations } from '../stores/operations.js';
import { useSettings } from '../stores/settings.js';

export function Capability({ id }: { id: string }) {
  const [state, setState] = useState<{ detail: CapabilityDetail | null; error: HostError | null }>({ detail: null, error: null });
  const [dialog, setDialog] = useState<{ target: InstallTargetData; name: string } | null>(null);
  const installing = useOperations(runningFor(id, 'installs.install'));
  const installed = useInstalled((s) => s.details[id]?.value ?? null);
  const loadInstalled = useInstalled((s) => s.loadDetail);
  const overviewVersion = useInstalled((s) => s.overview.value?.find((i) => i.id === id)?.version ?? null);
  // The policy's `blocked` entry for this id (every version, or a range of them).
  const blocked = useSettings((s) => s.policy?.policy?.blocked.find((entry) => entry.split('@')[0] === id) ?? null);
  const policyWho = useSettings((s) =>
    s.policy?.policy === null || s.policy?.policy === undefined
      ? null
      : `${s.policy.policy.organisation ?? 'your organisation'} (rule "blocked" in ${s.policy.policy.path})`,
  );

  // Metadata only: the page must not wait for the archive (a slow registry took 29 s for 2.9 MiB).
  const load = useCallback(async () => {
    setState((s) => ({ ...s, error: null }));
    const result = await host().catalogue.detail(id, { download: false });
    setState(result.ok ? { detail: result.value, error: null } : { detail: null, error: result.error });
  }, [id]);
  // "Show what is inside": the user asked, so the archive is downloaded (into the cache an install reuses).
  const [inside, setInside] = useState<{ loading: boolean; error: HostError | null }>({ loading: false, error: null });
  const lookInside = useCallback(async () => {
    setInside({ loading: true, error: null });
    const result = await host().catalogue.detail(id, { download: true });
    if (result.ok) setState({ detail: result.value, error: null });
    setInside({ loading: false, error: result.ok ? null : result.error });
  }, [id]);

  useEffect(() => {
    void load();
  }, [load, overviewVersion]);
  useEffect(() => {
    if (overviewVersion !== null) void loadInstalled(id);
  }, [id, overviewVersion, loadInstalled]);

  const back = (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <a href={hrefOf({ screen: 'discover' })}>← Discover</a>
    </nav>
  );
  if (state.error !== null)
    return (
      <div className="screen screen-narrow">
        {back}
        <h1 tabIndex={-1}>{id}</h1>
        <ErrorBox error={state.error} onRetry={() => void load()} />
      </div>
    );
  if (state.detail === null)
    return (
      <div className="screen screen-narrow">
        {back}
        <h1 tabIndex={-1}>{id}</h1>
        <Loading what="the capability" />
      </div>
    );
  const d = state.detail;
  const pkg = d.package;
  // Skills that ship programs: from the package when it was read, else from the registry's entry.
  const programs =
    pkg !== null
      ? pkg.skills.filter((s) => s.programs.length > 0).map((s) => ({ skill: s.name, programs: s.programs }))
      : (d.contents.skillPrograms ?? []);
  return (
    <div className="screen screen-narrow">
      {back}
      <header className="page-head">
        <Monogram id={d.id} name={d.name} large />
        <div className="titles">
          <h1 tabIndex={-1}>{d.name}</h1>
          <div className="muted">
            <span className="mono">{d.id}</span> · <Publisher name={d.publisher.name} verified={d.publisher.verified} /> · version{' '}
            {d.version}
          </div>
          <p className="summary">{d.summary}</p>
          <RiskSummary risk={d.risk} />
          <div className="row">
            <DistributionBadges tier={d.tier} access={d.access} deprecated={d.deprecated} />
            {d.installed !== null && <span className="badge ok">Installed {d.installed.version}</span>}
            {(d.installed?.updateAvailable ?? null) !== null && (
              <span className="badge warn">Update available: {d.installed?.updateAvailable}</span>
            )}
            {installed !== null && d.installed !== null && <DisabledBadge item={installed} />}
            {!d.compatible.ok && <span className="badge danger">Not compatible</span>}
          </div>
          {installed !== null && d.installed !== null && <ManagedNote item={installed} />}
          {blocked !== null && d.installed === null && (
            <p className="small" id="policy-blocked" data-policy-blocked={blocked}>
              <span className="badge warn">Blocked by policy</span>{' '}
              {blocked.includes('@')
                ? `Versions ${blocked.slice(blocked.indexOf('@') + 1)} may not be installed on this computer.`
                : 'It may not be installed on this computer.'}{' '}
              Managed by {policyWho}.
            </p>
          )}
          {installed !== null && d.installed !== null && <EnabledToggle item={installed} />}
        </div>
        <div className="actions">
          {d.installed === null ? (
            <button
              type="button"
              className="primary"
              // While it installs (the tray shows it), the button says so and opens no second dialog.
              onClick={() => installing === null && setDialog({ target: installTarget(d), name: d.name })}
              aria-disabled={installing === null ? undefined : true}
              disabled={!d.compatible.ok || (blocked !== null && !blocked.includes('@'))}
              aria-describedby={blocked === null ? undefined : 'policy-blocked'}
            >
              {installing === null ? 'Install' : 'Installing…'}
            </button>
          ) : (
            <>
              {d.installed.updateAvailable !== null &&
                !(installed?.rollback?.direction === 'forward' && installed.rollback.to === d.installed.updateAvailable) && (
                  // Updates go through the Updates screen: the permission difference, then the dialog that names new permissions.
                  // After a rollback, the version rolled back from is offered by the rollback button as "Update to …" instead.
                  <a className="button primary" href={hrefOf({ screen: 'updates' })}>
                    Update to {d.installed.updateAvailable}
                  </a>
                )}
              <a
                className={`button${d.installed.updateAvailable === null ? ' primary' : ''}`}
                href={hrefOf({ screen: 'run', id: d.id, kind: null, name: null })}
              >
                Open in Run
              </a>
              {installed !== null && <RollbackButton detail={installed} />}
              {installed !== null && <UninstallButton detail={installed} afterwards="stay" />}
            </>
          )}
        </div>
      </header>
      {d.deprecated !== null && (
        <div className="warning" style={{ marginTop: 16 }}>
          <span aria-hidden="true">⚠</span>
          <div>
            <strong>Deprecated by its publisher.</strong> “{d.deprecated}”
          </div>
        </div>
      )}
      {!d.compatible.ok && (
        <div className="warning danger" style={{ marginTop: 16 }}>
          <span aria-hidden="true">⚠</span>
          <div>
            <strong>Does not run on this computer.</strong> {d.compatible.reason ?? ''}
          </div>
        </div>
      )}

      <section className="section" aria-labelledby="perm-h">
        <h2 id="perm-h">What it can do</h2>
        <PermissionList permissions={d.permissions} />
        {programs.map((s) => (
          <div key={s.skill} className="warning" style={{ marginTop: 10 }}>
            <span aria-hidden="true">⚠</span>
            <div>
              <strong>
                {s.skill} contains {plural(s.programs.length, 'program')} your agent may run with your permissions, outside Arcotheon’s
                sandbox.
              </strong>
              <span className="mono small">{s.programs.join(', ')}</span>
            </div>
          </div>
        ))}
        <DependencyRisk detail={d} />
      </section>
      {installed !== null && d.installed !== null && <UseWith detail={installed} />}

      <div className="two-col section">
        <div>
          <Inside detail={d} />
          {pkg === null && d.packageUnavailable !== null && (
            <LookInside detail={d} loading={inside.loading} error={inside.error} onLookInside={() => void lookInside()} />
          )}
          <Versions detail={d} />
          {typeof pkg?.description === 'string' && (
            <section className="section" aria-labelledby="desc-h">
              <h2 id="desc-h">Description</h2>
              <Markdown text={pkg.description} />
            </section>
          )}
          {typeof pkg?.readme === 'string' && (
            <section className="section panel" aria-labelledby="readme-h">
              <h2 id="readme-h">Readme</h2>
              <Markdown text={pkg.readme} />
            </section>
          )}
          {pkg === null && d.packageUnavailable !== null && <p className="muted section">{d.packageUnavailable}</p>}
        </div>
        <aside className="stack">
          <Facts detail={d} installed={installed} />
        </aside>
      </div>
      {dialog !== null && (
        <InstallDialog
          target={dialog.target}
          name={dialog.name}
          onClose={() => {
            setDialog(null);
          }}
        />
      )}
    </div>
  );
}

/** What Install installs: the newest version, or the prerelease the page shows when there is no stable one. */
function installTarget(d: CapabilityDetail): InstallTargetData {
  const shown = d.versions.find((v) => v.version === d.version);
  return shown?.prerelease === true ? { packages: [{ id: d.id, range: d.version }], includePrerelease: true } : d.id;
}

function Inside({ detail }: { detail: CapabilityDetail }) {
  const pkg = detail.package;
  const c = detail.contents;
  return (
    <section aria-labelledby="inside-h">
      <h2 id="inside-h">What is inside</h2>
      <div className="panel stack">
        {pkg === null && (
          <>
            <Names title="Tools" names={c.tools} />
            <Names title="Skills" names={c.skills} />
            <Names title="Workflows" names={c.workflows} />
            <Names title="Knowledge" names={c.knowledge} />
            {c.tools.length + c.skills.length + c.workflows.length + c.knowledge.length + c.resources.length === 0 && (
              <p className="muted">Nothing but its description.</p>
            )}
          </>
        )}
        {pkg !== null && pkg.tools.length > 0 && (
          <div>
            <h3>Tools</h3>
            <ul className="list-plain">
              {pkg.tools.map((t) => (
                <Tool key={t.name} tool={t} id={detail.id} installed={detail.installed !== null} />
              ))}
            </ul>
          </div>
        )}
        {pkg !== null && pkg.skills.length > 0 && (
          <div>
            <h3>Skills</h3>
            <ul className="list-plain">
              {pkg.skills.map((s) => (
                <li key={s.path}>
                  <strong>{s.name}</strong> <span className="muted small mono">{s.path}</span>
                  <p className="muted">{s.description}</p>
                </li>
              ))}
            </ul>
          </div>
        )}
        {pkg !== null && pkg.workflows.length > 0 && (
          <div>
            <h3>Workflows</h3>
            <ul className="list-plain">
              {pkg.workflows.map((w) => (
                <li key={w.id}>
                  <strong>{w.name}</strong> <span className="muted small mono">{w.id}</span>
                  <p className="muted">{w.description}</p>
                  <div className="small">
                    Steps:{' '}
                    {w.steps.map((s, i) => (
                      <span key={s.id}>
                        {i > 0 ? ' → ' : ''}
                        {s.kind === 'agent' ? `your agent (${s.id})` : (s.tool ?? s.id)}
                      </span>
                    ))}
                  </div>
                </li>
              ))}
            </ul>
          </div>
        )}
        {pkg !== null && pkg.knowledge.length > 0 && (
          <div>
            <h3>Knowledge</h3>
            <ul>
              {pkg.knowledge.map((k) => (
                <li key={k.id}>
                  {k.id} <span className="muted small">({k.kind})</span> {k.description ?? ''}
                </li>
              ))}
            </ul>
          </div>
        )}
        {c.resources.length > 0 && (
          <div>
            <h3>Resources</h3>
            <ul>
              {(pkg?.resources ?? c.resources.map((r) => ({ ...r, lazy: false, description: undefined }))).map((r) => (
                <li key={r.id}>
                  <span className="mono">{r.id}</span> — {formatBytes(r.size)}
                  {'lazy' in r && r.lazy ? <span className="muted small"> (downloaded when first used)</span> : null}
                </li>
              ))}
            </ul>
          </div>
        )}
        {pkg !== null && pkg.tools.length + pkg.skills.length + pkg.workflows.length + pkg.knowledge.length + c.resources.length === 0 && (
          <p className="muted">Nothing but its description.</p>
        )}
      </div>
    </section>
  );
}

/** Names from the registry's contents summary (the package itself is not read yet). */
function Names({ title, names }: { title: string; names: string[] }) {
  if (names.length === 0) return null;
  return (
    <div>
      <h3>{title}</h3>
      <ul className="list-plain names">
        {names.map((n) => (
          <li key={n}>
            <span className="mono">{n}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Why the readme and tool inputs are not shown yet, and a button that downloads the package to show them. */
function LookInside({
  detail,
  loading,
  error,
  onLookInside,
}: {
  detail: CapabilityDetail;
  loading: boolean;
  error: HostError | null;
  onLookInside: () => void;
}) {
  const size = detail.versions.find((v) => v.version === detail.version)?.archiveSize ?? 0;
  const canDownload = detail.access === 'public' && !detail.packageUnavailable?.includes('too large');
  return (
    <div className="section look-inside" data-package="not-downloaded">
      <p className="muted">{detail.packageUnavailable}</p>
      {canDownload && (
        <button type="button" onClick={onLookInside} disabled={loading} aria-busy={loading}>
          {loading ? 'Downloading…' : `Show readme and tool inputs (downloads ${formatBytes(size)})`}
        </button>
      )}
      {error !== null && <ErrorBox error={error} onRetry={onLookInside} />}
    </div>
  );
}

/** The dependencies that raise the verdict above the capability's own permissions, each with what it may do. */
function DependencyRisk({ detail }: { detail: CapabilityDetail }) {
  const fromDependencies = detail.risk.factors.filter((f) => f.dependency);
  if (fromDependencies.length === 0 && detail.risk.unknown.length === 0) return null;
  const byId = new Map<string, typeof fromDependencies>();
  for (const f of fromDependencies) byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
  return (
    <div className="dependency-risk" data-dependency-risk>
      <h3>What its dependencies can do</h3>
      <ul className="list-plain">
        {[...byId].map(([dep, factors]) => (
          <li key={dep} data-dependency={dep}>
            <a href={hrefOf({ screen: 'capability', id: dep })}>{dep}</a>
            <ul className="permissions">
              {factors.map((f) => (
                <li key={`${f.kind}:${f.subject}`} className="permission">
                  <RiskBadge risk={f.level} />
                  <div className="sentence">{capitalise(f.text.replace(/^may /, ''))}</div>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {detail.risk.unknown.length > 0 && (
        <p className="muted small">The permissions of {detail.risk.unknown.join(', ')} could not be read.</p>
      )}
    </div>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A tool with its inputs, read from its input schema. */
function Tool({ tool, id, installed }: { tool: ToolView; id: string; installed: boolean }) {
  const properties = (
    typeof tool.inputSchema['properties'] === 'object' && tool.inputSchema['properties'] !== null ? tool.inputSchema['properties'] : {}
  ) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(tool.inputSchema['required']) ? (tool.inputSchema['required'] as unknown[]) : [];
  const names = Object.keys(properties);
  return (
    <li>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <strong className="mono">{tool.name}</strong>
        {installed && (
          <a className="small" href={hrefOf({ screen: 'run', id, kind: 'tool', name: tool.name })}>
            Run by hand
          </a>
        )}
      </div>
      <p className="muted">{tool.description}</p>
      {names.length > 0 && (
        <div className="small">
          Inputs:{' '}
          {names.map((n, i) => (
            <span key={n}>
              {i > 0 ? ', ' : ''}
              <code>{n}</code>
              {typeof properties[n]?.['type'] === 'string' ? <span className="muted"> ({String(properties[n]?.['type'])})</span> : null}
              {required.includes(n) ? <span className="muted"> required</span> : null}
            </span>
          ))}
        </div>
      )}
    </li>
  );
}

function Versions({ detail }: { detail: CapabilityDetail }) {
  return (
    <section className="section" aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Published</th>
              <th scope="col">Size</th>
              <th scope="col">Notes</th>
            </tr>
          </thead>
          <tbody>
            {detail.versions.map((v) => (
              <tr key={v.version} data-version={v.version}>
                <td>
                  <strong>{v.version}</strong>
                </td>
                <td>{formatDate(v.publishedAt)}</td>
                <td>{formatBytes(v.archiveSize)}</td>
                <td>
                  <div className="row" style={{ gap: 4 }}>
                    {v.latest && <span className="badge ok">Latest</span>}
                    {v.installed && <span className="badge accent">Installed</span>}
                    {v.prerelease && <span className="badge neutral">Prerelease</span>}
                    {v.yanked !== null && (
                      <span className="badge warn" title={v.yanked}>
                        Yanked
                      </span>
                    )}
                    {v.revoked !== null && (
                      <span className="badge danger" title={v.revoked}>
                        Revoked
                      </span>
                    )}
                    {v.deprecated !== null && <span className="badge warn">Deprecated</span>}
                  </div>
                  {v.yanked !== null && <div className="small muted">Yanked: {v.yanked}</div>}
                  {v.revoked !== null && <div className="small muted">Revoked: {v.revoked}</div>}
                  {v.changelog !== null && <Markdown text={v.changelog} className="markdown small" />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Facts({ detail, installed }: { detail: CapabilityDetail; installed: InstalledDetail | null }) {
  const pkg = detail.package;
  const compat = detail.compat;
  return (
    <>
      <section className="panel" aria-labelledby="deps-h">
        <h2 id="deps-h">Dependencies</h2>
        {detail.dependencies.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="list-plain">
            {detail.dependencies.map((dep) => (
              <li key={dep.id}>
                <a href={hrefOf({ screen: 'capability', id: dep.id })}>{dep.id}</a> <span className="muted mono small">{dep.range}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="panel" aria-labelledby="compat-h">
        <h2 id="compat-h">Compatibility</h2>
        <dl className="facts">
          <dt>Platforms</dt>
          <dd>{compat.platforms?.join(', ') ?? 'any'}</dd>
          {compat.agents !== undefined && (
            <>
              <dt>Agents</dt>
              <dd>
                {Object.entries(compat.agents)
                  .map(([a, r]) => `${a} ${r}`)
                  .join(', ')}
              </dd>
            </>
          )}
          {compat.runtimes !== undefined && (
            <>
              <dt>Runtimes</dt>
              <dd>
                {Object.entries(compat.runtimes)
                  .map(([a, r]) => `${a} ${r}`)
                  .join(', ')}
              </dd>
            </>
          )}
          <dt>This computer</dt>
          <dd>{detail.compatible.ok ? 'Supported' : (detail.compatible.reason ?? 'Not supported')}</dd>
        </dl>
      </section>
      <section className="panel" aria-labelledby="sig-h">
        <h2 id="sig-h">Signature</h2>
        <dl className="facts">
          <dt>Registry</dt>
          <dd>{detail.remote}</dd>
          <dt>Publisher</dt>
          <dd>
            <Publisher name={detail.publisher.name} verified={detail.publisher.verified} />
          </dd>
          {detail.signers.map((s) => (
            <div key={s.keyId} style={{ display: 'contents' }}>
              <dt>Key</dt>
              <dd>
                <code>{s.keyId}</code>{' '}
                <span className={`badge ${s.status === 'active' ? 'ok' : s.status === 'revoked' ? 'danger' : 'warn'}`}>{s.status}</span>
              </dd>
            </div>
          ))}
        </dl>
      </section>
      {(typeof pkg?.license === 'string' || typeof pkg?.homepage === 'string' || typeof pkg?.repository === 'string') && (
        <section className="panel" aria-labelledby="about-h">
          <h2 id="about-h">About</h2>
          <dl className="facts">
            {typeof pkg?.license === 'string' && (
              <>
                <dt>License</dt>
                <dd>{pkg.license}</dd>
              </>
            )}
            {typeof pkg?.homepage === 'string' && (
              <>
                <dt>Homepage</dt>
                <dd>
                  <SafeLink url={pkg.homepage} />
                </dd>
              </>
            )}
            {typeof pkg?.repository === 'string' && (
              <>
                <dt>Source</dt>
                <dd>
                  <SafeLink url={pkg.repository} />
                </dd>
              </>
            )}
          </dl>
        </section>
      )}
      {installed !== null && (
        <section className="panel" aria-labelledby="inst-h">
          <h2 id="inst-h">On this computer</h2>
          <p>
            {installed.version} · <a href={hrefOf({ screen: 'installed', id: installed.id })}>permissions and versions</a>
          </p>
          {installed.toolData.length > 0 && (
            <>
              <h3>Tool data</h3>
              <ul className="list-plain">
                {installed.toolData.map((t) => (
                  <li key={t.tool}>
                    <code>{t.tool}</code> keeps {formatBytes(t.bytes)} of its {formatBytes(t.quota)} limit
                    {t.bytes > t.quota ? ' — over the limit, so it does not run until its data is removed' : ''}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </>
  );
}
