/**
 * Run by hand (docs/ui.md "Run by hand"): pick an installed tool or workflow, fill a form generated from
 * its input schema (@rjsf/core), choose a workspace folder (the host confirms it and hands back a
 * handle; the page never passes a path to a run), Run, follow the progress, read the output (a
 * table for arrays of objects, JSON otherwise, with Copy); at an agent step, the instruction with
 * Copy and the data gathered so far, and a field for the agent's answer with Continue, which runs
 * the steps after it (run.resumeWorkflow). Recent runs come from the audit log.
 */
import Form from '@rjsf/core';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { useEffect, useMemo, useState } from 'react';
import type {
  AuditEntry,
  HostError,
  InstalledDetail,
  ToolRunResultData,
  WorkflowRunResultData,
  WorkspaceHandle,
} from '../../../electron/common/index.js';
import { CopyButton } from '../components/Copy.js';
import { ErrorBox, Loading } from '../components/ErrorBox.js';
import { OutputView } from '../components/OutputView.js';
import { desktopBridge } from '../desktop.js';
import { host } from '../host.js';
import { formatDate, formatDuration, phaseText } from '../lib/format.js';
import { RUN_FORM_TEMPLATES } from '../run/templates.js';
import { cfworkerValidator } from '../run/validator.js';
import '../run/form.css';
import { hrefOf, navigate, type Route } from '../router.js';
import { useInstalled } from '../stores/installed.js';
import { runOperation, useOperations } from '../stores/operations.js';

type RunRoute = Extract<Route, { screen: 'run' }>;

export function Run({ route }: { route: RunRoute }) {
  const { overview, loadOverview } = useInstalled();
  const detail = useInstalled((s) => (route.id === null ? undefined : s.details[route.id]));
  const loadDetail = useInstalled((s) => s.loadDetail);
  useEffect(() => {
    if (overview.value === null) void loadOverview();
  }, [overview.value, loadOverview]);
  useEffect(() => {
    if (route.id !== null) void loadDetail(route.id);
  }, [route.id, loadDetail]);

  const installed = overview.value ?? [];
  return (
    <div className="screen screen-narrow">
      <div className="screen-header">
        <div>
          <h1 tabIndex={-1}>Run</h1>
          <p>Run an installed tool or workflow yourself, in its sandbox, with the permissions you granted.</p>
        </div>
      </div>
      <div className="row" style={{ marginBottom: 16 }}>
        <label htmlFor="run-capability">Capability</label>
        <select
          id="run-capability"
          value={route.id ?? ''}
          onChange={(e) => navigate({ screen: 'run', id: e.target.value === '' ? null : e.target.value, kind: null, name: null })}
        >
          <option value="">Choose an installed capability…</option>
          {installed.map((i) => (
            <option key={i.id} value={i.id}>
              {i.name} ({i.id})
            </option>
          ))}
        </select>
      </div>
      {route.id === null ? (
        installed.length === 0 && overview.value !== null ? (
          <div className="empty">
            <strong>Nothing installed to run</strong>
            Install a capability with tools from <a href={hrefOf({ screen: 'discover' })}>Discover</a>.
          </div>
        ) : (
          <RecentRuns />
        )
      ) : detail === undefined || detail.value === null ? (
        detail?.error !== undefined && detail.error !== null ? (
          <ErrorBox error={detail.error} />
        ) : (
          <Loading what="its tools" />
        )
      ) : route.kind === null || route.name === null ? (
        <Choose detail={detail.value} />
      ) : (
        <RunPanel key={`${route.kind}/${route.name}`} detail={detail.value} kind={route.kind} name={route.name} />
      )}
    </div>
  );
}

function Choose({ detail }: { detail: InstalledDetail }) {
  const tools = detail.package?.tools ?? [];
  const workflows = detail.package?.workflows ?? [];
  if (tools.length + workflows.length === 0)
    return <p className="muted">{detail.name} has no tools or workflows to run (it may hold only skills or knowledge for your agent).</p>;
  return (
    <ul className="list-plain panel" aria-label={`What ${detail.name} can run`}>
      {workflows.map((w) => (
        <li key={`w-${w.id}`}>
          <a href={hrefOf({ screen: 'run', id: detail.id, kind: 'workflow', name: w.id })}>
            <strong>{w.name}</strong>
          </a>{' '}
          <span className="badge accent">workflow</span>
          <p className="muted">{w.description}</p>
        </li>
      ))}
      {tools.map((t) => (
        <li key={`t-${t.name}`}>
          <a href={hrefOf({ screen: 'run', id: detail.id, kind: 'tool', name: t.name })}>
            <strong className="mono">{t.name}</strong>
          </a>{' '}
          <span className="badge neutral">tool</span>
          <p className="muted">{t.description}</p>
        </li>
      ))}
    </ul>
  );
}

