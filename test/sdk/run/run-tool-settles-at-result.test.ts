// runToolIn's onSettled (RunInternals): the MCP server answers a call once the tool's result is
// read, checked and audited, while the tool's process exits; never for a run whose outcome can
// still change after the result. Real tools under real bubblewrap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolIn } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';

const ID = 'acme/settles';
let h: RunHome;
let arc: Arcotheon;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install(
    {
      id: ID,
      permissions: [{ id: 'storage:data', reason: 'keeps its notes' }],
      tools: [
        nodeTool('misbehave', 'misbehave.mjs', {
          inputSchema: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
          outputSchema: { type: 'object', properties: { count: { type: 'integer' } } },
        }),
        nodeTool('keeper', 'misbehave.mjs', { permissions: ['storage:data'] }),
      ],
      files: { 'tools/misbehave.mjs': 'misbehave.mjs' },
    },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
});

const auditLines = (): string[] => h.auditLines();

/** Runs `tool` with onSettled; records when it was called, with what, and what the audit log held then. */
async function runRecorded(tool: string, mode: string) {
  const before = auditLines().length;
  const started = Date.now();
  let settled: { at: number; output: Record<string, unknown>; auditLines: number } | null = null;
  let calls = 0;
  const run = runToolIn(
    storeOf(arc),
    ID,
    tool,
    { mode },
    {},
    {
      onSettled: (output) => {
        calls++;
        settled = { at: Date.now() - started, output, auditLines: auditLines().length - before };
      },
    },
  );
  return { run, started, before, settled: () => settled as typeof settled, calls: () => calls };
}

describe('runToolIn onSettled', () => {
  it('is told the output once the line is audited, while the tool lingers; the run ends after the tool is stopped', async () => {
    const r = await runRecorded('misbehave', 'result-then-linger');
    const result = await r.run;
    const ended = Date.now() - r.started;
    const settled = r.settled();
    expect(settled).not.toBeNull();
    expect(r.calls()).toBe(1);
    expect(settled?.output).toEqual({ count: 2 });
    expect(result.output).toEqual({ count: 2 });
    // The audit line was on disk when the listener was told (one line for the run, not two).
    expect(settled?.auditLines).toBe(1);
    expect(auditLines().length - r.before).toBe(1);
    // The lingering tool is stopped 2 s after its result (EXIT_GRACE_MS): the run ends then,
    // the listener was told long before.
    expect(ended - (settled?.at ?? ended)).toBeGreaterThan(1_000);
  });

  it('is not told for a tool error or an output that breaks outputSchema', async () => {
    const failed = await runRecorded('misbehave', 'error');
    expect((await rejectionOf(failed.run)).code).toBe('E_TOOL');
    expect(failed.calls()).toBe(0);
    const wrong = await runRecorded('misbehave', 'wrong-output');
    expect((await rejectionOf(wrong.run)).code).toBe('E_OUTPUT');
    expect(wrong.calls()).toBe(0);
  });

  it('is not told for a storage:data tool, whose quota is checked after it exits', async () => {
    const kept = await runRecorded('keeper', 'result-then-linger');
    expect((await kept.run).output).toEqual({ count: 2 });
    expect(kept.calls()).toBe(0);
  });
});
