// The MCP server reads a capability's state and active manifest once per tools/call (the tool is
// looked up in them and runs with them) and keeps neither from one call to the next: a version
// installed or a grant revoked between two calls is what the next call sees. In process, over
// real streams, with the tools run in real bubblewrap.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServeIn, type McpServerHandle } from '../../../sdk/src/run/mcp.js';
import type { RunContext } from '../../../sdk/src/run/context.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { nodeTool, RunHome } from './run-fixture.js';

const ID = 'acme/per-call';
let h: RunHome;
let arc: Arcotheon;
let server: McpServerHandle;
const reads = { state: 0, manifest: 0 };
const stdin = new PassThrough();
const stdout = new PassThrough();
const waiting = new Map<number, (message: Record<string, unknown>) => void>();
let nextId = 1;

const capability = (version: string): Parameters<RunHome['install']>[0] => ({
  id: ID,
  version,
  permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'reads files' }],
  tools: [nodeTool('echo', 'echo.mjs'), nodeTool('reader', 'echo.mjs', { permissions: ['fs:read:workspace'] })],
  files: { 'tools/echo.mjs': 'echo.mjs' },
});

/** The store, counting the reads of a state and of an installed manifest. */
function counting(store: RunContext): RunContext {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'state')
        return (id: string) => {
          reads.state++;
          return target.state(id);
        };
      if (property === 'readInstalledManifest')
        return (id: string, version: string) => {
          reads.manifest++;
          return target.readInstalledManifest(id, version);
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
}

async function call(tool: string): Promise<{ isError?: boolean; text: string; version?: string }> {
  const answer = (await request('tools/call', { name: `acme__per-call__${tool}`, arguments: {} })) as {
    result: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: { context: { version: string } } };
  };
  const r = answer.result;
  return {
    ...(r.isError === undefined ? {} : { isError: r.isError }),
    text: r.content[0]?.text ?? '',
    ...(r.structuredContent === undefined ? {} : { version: r.structuredContent.context.version }),
  };
}

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install(capability('1.0.0'), arc);
  let buffered = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      buffered = buffered.slice(end + 1);
      waiting.get(message['id'] as number)?.(message);
    }
  });
  server = await mcpServeIn(counting(storeOf(arc)), [ID], { stdin, stdout });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'per-call', version: '1' } });
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
});
afterAll(async () => {
  await server.close();
  await h.remove();
});

describe('a tools/call of the MCP server', () => {
  it('reads the state and the active manifest once', async () => {
    reads.state = 0;
    reads.manifest = 0;
    const result = await call('echo');
    expect(result.isError, result.text).toBeFalsy();
    expect(result.version).toBe('1.0.0');
    expect(reads).toEqual({ state: 1, manifest: 1 });
  });

  it('runs the version installed since the previous call', async () => {
    expect((await call('echo')).version).toBe('1.0.0');
    await h.install(capability('2.0.0'), arc);
    const after = await call('echo');
    expect(after.isError, after.text).toBeFalsy();
    expect(after.version).toBe('2.0.0');
  });

  it('refuses a tool whose grant was revoked since the previous call, and runs it again once granted', async () => {
    const before = await call('reader');
    expect(before.isError, before.text).toBeFalsy();
    await arc.revokeGrant(ID, 'fs:read:workspace');
    const revoked = await call('reader');
    expect(revoked.isError).toBe(true);
    expect(revoked.text).toContain('E_NOT_FOUND');
    await arc.grant(ID, 'fs:read:workspace');
    const again = await call('reader');
    expect(again.isError, again.text).toBeFalsy();
  });
});