type Outcome =
  { kind: 'tool'; value: ToolRunResultData } | { kind: 'workflow'; value: WorkflowRunResultData } | { kind: 'error'; error: HostError };

function RunPanel({ detail, kind, name }: { detail: InstalledDetail; kind: 'tool' | 'workflow'; name: string }) {
  const tool = kind === 'tool' ? detail.package?.tools.find((t) => t.name === name) : undefined;
  const workflow = kind === 'workflow' ? detail.package?.workflows.find((w) => w.id === name) : undefined;
  const schema = useMemo<RJSFSchema>(() => {
    const raw = (tool?.inputSchema ?? workflow?.inputSchema ?? { type: 'object' }) as RJSFSchema;
    // The title comes from the page, not the package.
    const { title: _title, ...rest } = raw;
    return rest;
  }, [tool, workflow]);
  const uiSchema = useMemo<UiSchema>(() => ({ 'ui:submitButtonOptions': { norender: true } }), []);
  const [formData, setFormData] = useState<unknown>({});
  const [workspace, setWorkspace] = useState<WorkspaceHandle | null>(null);
  const [operation, setOperation] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [running, setRunning] = useState(false);
  const progress = useOperations((s) => (operation === null ? null : (s.operations[operation]?.progress ?? null)));

  if (tool === undefined && workflow === undefined)
    return (
      <p role="alert">
        {detail.name} has no {kind} called “{name}”.
      </p>
    );
  const title = tool?.name ?? workflow?.name ?? name;
  const description = tool?.description ?? workflow?.description ?? '';

  const run = async (input: unknown): Promise<void> => {
    setRunning(true);
    setOutcome(null);
    const options = { workspace: workspace?.handle ?? null };
    const json = (input ?? {}) as Parameters<ReturnType<typeof host>['run']['tool']>[2];
    if (kind === 'tool') {
      const result = await runOperation(`Run ${name}`, () => host().run.tool(detail.id, name, json, options), setOperation);
      setOutcome(result.ok ? { kind: 'tool', value: result.value } : { kind: 'error', error: result.error });
    } else {
      const result = await runOperation(`Run ${title}`, () => host().run.workflow(detail.id, name, json, options), setOperation);
      setOutcome(result.ok ? { kind: 'workflow', value: result.value } : { kind: 'error', error: result.error });
    }
    setRunning(false);
  };

  /** Continue: hands the agent's answer back; the steps after the agent step run (run.resumeWorkflow). */
  const resume = async (resumeToken: string, answer: Parameters<ReturnType<typeof host>['run']['resumeWorkflow']>[1]): Promise<void> => {
    setRunning(true);
    const options = { workspace: workspace?.handle ?? null };
    const result = await runOperation(`Continue ${title}`, () => host().run.resumeWorkflow(resumeToken, answer, options), setOperation);
    // A refused answer (E_OUTPUT) keeps the agent step on screen, with the error beside the field.
    if (result.ok) setOutcome({ kind: 'workflow', value: result.value });
    setRunning(false);
    if (!result.ok) return Promise.reject(result.error);
  };

  return (
    <div className="stack">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <a href={hrefOf({ screen: 'run', id: detail.id, kind: null, name: null })}>← {detail.name}</a>
      </nav>
      <section className="panel" aria-labelledby="run-title">
        <h2 id="run-title">
          <span className={kind === 'tool' ? 'mono' : ''}>{title}</span> <span className="badge neutral">{kind}</span>
        </h2>
        <p className="muted">{description}</p>
        {workflow !== undefined && (
          <p className="small">
            Steps:{' '}
            {workflow.steps.map((s, i) => (
              <span key={s.id}>
                {i > 0 ? ' → ' : ''}
                {s.kind === 'agent' ? `your agent (${s.id})` : (s.tool ?? s.id)}
              </span>
            ))}
          </p>
        )}
        <WorkspacePicker value={workspace} onChange={setWorkspace} />
        <div className="run-form">
          <Form
            schema={schema}
            uiSchema={uiSchema}
            validator={cfworkerValidator}
            formData={formData}
            onChange={(e) => setFormData(e.formData)}
            onSubmit={(e) => void run(e.formData)}
            // A new attempt clears the last one's result, also when the form refuses it.
            onError={() => setOutcome(null)}
            templates={RUN_FORM_TEMPLATES}
            showErrorList="top"
            focusOnFirstError
            noHtml5Validate
            id="run-form"
            idPrefix="input"
          >
            <div className="row">
              <button type="submit" className="primary" disabled={running}>
                {running ? 'Running…' : 'Run'}
              </button>
              {!workspace && <span className="small muted">No folder chosen: tools that read or write files will be refused.</span>}
            </div>
          </Form>
        </div>
        {running && (
          <div role="status" aria-live="polite" style={{ marginTop: 12 }}>
            <div className="small">
              {progress === null
                ? 'Starting…'
                : phaseText(progress.phase) +
                  (progress.step !== undefined ? ` · step ${progress.step}` : '') +
                  (progress.tool !== undefined ? ` · ${progress.tool}` : '')}
            </div>
            <progress
              value={progress?.total !== undefined ? progress.done : undefined}
              max={progress?.total ?? 1}
              aria-label="Run progress"
            />
          </div>
        )}
      </section>
      {outcome !== null && <OutcomeView outcome={outcome} onContinue={resume} busy={running} />}
    </div>
  );
}

