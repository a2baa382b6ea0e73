/**
 * "Install from file…" for an MCP Bundle (`.mcpb`; docs/spec/mcp-runtime.md "MCP Bundles"): what
 * the bundle holds (its server, its tools, the folder it works in), the choices an import needs
 * (the servers it may reach, or none, else the High-risk "any server"), and its settings as inputs
 * (sensitive ones as password fields, kept as secrets for this server only). Continue imports it
 * on the host, signed with the user's own key as `adcap add file.mcpb` does, and hands over to the
 * install dialog (the plan, the permissions, Install). Every text here is the bundle's: shown as
 * text, never as HTML.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { HostError, McpBundleData, McpBundleImportData } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { Dialog } from './Dialog.js';
import { ErrorBox } from './ErrorBox.js';
import { InstallDialog } from './InstallDialog.js';
import { RiskBadge } from './Permissions.js';
import './bundle-import.css';

type Network = 'hosts' | 'none' | 'any';

type Phase =
  | { kind: 'reading' }
  | { kind: 'choose'; bundle: McpBundleData }
  | { kind: 'importing'; bundle: McpBundleData }
  /** A bundle that did not list its tools: what its server listed, before the install dialog. */
  | { kind: 'listed'; bundle: McpBundleData; imported: McpBundleImportData }
  | { kind: 'install'; bundle: McpBundleData; imported: McpBundleImportData }
  | { kind: 'failed'; error: HostError; bundle: McpBundleData | null };

