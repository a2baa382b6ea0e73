// mcpServe end to end: the official MCP SDK client talks to `adcap mcp` running as a real child
// process (node --import tsx sdk/src/cli/main.ts), which runs tools through runTool in bubblewrap.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolName } from '../../../sdk/src/run/mcp.js';
import { ADCAP_FIXTURE, bundleTs } from '../../helpers/spawn-ts.js';
import { nodeTool, RunHome } from './run-fixture.js';

let h: RunHome;
let client: Client;

beforeAll(async () => {
  h = await RunHome.create();
  const arc = h.arc();
  await h.install(
    {
      id: 'acme/mcp-demo',
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'reads files' }],
      tools: [
        nodeTool('echo', 'echo.mjs', {
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          outputSchema: { type: 'object', properties: { tool: { type: 'string' } }, required: ['tool'] },
        }),
        nodeTool('fails', 'misbehave.mjs', { inputSchema: { type: 'object', properties: { mode: { type: 'string' } } } }),
        nodeTool('reader', 'echo.mjs', { permissions: ['fs:read:workspace'] }),
        { name: 'remote', description: 'A reserved runtime.', runtime: { type: 'http' }, inputSchema: { type: 'object' } },
      ],
      files: { 'tools/echo.mjs': 'echo.mjs', 'tools/misbehave.mjs': 'misbehave.mjs' },
    },
    arc,
  );
  await arc.revokeGrant('acme/mcp-demo', 'fs:read:workspace');
  client = await connect();
});
afterAll(async () => {
  await client.close();
  await h.remove();
});

async function connect(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [await bundleTs(ADCAP_FIXTURE), 'mcp', 'acme/mcp-demo', '--home', h.home],
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'adcap-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('adcap mcp', () => {
  it('lists only granted, runnable tools with their input schemas, named <publisher>__<name>__<tool>', async () => {
    {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['acme__mcp-demo__echo', 'acme__mcp-demo__fails']);
      const echo = tools.find((t) => t.name === 'acme__mcp-demo__echo');
      expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    }
  });

  it('calls a tool through runTool and returns its output as structured content and text', async () => {
    {
      const result = await client.callTool({ name: 'acme__mcp-demo__echo', arguments: { text: 'hello' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ tool: 'echo', echoed: { text: 'hello' } });
      const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ tool: 'echo' });
    }
  });

  it('a failing tool, bad input or an ungranted tool comes back as an isError result with the code', async () => {
    {
      const failed = await client.callTool({ name: 'acme__mcp-demo__fails', arguments: { mode: 'error' } });
      expect(failed.isError).toBe(true);
      expect((failed.content as Array<{ text: string }>)[0]?.text).toContain('E_TOOL');
      const bad = await client.callTool({ name: 'acme__mcp-demo__echo', arguments: { text: 5 } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0]?.text).toContain('E_INPUT');
      const hidden = await client.callTool({ name: 'acme__mcp-demo__reader', arguments: {} });
      expect(hidden.isError).toBe(true);
      expect((hidden.content as Array<{ text: string }>)[0]?.text).toContain('E_NOT_FOUND');
    }
  });

  it('long names are shortened to at most 64 characters, keeping the tool name', () => {
    expect(mcpToolName('acme/pdf', 'extract')).toBe('acme__pdf__extract');
    const long = mcpToolName(`${'p'.repeat(40)}/${'n'.repeat(40)}`, 'extract_text');
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long.startsWith('extract_text__')).toBe(true);
  });
});
