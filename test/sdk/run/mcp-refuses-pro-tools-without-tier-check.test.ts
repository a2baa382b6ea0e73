// Kept closed ("Pro tools reach Free users through adcap mcp"): agentMcp() registers
// `adcap mcp <ids> --home …`, which never called the host's checkTier. An MCP server without a
// tier check now neither lists nor runs Pro or entitled tools (E_ENTITLEMENT); a host registers a
// server of its own (agentMcp({ server })) that runs mcpServe with its checkTier, so a Free user is
// refused and a Pro user served. Real child processes, the official MCP client over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolName } from '../../../sdk/src/run/mcp.js';
import { ADCAP_FIXTURE, bundleTs } from '../../helpers/spawn-ts.js';
import { nodeTool, RunHome } from './run-fixture.js';

const TIERED_HOST = fileURLToPath(new URL('../../fixtures/mcp-host/tiered-host.ts', import.meta.url));
const PRO = 'acme/pro-tools';
const PAID = 'acme/entitled-tools';
const FREE = 'acme/free-tools';
const echo = nodeTool('echo', 'echo.mjs', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } });
let h: RunHome;
const clients: Client[] = [];

beforeAll(async () => {
  h = await RunHome.create();
  // The host that installed them had the user's entitlement (its authorize callback says yes).
  const arc = h.arc({ authorize: () => ({}) });
  const files = { 'tools/echo.mjs': 'echo.mjs' };
  await h.install({ id: PRO, tools: [echo], files, distribution: { tier: 'pro', access: 'public' } }, arc);
  await h.install({ id: PAID, tools: [echo], files, distribution: { tier: 'free', access: 'entitled', entitlement: 'acme-paid' } }, arc);
  await h.install({ id: FREE, tools: [echo], files }, arc);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await h.remove();
});

async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'adcap-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';

describe('Pro tools over MCP', () => {
  it('adcap mcp, which has no tier check, neither lists nor runs Pro or entitled tools', async () => {
    const client = await connect([await bundleTs(ADCAP_FIXTURE), 'mcp', PRO, PAID, FREE, '--home', h.home]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([mcpToolName(FREE, 'echo')]);
    for (const id of [PRO, PAID]) {
      const refused = await client.callTool({ name: mcpToolName(id, 'echo'), arguments: { text: 'hi' } });
      expect(refused.isError, id).toBe(true);
      expect(text(refused)).toMatch(new RegExp(`^E_ENTITLEMENT: ${id} is a .* capability .*cannot check the user's plan`));
    }
    const free = await client.callTool({ name: mcpToolName(FREE, 'echo'), arguments: { text: 'hi' } });
    expect(free.structuredContent).toMatchObject({ tool: 'echo', echoed: { text: 'hi' } });
  });

  it("a host's own server asks its checkTier: a Free user is refused, a Pro user served", async () => {
    const host = await bundleTs(TIERED_HOST);
    // TEST_HOST_PLAN is the fixture host's signed-in plan; a real host asks its account service.
    const freeUser = await connect([host, h.home, PRO], { TEST_HOST_PLAN: 'free' });
    const refused = await freeUser.callTool({ name: mcpToolName(PRO, 'echo'), arguments: { text: 'hi' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^E_ENTITLEMENT: acme\/pro-tools is a Pro capability and this host's plan does not include it/);
    const proUser = await connect([host, h.home, PRO], { TEST_HOST_PLAN: 'pro' });
    const served = await proUser.callTool({ name: mcpToolName(PRO, 'echo'), arguments: { text: 'hi' } });
    expect(served.structuredContent).toMatchObject({ echoed: { text: 'hi' } });
  });

  it('agentMcp registers adcap mcp by default, or the command line the host owns', async () => {
    const arc = h.arc();
    const [byDefault] = await arc.agentMcp([PRO], { userHome: h.root });
    expect(byDefault).toMatchObject({ kind: 'command', argv: expect.arrayContaining(['adcap', 'mcp', PRO, '--home', h.home]) });
    const own = await arc.agentMcp([PRO], { userHome: h.root, server: { command: '/opt/host/bin/host', args: ['mcp-serve', PRO] } });
    expect(own[0]).toMatchObject({ argv: expect.arrayContaining(['/opt/host/bin/host', 'mcp-serve', PRO]) });
    expect(own[0]?.kind === 'command' ? own[0].argv : []).not.toContain('adcap');
  });
});
