// runTool (spec §7) under real bubblewrap: one test per rule the runner enforces.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const ID = 'acme/tools';
let h: RunHome;
let arc: Arcotheon;
let workspace: string;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  workspace = join(h.root, 'workspace');
  await mkdir(workspace);
  await h.install(
    {
      id: ID,
      permissions: [{ id: 'fs:write', scope: 'workspace', reason: 'writes its marker files' }],
      tools: [
        nodeTool('echo', 'echo.mjs', {
          inputSchema: {
            type: 'object',
            properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
            required: ['text'],
          },
          outputSchema: { type: 'object', required: ['echoed'] },
        }),
        nodeTool('misbehave', 'misbehave.mjs', {
          inputSchema: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
          outputSchema: { type: 'object', properties: { count: { type: 'integer' } } },
        }),
        nodeTool('grandparent', 'misbehave.mjs', { timeoutMs: 1500, permissions: ['fs:write:workspace'] }),
      ],
      files: { 'tools/echo.mjs': 'echo.mjs', 'tools/misbehave.mjs': 'misbehave.mjs' },
    },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
});

/** The lines of this month's audit log of the test home. */
const auditLines = (): string[] => h.auditLines();
const lastAuditLine = (): Record<string, unknown> => JSON.parse(auditLines().at(-1) ?? '{}') as Record<string, unknown>;

/** Host processes whose command line contains `token`. */
function processesWith(token: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(token)) pids.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

