// `adcap mcp` answers a tools/call once the tool's result is read, checked and audited, without
// waiting for the tool's process to exit; it still exits only after that run has ended. A real
// `adcap mcp` child process, a real tool in bubblewrap that lingers after its result.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADCAP_FIXTURE, exited, spawnTs, waitForLine } from '../../helpers/spawn-ts.js';
import { nodeTool, RunHome } from './run-fixture.js';

let h: RunHome;

beforeAll(async () => {
  h = await RunHome.create();
  await h.install({
    id: 'acme/linger-demo',
    tools: [nodeTool('misbehave', 'misbehave.mjs', { inputSchema: { type: 'object', properties: { mode: { type: 'string' } } } })],
    files: { 'tools/misbehave.mjs': 'misbehave.mjs' },
  });
});
afterAll(async () => {
  await h.remove();
});

/** Host processes running the installed tool of this test's home. */
function toolProcesses(): number[] {
  const script = join(h.home, 'packages', 'acme', 'linger-demo', '1.0.0', 'tools', 'misbehave.mjs');
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(script)) pids.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

const auditLines = (): string[] => h.auditLines();

describe('adcap mcp answers a call at its result', () => {
  it('answers while the tool still lingers, with its audit line written; exits only once the tool is stopped', async () => {
    const child = await spawnTs(ADCAP_FIXTURE, ['mcp', 'acme/linger-demo', '--home', h.home]);
    try {
      const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'linger-client', version: '1.0.0' } },
      });
      await waitForLine(child, (line) => line.includes('"id":1'));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const before = auditLines().length;
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'acme__linger-demo__misbehave', arguments: { mode: 'result-then-linger' } },
      });
      const answer = JSON.parse(await waitForLine(child, (line) => line.includes('"id":2'))) as {
        result: { isError?: boolean; structuredContent: unknown };
      };
      // Read at once: the tool is stopped 2 s after its result (EXIT_GRACE_MS), so it is still there.
      const lingering = toolProcesses();
      const lines = auditLines();
      expect(answer.result.isError).toBeFalsy();
      expect(answer.result.structuredContent).toEqual({ count: 2 });
      expect(lingering.length).toBeGreaterThan(0);
      expect(lines.length - before).toBe(1);
      expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ name: 'misbehave', outcome: 'ok' });
      // The client leaves; the server waits for the run it answered early to end before it exits.
      child.stdin.end();
      expect(await exited(child)).toBe(0);
      expect(toolProcesses()).toEqual([]);
      expect(auditLines().length - before).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