/** A host as `adcap import --allow-net` takes it (DESIGN §5): a name, *.domain, optional :port. */
const HOST_PATTERN = /^(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;

const SERVER_TEXT = { node: 'Node.js', python: 'Python', binary: 'program' } as const;

export function BundleImportDialog({ file, name, onClose }: { file: string; name: string; onClose: (installed: boolean) => void }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'reading' });
  const [network, setNetwork] = useState<Network>('hosts');
  const [hosts, setHosts] = useState<string[]>([]);
  const [hostText, setHostText] = useState('');
  const [hostProblem, setHostProblem] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const cancelRef = useRef<HTMLButtonElement>(null);
  const ids = useId();

  useEffect(() => {
    let live = true;
    void host()
      .sideload.inspectBundle(file)
      .then((result) => {
        if (!live) return;
        if (!result.ok) return setPhase({ kind: 'failed', error: result.error, bundle: null });
        const defaults: Record<string, string> = {};
        for (const input of result.value.inputs) if (input.defaultValue !== undefined) defaults[input.variable] = input.defaultValue;
        setValues(defaults);
        setPhase({ kind: 'choose', bundle: result.value });
      });
    return () => {
      live = false;
    };
  }, [file]);

  if (phase.kind === 'install')
    return <InstallDialog target={{ bundle: phase.imported.bundle }} name={phase.bundle.title} onClose={onClose} />;

  const addHost = (): void => {
    const text = hostText.trim().toLowerCase();
    if (text === '') return;
    if (!HOST_PATTERN.test(text) || text.length > 253) {
      setHostProblem(`“${text.slice(0, 80)}” is not a host name; type one like api.example.com or *.example.com.`);
      return;
    }
    setHostProblem(null);
    setHosts((h) => (h.includes(text) ? h : [...h, text]));
    setHostText('');
  };

  const missing = (bundle: McpBundleData): string[] =>
    bundle.valuesKept ? bundle.inputs.filter((i) => i.required && (values[i.variable] ?? '') === '').map((i) => i.title) : [];

  const proceed = async (bundle: McpBundleData): Promise<void> => {
    setPhase({ kind: 'importing', bundle });
    const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    const result = await host().sideload.importBundle(file, {
      ...(network === 'none' ? { noNet: true } : {}),
      ...(network === 'hosts' ? { allowNet: hosts } : {}),
      ...(bundle.valuesKept && Object.keys(given).length > 0 ? { values: given } : {}),
    });
    if (!result.ok) return setPhase({ kind: 'failed', error: result.error, bundle });
    setPhase({ kind: bundle.toolsGenerated ? 'listed' : 'install', bundle, imported: result.value });
  };

  let body: React.ReactNode;
  let footer: React.ReactNode;
  if (phase.kind === 'reading') {
    body = (
      <p role="status" aria-live="polite">
        Reading {name}…
      </p>
    );
    footer = (
      <button ref={cancelRef} type="button" onClick={() => onClose(false)}>
        Cancel
      </button>
    );
  } else if (phase.kind === 'failed') {
    body = <ErrorBox error={phase.error} title={`${name} could not be imported`} />;
    footer = (
      <>
        {phase.bundle !== null && (
          <button type="button" onClick={() => setPhase({ kind: 'choose', bundle: phase.bundle as McpBundleData })}>
            Back
          </button>
        )}
        <button ref={cancelRef} type="button" className="primary" onClick={() => onClose(false)}>
          Close
        </button>
      </>
    );
  } else if (phase.kind === 'listed') {
    const { bundle, imported } = phase;
    body = (
      <div className="bundle-import" data-bundle-listed="">
        <p>
          Its server, started in the sandbox with no network, lists {imported.tools.length} tool
          {imported.tools.length === 1 ? '' : 's'}. Each becomes a tool of <code>{imported.id}</code>, run with the permissions the install
          shows next.
        </p>
        <ul className="list-plain bundle-tools" aria-label="Tools its server lists">
          {imported.tools.map((t) => (
            <li key={t.name}>
              <code>{t.name}</code>
              {t.description !== '' && <span className="muted"> — {t.description}</span>}
            </li>
          ))}
        </ul>
      </div>
    );
    footer = (
      <>
        <button ref={cancelRef} type="button" onClick={() => onClose(false)}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => setPhase({ kind: 'install', bundle, imported })}>
          Continue
        </button>
      </>
    );
  } else {
    const bundle = phase.bundle;
    const busy = phase.kind === 'importing';
    const blocked = missing(bundle);
    const anyServer = network === 'any' || (network === 'hosts' && hosts.length === 0);
    body = (
      <div className="bundle-import" data-bundle-import="">
        <p>
          <strong>{bundle.title}</strong> {bundle.version}
          {bundle.author !== '' && <span className="muted"> by {bundle.author}</span>}
          {bundle.summary !== '' && <span className="bundle-summary">{bundle.summary}</span>}
        </p>
        <p className="small muted">
          An MCP Bundle from the file {name}. Arcotheon imports it as the capability <code>{bundle.suggestedId}</code>, signed with your own
          key, and runs its server only inside the sandbox, with the permissions below.
        </p>

        <h3>Server</h3>
        <p>
          A {SERVER_TEXT[bundle.server.type]} server, <code>{bundle.server.entry}</code>, started for each call in the sandbox.
        </p>

        <h3>Tools</h3>
        {bundle.toolsGenerated || bundle.tools.length === 0 ? (
          <p className="muted">
            The bundle does not list its tools: when you continue, its server is started once in the sandbox, with no network, and asked for
            them.
          </p>
        ) : (
          <ul className="list-plain bundle-tools" aria-label="Tools">
            {bundle.tools.map((t) => (
              <li key={t.name}>
                <code>{t.name}</code>
                {t.description !== undefined && <span className="muted"> — {t.description}</span>}
              </li>
            ))}
          </ul>
        )}

        {bundle.folders.length > 0 && (
          <>
            <h3>Files</h3>
            <p>
              It works in the folder you choose for each run (it asks for{' '}
              {bundle.folders.map((f, i) => (
                <span key={i}>
                  {i > 0 && ', '}“{f.title}”
                </span>
              ))}
              ), and nowhere else.
            </p>
          </>
        )}

        <fieldset className="bundle-fieldset" disabled={busy}>
          <legend>Network</legend>
          <p className="small muted">An MCP Bundle does not say which servers it connects to. Choose what its server may reach.</p>
          <label className="bundle-choice">
            <input type="radio" name={`${ids}-net`} checked={network === 'hosts'} onChange={() => setNetwork('hosts')} />
            <span>Only the servers I list</span>
          </label>
          {network === 'hosts' && (
            <div className="bundle-hosts">
              {hosts.length > 0 && (
                <ul className="list-plain" aria-label="Allowed servers">
                  {hosts.map((h) => (
                    <li key={h} className="row">
                      <code>{h}</code>
                      <button
                        type="button"
                        className="small"
                        aria-label={`Remove ${h}`}
                        onClick={() => setHosts((list) => list.filter((x) => x !== h))}
                      >
                        Remove
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <div className="row">
                <label htmlFor={`${ids}-host`}>Server</label>
                <input
                  id={`${ids}-host`}
                  type="text"
                  className="mono"
                  placeholder="api.example.com"
                  value={hostText}
                  aria-invalid={hostProblem !== null}
                  aria-describedby={hostProblem !== null ? `${ids}-host-problem` : undefined}
                  onChange={(e) => setHostText(e.target.value)}
                  onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), addHost())}
                />
                <button type="button" onClick={addHost} disabled={hostText.trim() === ''}>
                  Add server
                </button>
              </div>
              {hostProblem !== null && (
                <p id={`${ids}-host-problem`} className="small bundle-problem" role="alert">
                  {hostProblem}
                </p>
              )}
            </div>
          )}
          <label className="bundle-choice">
            <input type="radio" name={`${ids}-net`} checked={network === 'none'} onChange={() => setNetwork('none')} />
            <span>No network: it needs none</span>
          </label>
          <label className="bundle-choice">
            <input type="radio" name={`${ids}-net`} checked={network === 'any'} onChange={() => setNetwork('any')} />
            <span>Any server</span>
          </label>
          {anyServer && (
            <div className="warning danger bundle-any" data-network="any">
              <RiskBadge risk="high" />
              <div>
                <strong>Connect to any server on the internet</strong>
                {network === 'hosts'
                  ? 'With no server listed, the server may connect anywhere. Add the servers it needs, or choose No network.'
                  : 'The server may send what it reads to any server.'}
              </div>
            </div>
          )}
        </fieldset>

        {bundle.inputs.length > 0 && (
          <fieldset className="bundle-fieldset" disabled={busy}>
            <legend>Settings</legend>
            <p className="small muted">
              {bundle.valuesKept
                ? 'Kept in your secret store and given only to this server; a secret is never shown again.'
                : 'Arcotheon asks for these the first time a tool needs them, and keeps them for this server only.'}
            </p>
            {bundle.valuesKept &&
              bundle.inputs.map((input) => {
                const id = `${ids}-in-${input.variable}`;
                const describe = input.description === '' ? undefined : `${id}-d`;
                const value = values[input.variable] ?? '';
                const set = (v: string): void => setValues((all) => ({ ...all, [input.variable]: v }));
                return (
                  <div key={input.variable} className="bundle-field" data-variable={input.variable}>
                    {input.type === 'boolean' ? (
                      <label className="bundle-choice" htmlFor={id}>
                        <input
                          id={id}
                          type="checkbox"
                          checked={value === 'true'}
                          aria-describedby={describe}
                          onChange={(e) => set(e.target.checked ? 'true' : 'false')}
                        />
                        <span>{input.title}</span>
                      </label>
                    ) : (
                      <>
                        <label htmlFor={id}>
                          {input.title}
                          {input.required && <span className="muted"> (required)</span>}
                          {input.sensitive && <span className="badge neutral">Secret</span>}
                        </label>
                        <input
                          id={id}
                          type={input.sensitive ? 'password' : input.type === 'number' ? 'number' : 'text'}
                          autoComplete={input.sensitive ? 'new-password' : 'off'}
                          spellCheck={false}
                          required={input.required}
                          aria-describedby={describe}
                          value={value}
                          onChange={(e) => set(e.target.value)}
                        />
                      </>
                    )}
                    {describe !== undefined && (
                      <span id={describe} className="small muted">
                        {input.description}
                      </span>
                    )}
                  </div>
                );
              })}
          </fieldset>
        )}

        {busy && (
          <p role="status" aria-live="polite">
            Importing {bundle.title}: its server is started in the sandbox, with no network, to list its tools…
          </p>
        )}
        {!busy && blocked.length > 0 && <p className="small muted">Fill in {blocked.map((b) => `“${b}”`).join(', ')} to continue.</p>}
      </div>
    );
    footer = (
      <>
        <button ref={cancelRef} type="button" disabled={busy} onClick={() => onClose(false)}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={busy || blocked.length > 0} onClick={() => void proceed(bundle)}>
          Continue
        </button>
      </>
    );
  }

  return (
    <Dialog
      title={`Import ${phase.kind === 'reading' || phase.kind === 'failed' ? name : phase.bundle.title}?`}
      onCancel={() => onClose(false)}
      initialFocus={cancelRef}
      busy={phase.kind === 'importing'}
      footer={footer}
      wide
    >
      {body}
    </Dialog>
  );
}
