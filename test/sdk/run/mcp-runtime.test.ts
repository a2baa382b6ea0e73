// The mcp runtime (docs/spec/mcp-runtime.md) end to end: a real MCP server written with the
// official SDK, packaged as an mcp tool, run by runTool under real bubblewrap, spoken to with the
// official client: results, the sandbox's refusals, secrets, the tools/list check, the limits.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../sdk/src/format/manifest-types.js';
import { toolSchemaOf } from '../../../sdk/src/run/mcp-runtime.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { SecretSource } from '../../../sdk/src/run/secrets.js';
import { ADCAP_FIXTURE, bundleTs } from '../../helpers/spawn-ts.js';
import { listedTools, mcpServerBundle } from './mcp-fixture.js';
import { rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
let listed: McpTool[];
let serverText: string;

const SECRET = 'sk-test-4f9c1e-never-logged';

function mcpTool(name: string, extra: Partial<Tool> & { args?: string[]; env?: Record<string, string>; mcpName?: string } = {}): Tool {
  const { args, env, mcpName, ...rest } = extra;
  const listing = listed.find((t) => t.name === (mcpName ?? name));
  return {
    name,
    description: `The ${name} tool of the fixture MCP server.`,
    runtime: {
      type: 'mcp',
      server: { type: 'node', entry: 'server/index.mjs', ...(args === undefined ? {} : { args }), ...(env === undefined ? {} : { env }) },
      tool: mcpName ?? name,
    },
    inputSchema: toolSchemaOf(listing?.inputSchema ?? { type: 'object' }),
    ...rest,
  };
}

beforeAll(async () => {
  const bundle = await mcpServerBundle();
  serverText = bundle.text;
  listed = await listedTools(bundle.file);
  h = await RunHome.create();
  await h.install({
    id: 'acme/fixture-mcp',
    permissions: [
      { id: 'fs:read', scope: 'workspace', reason: 'Reads the files you point it at.' },
      { id: 'net:connect', scope: 'allowed.example', reason: 'Fetches pages from allowed.example.' },
      { id: 'env:read', scope: 'API_KEY', reason: 'The API key you give at install.' },
    ],
    tools: [
      mcpTool('echo'),
      mcpTool('read_file', { permissions: ['fs:read:workspace'] }),
      mcpTool('fetch_url', { permissions: ['net:connect:allowed.example'] }),
      mcpTool('config_digest', { permissions: ['env:read:API_KEY'], env: { API_KEY: '${env.API_KEY}' } }),
      mcpTool('echo_refused', { mcpName: 'echo', args: ['--tool-error'] }),
      mcpTool('mute', { mcpName: 'echo', args: ['--mute'], timeoutMs: 1500 }),
      mcpTool('missing', { mcpName: 'not_listed' }),
      { ...mcpTool('loose_schema', { mcpName: 'echo' }), inputSchema: { type: 'object' } },
    ],
    files: { 'server/index.mjs': { text: serverText } },
  });
  // The same server started with --extra-tool lists `exfiltrate`, which this manifest does not declare.
  await h.install({
    id: 'acme/extra-mcp',
    tools: [mcpTool('echo', { args: ['--extra-tool'] })],
    files: { 'server/index.mjs': { text: serverText } },
  });
}, 120_000);
afterAll(async () => {
  await h.remove();
});

describe('the mcp runtime', () => {
  it('calls the server in the sandbox and maps its text content to the output', async () => {
    const result = await runTool(h.arc(), 'acme/fixture-mcp', 'echo', { text: 'hi' });
    expect(result.sandbox).toBe('bubblewrap');
    expect(result.output).toEqual({ text: 'echo: hi', content: [{ type: 'text', text: 'echo: hi' }] });
  });

  it('maps structured content to the output', async () => {
    const result = await runTool(h.arc(), 'acme/fixture-mcp', 'config_digest', {});
    expect(result.output).toEqual({ digest: 'unset' });
  });

  it('reads a file in the workspace, and a file outside it does not exist inside the sandbox', async () => {
    const workspace = join(h.root, 'workspace');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'notes.txt'), 'inside');
    const outside = join(h.root, 'outside.txt');
    await writeFile(outside, 'secret outside the workspace');
    const inside = await runTool(h.arc(), 'acme/fixture-mcp', 'read_file', { path: join(workspace, 'notes.txt') }, { workspace });
    expect(inside.output['text']).toBe('inside');
    const refused = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'read_file', { path: outside }, { workspace }));
    expect(refused.code).toBe('E_TOOL');
    expect(refused.message).toContain(`cannot read ${outside}: ENOENT`);
  });

  it('fetching a host that is not granted is refused at the proxy (403), not by a missing network', async () => {
    const result = await runTool(h.arc(), 'acme/fixture-mcp', 'fetch_url', { url: 'http://not-granted.example/' });
    // The server got an answer, and it came from the host's filtering proxy: the tool's grant names
    // allowed.example only, and the sandbox has no other way out.
    expect(result.output['text']).toMatch(/^HTTP 403 /);
    expect(result.output['text']).toContain('not-granted.example');
  });

  it('a secret reaches only the server whose tool is granted it, and is in no log or audit line', async () => {
    const asked: string[] = [];
    const secrets: SecretSource = async (request) => {
      asked.push(`${request.tool}:${request.variable}`);
      return request.variable === 'API_KEY' ? SECRET : undefined;
    };
    const result = await runTool(h.arc(), 'acme/fixture-mcp', 'config_digest', {}, { secrets });
    expect(result.output).toEqual({ digest: createHash('sha256').update(SECRET).digest('hex') });
    const echo = await runTool(h.arc(), 'acme/fixture-mcp', 'echo', { text: 'x' }, { secrets });
    expect(asked).toEqual(['config_digest:API_KEY']);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(echo)).not.toContain(SECRET);
    const auditDir = storeOf(h.arc()).home.auditDir;
    for (const file of await readdir(auditDir)) expect(await readFile(join(auditDir, file), 'utf8')).not.toContain(SECRET);
  });

  it('isError from the server is E_TOOL with its text', async () => {
    const error = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'echo_refused', { text: 'no' }));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('reported an error: echo refused: no');
  });

  it('a server that never answers initialize is stopped at the timeout (E_TIMEOUT naming initialize)', async () => {
    const started = Date.now();
    const error = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'mute', { text: 'x' }));
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.message).toContain('had not answered initialize');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a tool the server does not list is refused (E_TOOL)', async () => {
    const error = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'missing', {}));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('does not list the tool "not_listed"');
  });

  it('a tool listed with another input schema than the manifest declares is refused (E_TOOL)', async () => {
    const error = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'loose_schema', { text: 'x' }));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('another input schema');
  });

  it('output past the limit is E_OUTPUT_LIMIT, and the run can be cancelled (E_CANCELLED)', async () => {
    const limited = await rejectionOf(runTool(h.arc(), 'acme/fixture-mcp', 'echo', { text: 'x' }, { outputLimit: 64 }));
    expect(limited.code).toBe('E_OUTPUT_LIMIT');
    const controller = new AbortController();
    const run = runTool(h.arc(), 'acme/fixture-mcp', 'mute', { text: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    expect((await rejectionOf(run)).code).toBe('E_CANCELLED');
  });
});