type ContinueFn = (resumeToken: string, answer: Parameters<ReturnType<typeof host>['run']['resumeWorkflow']>[1]) => Promise<void>;

function OutcomeView({ outcome, onContinue, busy }: { outcome: Outcome; onContinue: ContinueFn; busy: boolean }) {
  if (outcome.kind === 'error') return <ErrorBox error={outcome.error} title="The run failed" />;
  if (outcome.kind === 'tool') {
    const v = outcome.value;
    return (
      <section className="panel" aria-labelledby="out-h">
        <h2 id="out-h">Output</h2>
        <p className="small muted">
          {v.capability} {v.version} · {formatDuration(v.durationMs)} · sandbox: {v.sandbox}
          {v.grantsUsed.length > 0 ? ` · used ${v.grantsUsed.join(', ')}` : ''}
        </p>
        <OutputView value={v.output} />
        {v.stderr.trim().length > 0 && (
          <details>
            <summary>Messages from the tool</summary>
            <pre className="json mono">{v.stderr}</pre>
          </details>
        )}
      </section>
    );
  }
  const v = outcome.value;
  return (
    <section className="panel stack" aria-labelledby="out-h">
      <h2 id="out-h">{v.status === 'agent' ? 'Your agent’s turn' : 'Workflow finished'}</h2>
      {v.status === 'agent' && (
        <div className="agent-box" data-agent-step={v.stepId}>
          <div className="row" style={{ justifyContent: 'space-between' }}>
            <strong>Step “{v.stepId}”: give this to your agent</strong>
            <CopyButton text={v.instruction} label="Copy instruction" />
          </div>
          <pre className="agent-instruction">{v.instruction}</pre>
          <AgentAnswer
            key={v.resumeToken}
            stepId={v.stepId}
            resumeToken={v.resumeToken}
            outputSchema={v.outputSchema}
            onContinue={onContinue}
            busy={busy}
          />
        </div>
      )}
      {v.status === 'done' && <OutputView value={v.output} />}
      {v.steps.length > 0 && (
        <div>
          <h3>{v.status === 'agent' ? 'Gathered so far' : 'Steps'}</h3>
          {v.steps.map((s) => (
            <details key={s.id}>
              <summary>
                {s.id}: {s.kind === 'tool' ? `${s.capability} ${s.tool}` : 'your agent’s answer'}
              </summary>
              <OutputView value={s.output} />
            </details>
          ))}
        </div>
      )}
    </section>
  );
}

/**
 * The agent's answer at an agent step: typed or pasted, then Continue. A step whose outputSchema asks
 * for something other than text takes JSON; otherwise the text is the answer as it is.
 */
function AgentAnswer(props: {
  stepId: string;
  resumeToken: string;
  outputSchema: Record<string, unknown> | undefined;
  onContinue: ContinueFn;
  busy: boolean;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<HostError | null>(null);
  const wantsJson = props.outputSchema !== undefined && props.outputSchema['type'] !== 'string';
  const submit = async (): Promise<void> => {
    setError(null);
    let answer: Parameters<ContinueFn>[1] = text;
    if (wantsJson) {
      try {
        answer = JSON.parse(text) as Parameters<ContinueFn>[1];
      } catch {
        setError({
          code: 'E_USAGE',
          message: 'This step needs the answer as JSON; check the brackets and quotes, then press Continue again.',
        });
        return;
      }
    }
    await props.onContinue(props.resumeToken, answer).catch((e: HostError) => setError(e));
  };
  const fieldId = `agent-answer-${props.stepId}`;
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor={fieldId}>
        <strong>Your agent’s answer{wantsJson ? ' (JSON)' : ''}</strong>
      </label>
      <textarea
        id={fieldId}
        rows={6}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={wantsJson ? 'Paste the JSON your agent gave' : 'Paste or type what your agent wrote'}
      />
      {error !== null && <ErrorBox error={error} title="The answer was not accepted" />}
      <div className="row">
        <button type="submit" className="primary" disabled={props.busy || text.trim() === ''}>
          {props.busy ? 'Continuing…' : 'Continue'}
        </button>
        <span className="small muted">The steps after “{props.stepId}” run with this answer.</span>
      </div>
    </form>
  );
}

