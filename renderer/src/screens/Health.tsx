/**
 * Health: the doctor's findings grouped by severity, a dry-run preview of what a repair would do
 * (each problem's action: "Reinstall tools/x.py from the signed package of …"), and Repair after a
 * confirmation that lists exactly those actions (docs/ui.md "Destructive actions … say exactly what will
 * change"). The headings count what is still wrong; what a repair fixed is listed as repaired.
 */
import { useEffect, useState } from 'react';
import type { DoctorReportData, ProblemData, ProblemSeverity } from '../../../electron/common/index.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { host } from '../host.js';
import { plural } from '../lib/format.js';
import { hrefOf } from '../router.js';
import { nameOf, useInstalled } from '../stores/installed.js';
import { runOperation } from '../stores/operations.js';

const SEVERITY: Array<{ key: ProblemSeverity; title: string; badge: string }> = [
  { key: 'error', title: 'Needs repair', badge: 'danger' },
  { key: 'warning', title: 'Worth a look', badge: 'warn' },
  { key: 'info', title: 'For your information', badge: 'neutral' },
];

export function Health() {
  const { doctor, runDoctor } = useInstalled();
  const [preview, setPreview] = useState<DoctorReportData | null>(null);
  const [confirming, setConfirming] = useState<DoctorReportData | null>(null);

  useEffect(() => {
    void runDoctor();
  }, [runDoctor]);

  const report = doctor.value;
  const fixable = (report?.problems ?? []).filter((p) => p.fixable && p.fixed === undefined);
  const open = (report?.problems ?? []).filter((p) => p.fixed === undefined);
  const repaired = (report?.problems ?? []).filter((p) => p.fixed !== undefined);

  const previewRepair = async (): Promise<void> => {
    const result = await runOperation('Preview repairs', () => host().doctor.run({ fix: true, dryRun: true }));
    if (result.ok) setPreview(result.value);
  };
  const askRepair = async (): Promise<void> => {
    const result = await runOperation('Preview repairs', () => host().doctor.run({ fix: true, dryRun: true }));
    if (result.ok) setConfirming(result.value);
  };

  return (
    <div className="screen screen-narrow">
      <div className="screen-header">
        <div>
          <h1 tabIndex={-1}>Health</h1>
          <p>Checks every installed file against its signed manifest, the registries’ revocations, dependencies, sandbox and cache.</p>
        </div>
        <div className="actions">
          <button type="button" onClick={() => void runDoctor()} disabled={doctor.loading}>
            {doctor.loading ? 'Checking…' : 'Check again'}
          </button>
          <button type="button" onClick={() => void previewRepair()} disabled={doctor.loading || fixable.length === 0}>
            Preview repairs
          </button>
          <button type="button" className="primary" onClick={() => void askRepair()} disabled={doctor.loading || fixable.length === 0}>
            Repair…
          </button>
        </div>
      </div>
      {doctor.error !== null && <ErrorBox error={doctor.error} onRetry={() => void runDoctor()} />}
      {report === null ? (
        doctor.error === null && <Loading what="the health check" />
      ) : (
        <>
          <p className="muted" role="status">
            Checked {plural(report.checked.packages, 'capability', 'capabilities')}, {plural(report.checked.versions, 'version')} and{' '}
            {plural(report.checked.cacheEntries, 'cache entry', 'cache entries')}.
            {repaired.length > 0 ? ` Repaired ${plural(repaired.length, 'problem')}.` : ''}
          </p>
          {open.length === 0 ? (
            <div className="empty panel">
              <strong>Everything is healthy</strong>
              Nothing to repair.
            </div>
          ) : (
            SEVERITY.map(({ key, title, badge }) => {
              const problems = open.filter((p) => p.severity === key);
              if (problems.length === 0) return null;
              return (
                <section key={key} className="section" aria-labelledby={`sev-${key}`}>
                  <h2 id={`sev-${key}`}>
                    {title} <span className={`badge ${badge}`}>{problems.length}</span>
                  </h2>
                  <ul className="list-plain panel">
                    {problems.map((p, i) => (
                      <Finding key={i} problem={p} />
                    ))}
                  </ul>
                </section>
              );
            })
          )}
          {repaired.length > 0 && (
            <section className="section" aria-labelledby="sev-repaired" data-repaired>
              <h2 id="sev-repaired">
                Repaired <span className="badge ok">{repaired.length}</span>
              </h2>
              <ul className="list-plain panel">
                {repaired.map((p, i) => (
                  <Finding key={i} problem={p} />
                ))}
              </ul>
            </section>
          )}
        </>
      )}
      {preview !== null && (
        <section className="section panel" aria-labelledby="preview-h">
          <h2 id="preview-h">A repair would</h2>
          <RepairList report={preview} />
          <button type="button" className="small" onClick={() => setPreview(null)}>
            Close preview
          </button>
        </section>
      )}
      {confirming !== null && (
        <ConfirmDialog
          title="Repair these problems?"
          action="Repair"
          tray="operation"
          onConfirm={async () => {
            const result = await runDoctor({ fix: true });
            return result === null
              ? { ok: false, error: useInstalled.getState().doctor.error ?? { code: 'E_IO', message: 'The repair failed.' } }
              : { ok: true, value: result };
          }}
          onClose={() => {
            setConfirming(null);
            setPreview(null);
          }}
        >
          <RepairList report={confirming} />
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What a repair will do, one action per problem (the SDK's `repair`), before anything is changed. */
function RepairList({ report }: { report: DoctorReportData }) {
  const planned = report.problems.filter((p) => p.fixable);
  if (planned.length === 0) return <p className="muted">Nothing that a repair can change.</p>;
  return (
    <ul data-repair-actions>
      {planned.map((p, i) => (
        <li key={i} data-repair={p.kind}>
          {p.repair ?? p.message}
          {p.repair === undefined && p.id !== undefined && (
            <span className="muted mono small">
              {' '}
              ({p.id}
              {p.version === undefined ? '' : `@${p.version}`})
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** An installed capability's name where the finding names its id (its id when it is not in the list). */
function InstalledName({ id }: { id: string }) {
  return <>{useInstalled(nameOf(id))}</>;
}

function Finding({ problem }: { problem: ProblemData }) {
  return (
    <li data-problem={problem.kind}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <strong>{problem.message}</strong>
        {problem.fixed !== undefined ? (
          <span className="badge ok">Repaired</span>
        ) : problem.fixable ? (
          <span className="badge accent">Can be repaired</span>
        ) : (
          <span className="badge neutral">Needs you</span>
        )}
      </div>
      <div className="small muted">
        {problem.kind.replace(/-/g, ' ')}
        {problem.id !== undefined && (
          <>
            {' · '}
            <a href={hrefOf({ screen: 'installed', id: problem.id })}>
              <InstalledName id={problem.id} />
            </a>
            {problem.version === undefined ? '' : ` ${problem.version}`}
          </>
        )}
      </div>
      {problem.fixed === undefined && problem.fixable && problem.repair !== undefined && (
        <div className="small">A repair will: {problem.repair}</div>
      )}
      {problem.fixed !== undefined && <div className="small">Done: {problem.fixed}</div>}
    </li>
  );
}