describe('adcap mcp with mcp tools', () => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [await bundleTs(ADCAP_FIXTURE), 'mcp', 'acme/fixture-mcp', 'acme/extra-mcp', '--home', h.home],
      // API_KEY: env:read values come from the CLI's environment first (then <home>/secrets.json).
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', API_KEY: SECRET },
      stderr: 'pipe',
    });
    client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => {
    await client.close();
  });

  it('exposes the declared tools only, and an agent reaches the confined server through them', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('acme__fixture-mcp__echo');
    expect(names).toContain('acme__extra-mcp__echo');
    // Listed by the server, declared by no manifest: never exposed, never callable.
    expect(names.some((n) => n.includes('exfiltrate'))).toBe(false);
    const echo = await client.callTool({ name: 'acme__extra-mcp__echo', arguments: { text: 'through adcap' } });
    expect(echo.isError).not.toBe(true);
    expect(echo.structuredContent).toEqual({ text: 'echo: through adcap', content: [{ type: 'text', text: 'echo: through adcap' }] });
    const refused = await client.callTool({ name: 'acme__extra-mcp__exfiltrate', arguments: { data: 'x' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('E_NOT_FOUND');
  });

  it('passes a granted secret to the server of the tool called', async () => {
    const digest = await client.callTool({ name: 'acme__fixture-mcp__config_digest', arguments: {} });
    expect(digest.structuredContent).toEqual({ digest: createHash('sha256').update(SECRET).digest('hex') });
    const auditDir = storeOf(h.arc()).home.auditDir;
    for (const file of await readdir(auditDir)) expect(await readFile(join(auditDir, file), 'utf8')).not.toContain(SECRET);
  });
});
