// `adcap mcp` answers the requests a client wrote even when the client closes its end of
// stdin right after asking (before, the server closed on 'end' and never answered). A real child
// process (node --import tsx sdk/src/cli/main.ts) gets the whole conversation in one write, then EOF.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADCAP_FIXTURE, spawnTs } from '../../helpers/spawn-ts.js';
import { nodeTool, RunHome } from './run-fixture.js';

let h: RunHome;

beforeAll(async () => {
  h = await RunHome.create();
  await h.install({
    id: 'acme/eof-demo',
    tools: [nodeTool('echo', 'echo.mjs', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })],
    files: { 'tools/echo.mjs': 'echo.mjs' },
  });
});
afterAll(async () => {
  await h.remove();
});

/** Writes `messages` as JSON lines, closes stdin at once, and collects every line and the exit code. */
async function converse(messages: unknown[]): Promise<{ code: number | null; lines: Array<Record<string, unknown>>; stderr: string }> {
  const child = await spawnTs(ADCAP_FIXTURE, ['mcp', 'acme/eof-demo', '--home', h.home]);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`adcap mcp did not exit after stdin closed; stdout: ${stdout}; stderr: ${stderr}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, lines, stderr });
    });
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof-client', version: '1.0.0' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('adcap mcp with a client that closes stdin right after asking', () => {
  it('answers initialize and tools/list, then exits 0', async () => {
    const run = await converse([initialize, initialized, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.map((l) => l.id)).toEqual([1, 2]);
    const list = run.lines.find((l) => l.id === 2) as { result: { tools: Array<{ name: string }> } };
    expect(list.result.tools.map((t) => t.name)).toEqual(['acme__eof-demo__echo']);
  });

  it('also finishes a tool call that was still running when stdin closed', async () => {
    const run = await converse([
      initialize,
      initialized,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'acme__eof-demo__echo', arguments: { text: 'late' } } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const call = run.lines.find((l) => l.id === 7) as { result: { content: Array<{ text: string }> } } | undefined;
    expect(call).toBeDefined();
    // Answered either way: with the output where a sandbox exists, with an isError result where not.
    expect(call?.result.content[0]?.text).toMatch(/late|E_SANDBOX_UNAVAILABLE/);
  });
});