describe('runTool', () => {
  it('runs a node tool in bubblewrap and returns its output, stderr and the sandbox used', async () => {
    const result = await runTool(arc, ID, 'echo', { text: 'hi' }, { workspace });
    expect(result.output['echoed']).toEqual({ text: 'hi' });
    expect(result.sandbox).toBe('bubblewrap');
    expect(result.stderr).toContain('echo: called as echo');
    const context = result.output['context'] as Record<string, unknown>;
    expect(context).toMatchObject({
      capability: ID,
      version: '1.0.0',
      dir: storeOf(arc).home.versionDir(ID, '1.0.0'),
      workspace,
      resources: {},
      dependencies: {},
      toolDataDir: null,
    });
  });

  it('input-schema: input that fails inputSchema is E_INPUT with the JSON pointer, before the tool starts', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'echo', { text: 'hi', count: 0 }));
    expect(error.code).toBe('E_INPUT');
    expect(error.message).toContain('/count');
    expect(error.details?.['pointer']).toBe('/count');
    expect(error.details?.['stderr']).toBeUndefined(); // never started
  });

  it('output-schema: output that fails outputSchema is E_OUTPUT', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'wrong-output' }));
    expect(error.code).toBe('E_OUTPUT');
    expect(error.message).toContain('/count');
  });

  it('timeout kills grandchildren: nothing the tool started survives or writes after the timeout', async () => {
    // Control: a grandchild that writes before the timeout does write, so the check below can fail.
    const early = join(workspace, `early-${process.pid}.txt`);
    expect(
      (
        await rejectionOf(
          runTool(arc, ID, 'grandparent', { mode: 'grandchild', marker: early, delayMs: 100, token: 'early' }, { workspace }),
        )
      ).code,
    ).toBe('E_TIMEOUT');
    expect(existsSync(early)).toBe(true);
    for (const detach of [false, true]) {
      const token = `adcap-grandchild-${process.pid}-${Date.now()}-${String(detach)}`;
      const marker = join(workspace, `${token}.txt`);
      const started = Date.now();
      const error = await rejectionOf(
        runTool(arc, ID, 'grandparent', { mode: 'grandchild', marker, delayMs: 2500, token, detach }, { workspace }),
      );
      expect(error.code).toBe('E_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(1500 + 3000);
      expect(processesWith(token)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(existsSync(marker), `the ${detach ? 'new-session' : 'same-group'} grandchild wrote after the timeout`).toBe(false);
      expect(processesWith(token)).toEqual([]);
    }
  });

  it("an option may lower the timeout but never raise it above the tool's", async () => {
    const started = Date.now();
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'sleep' }, { timeoutMs: 300 }));
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.details?.['timeoutMs']).toBe(300);
    expect(Date.now() - started).toBeLessThan(3000);
    const capped = await rejectionOf(runTool(arc, ID, 'grandparent', { mode: 'sleep' }, { timeoutMs: 60_000 }));
    expect(capped.details?.['timeoutMs']).toBe(1500);
  });

  it('output limit: a 64 MiB flood is cut at the limit quickly with bounded memory (E_OUTPUT_LIMIT)', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'flood' }));
    const ms = Date.now() - started;
    const growth = process.memoryUsage().rss - rssBefore;
    expect(error.code).toBe('E_OUTPUT_LIMIT');
    expect(ms).toBeLessThan(10_000);
    expect(growth).toBeLessThan(64 * 1024 * 1024);
    console.log(`flood: cut after ${ms} ms, RSS growth ${(growth / 1048576).toFixed(1)} MiB`);
  });

  it('a result is the outcome: output past the limit after it stops the tool, and the result stands (docs/tool-protocol.md)', async () => {
    const started = Date.now();
    const result = await runTool(arc, ID, 'misbehave', { mode: 'result-then-flood' }, { outputLimit: 1024 * 1024 });
    expect(result.output).toEqual({ count: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lastAuditLine()).toMatchObject({ name: 'misbehave', outcome: 'ok' });
  });

  it('a run settled by its result has its audit line written while the tool exits; a cancel then stops it, the result stands', async () => {
    const before = auditLines().length;
    const controller = new AbortController();
    const run = runTool(arc, ID, 'misbehave', { mode: 'result-then-linger' }, { signal: controller.signal });
    // The tool lingers after its result (it would be stopped after 2 s): its line is there before it exits.
    const deadline = Date.now() + 20_000;
    while (auditLines().length === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lastAuditLine()).toMatchObject({ name: 'misbehave', outcome: 'ok' });
    expect(lastAuditLine()).not.toHaveProperty('errorCode');
    controller.abort();
    expect((await run).output).toEqual({ count: 2 });
    // One line for the run, not a second one for its end.
    expect(auditLines().length).toBe(before + 1);
  });

  it('a smaller outputLimit option cuts sooner', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'flood' }, { outputLimit: 1024 * 1024 }));
    expect(error.code).toBe('E_OUTPUT_LIMIT');
    expect(error.details?.['limit']).toBe(1024 * 1024);
  });

  it('protocol: a line that is not JSON is E_PROTOCOL', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'bad-line' }));
    expect(error.code).toBe('E_PROTOCOL');
    expect(error.message).toContain('not JSON');
  });

  it('protocol: an unknown message type is E_PROTOCOL naming the type', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'unknown-type' }));
    expect(error.code).toBe('E_PROTOCOL');
    expect(error.message).toContain('"progress"');
  });

  it('tool error: {"type":"error"} is E_TOOL with the tool\'s message', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'error' }));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('the file is encrypted');
  });

  it('exit without result is E_TOOL with the exit code and the stderr tail', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'misbehave', { mode: 'exit' }));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('exited with code 3');
    expect(error.message).toContain('fatal: cannot open the thing');
    expect(error.details?.['exitCode']).toBe(3);
  });

  it('stderr is captured, bounded to its last 64 KiB', async () => {
    const result = await runTool(arc, ID, 'misbehave', { mode: 'stderr' });
    expect(result.output).toEqual({ ok: true });
    expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(64 * 1024);
    expect(result.stderr.trimEnd().endsWith('the last stderr line')).toBe(true);
    expect(result.stderr).not.toContain('log line 0 ');
  });

  it('an unknown tool is E_NOT_FOUND listing the tools', async () => {
    const error = await rejectionOf(runTool(arc, ID, 'nope', {}));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.message).toContain('echo');
  });
});
