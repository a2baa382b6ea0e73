/**
 * "Use with…": link the skills of an installed capability into an agent, see and remove
 * the links Arcotheon made, and copy the line that registers its tools as an MCP server per agent.
 * E_CONFLICT (a skill folder of that name is already there) is shown with its message, which
 * names the choices. Everything shown is text.
 */
import { useCallback, useEffect, useState } from 'react';
import type { AgentIdData, AgentStatusData, HostError, InstalledDetail, McpRegistrationData } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { CopyButton } from './Copy.js';
import { ErrorBox } from './ErrorBox.js';
import './feedback.css';

/** An agent id in words when the agent list has not loaded ("claude-code" → "Claude code"). */
function agentName(id: string): string {
  const words = id.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function UseWith({ detail }: { detail: InstalledDetail }) {
  const hasSkills = (detail.package?.skills ?? []).length > 0;
  const hasTools = (detail.package?.tools ?? []).length > 0;
  const [agents, setAgents] = useState<AgentStatusData[] | null>(null);
  const [agent, setAgent] = useState<AgentIdData | ''>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HostError | null>(null);
  const [mcp, setMcp] = useState<McpRegistrationData[] | null>(null);

  const load = useCallback(async (): Promise<void> => {
    const result = await host().agents.list();
    if (!result.ok) {
      setError(result.error);
      return;
    }
    setAgents(result.value);
    setAgent((current) => (current !== '' ? current : (result.value.find((a) => a.present)?.id ?? result.value[0]?.id ?? '')));
  }, []);

  useEffect(() => {
    // The agents' names, for the MCP lines too.
    if (hasSkills || hasTools) void load();
  }, [hasSkills, hasTools, load]);

  useEffect(() => {
    if (!hasTools) return;
    void host()
      .agents.mcp([detail.id])
      .then((result) => (result.ok ? setMcp(result.value) : setError(result.error)));
  }, [hasTools, detail.id]);

  if (!hasSkills && !hasTools) return null;

  const act = async (run: () => Promise<{ ok: true } | { ok: false; error: HostError }>): Promise<void> => {
    setBusy(true);
    setError(null);
    const result = await run();
    setBusy(false);
    if (!result.ok) setError(result.error);
    await load();
  };
  const links = (agents ?? []).flatMap((a) => a.links.filter((l) => l.id === detail.id).map((l) => ({ ...l, agentName: a.name })));
  const linkedAgents = [...new Set(links.map((l) => l.agent))];

  return (
    <section className="section" aria-labelledby="usewith-h">
      <h2 id="usewith-h">Use with…</h2>
      {error !== null && <ErrorBox error={error} />}
      {hasSkills && (
        <div className="stack">
          {agents === null ? (
            <p className="muted">Looking for agents…</p>
          ) : (
            <div className="row">
              <label>
                Agent{' '}
                <select value={agent} onChange={(e) => setAgent(e.target.value as AgentIdData)} disabled={busy}>
                  {agents.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                      {a.present ? ' (set up here)' : ' (not found here)'}
                    </option>
                  ))}
                </select>
              </label>
              <button
                type="button"
                className="primary"
                disabled={busy || agent === ''}
                onClick={() => void act(() => host().agents.link(detail.id, agent as AgentIdData))}
              >
                Link
              </button>
            </div>
          )}
          {links.length === 0 ? (
            <p className="muted small">Its skills are not linked into any agent.</p>
          ) : (
            <ul className="list-plain panel" aria-label="Agent links">
              {links.map((l) => (
                <li key={`${l.agent}:${l.path}`} data-link={l.agent}>
                  <strong>{l.agentName}</strong> · {l.skill} <span className="mono small">{l.path}</span>{' '}
                  {l.state !== 'ok' && <span className="badge warn">{l.state}</span>}
                </li>
              ))}
            </ul>
          )}
          {linkedAgents.map((a) => (
            <button
              key={a}
              type="button"
              className="small danger"
              disabled={busy}
              onClick={() => void act(() => host().agents.unlink(detail.id, a))}
            >
              Unlink from {agents?.find((x) => x.id === a)?.name ?? a}
            </button>
          ))}
        </div>
      )}
      {hasTools && mcp !== null && (
        <div className="stack">
          <h3>Its tools as an MCP server</h3>
          <p className="small muted">Open your agent to see the line that registers these tools with it.</p>
          {/* One disclosure per agent, closed: the page shows the agents, not every agent's command line at once. */}
          <div className="use-with-agents">
            {mcp.map((m) => (
              <details key={m.agent} data-mcp={m.agent} className="use-with-agent">
                <summary>{agents?.find((a) => a.id === m.agent)?.name ?? agentName(m.agent)}</summary>
                {m.kind === 'config' && <p className="small muted">Add this to {m.file}:</p>}
                <div className="row use-with-line">
                  <code className="mono small">{m.line}</code>
                  <CopyButton text={m.line} />
                </div>
              </details>
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