/**
 * The workspace picker: the user types a folder and confirms it; the host checks it (absolute,
 * existing, not inside the Arcotheon home) and returns a handle. Runs carry only the handle.
 */
function WorkspacePicker({ value, onChange }: { value: WorkspaceHandle | null; onChange: (w: WorkspaceHandle | null) => void }) {
  const [known, setKnown] = useState<WorkspaceHandle[]>([]);
  const [path, setPath] = useState('');
  const [error, setError] = useState<HostError | null>(null);
  useEffect(() => {
    void host()
      .workspaces.list()
      .then((r) => r.ok && setKnown(r.value));
  }, []);
  const confirm = async (): Promise<void> => {
    setError(null);
    const result = await host().workspaces.confirm(path.trim());
    if (!result.ok) return setError(result.error);
    setKnown((k) => [...k.filter((w) => w.handle !== result.value.handle), result.value]);
    onChange(result.value);
    setPath('');
  };
  /** Electron: the native folder picker in the main process; the page gets only the handle. */
  const pick = async (): Promise<void> => {
    setError(null);
    const result = await desktopBridge()?.pickWorkspace();
    if (result === undefined || (result.ok && result.value === null)) return;
    if (!result.ok) return setError(result.error);
    const chosen = result.value as WorkspaceHandle;
    setKnown((k) => [...k.filter((w) => w.handle !== chosen.handle), chosen]);
    onChange(chosen);
  };
  return (
    <fieldset
      className="stack"
      style={{ border: '1px solid var(--border)', borderRadius: 8, padding: '10px 12px', margin: '12px 0', gap: 8 }}
    >
      <legend>Workspace folder</legend>
      {value !== null ? (
        <div className="row">
          <span>
            Using{' '}
            <strong className="mono" data-workspace-path={value.path}>
              {value.path}
            </strong>
          </span>
          <button type="button" className="small" onClick={() => onChange(null)}>
            Change
          </button>
        </div>
      ) : (
        <>
          {known.length > 0 && (
            <div className="row">
              <label htmlFor="ws-known">Confirmed folders</label>
              <select id="ws-known" value="" onChange={(e) => onChange(known.find((w) => w.handle === e.target.value) ?? null)}>
                <option value="">Choose…</option>
                {known.map((w) => (
                  <option key={w.handle} value={w.handle}>
                    {w.path}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div className="row">
            <label htmlFor="ws-path">Folder</label>
            <input
              id="ws-path"
              type="text"
              className="mono"
              style={{ flex: '1 1 240px' }}
              placeholder="/home/you/projects/site"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), void confirm())}
            />
            <button type="button" onClick={() => void confirm()} disabled={path.trim() === ''}>
              Use this folder
            </button>
          </div>
          {desktopBridge() !== null && (
            <div className="row">
              <button type="button" onClick={() => void pick()}>
                Choose a folder…
              </button>
            </div>
          )}
          <span className="small muted">The tool can reach only this folder, and only with the permissions you granted.</span>
        </>
      )}
      {error !== null && <ErrorBox error={error} />}
    </fieldset>
  );
}

function RecentRuns() {
  const [runs, setRuns] = useState<AuditEntry[] | null>(null);
  useEffect(() => {
    void host()
      .audit.list({ limit: 50 })
      .then((r) => setRuns(r.ok ? r.value.filter((e) => e.tool !== undefined || e.workflow !== undefined).slice(0, 20) : []));
  }, []);
  return (
    <section aria-labelledby="recent-h">
      <h2 id="recent-h">Recent runs</h2>
      {runs === null ? (
        <Loading what="recent runs" />
      ) : runs.length === 0 ? (
        <div className="empty">
          <strong>No runs yet</strong>
          Choose a capability above to run one of its tools.
        </div>
      ) : (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Capability</th>
                <th scope="col">When</th>
                <th scope="col">Took</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.seq}>
                  <td className="mono">{r.tool ?? r.workflow}</td>
                  <td>{r.capability ?? ''}</td>
                  <td>{formatDate(r.time)}</td>
                  <td>{r.durationMs === undefined ? '' : formatDuration(r.durationMs)}</td>
                  <td>{r.outcome ?? r.event}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
