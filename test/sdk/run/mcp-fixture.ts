// The fixture MCP server (test/fixtures/mcp-server/server.ts, written with the official MCP SDK)
// bundled into one file, and what it lists when run bare (no sandbox), for the mcp runtime tests.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { bundleTs } from '../../helpers/spawn-ts.js';

export const MCP_SERVER_SOURCE = fileURLToPath(new URL('../../fixtures/mcp-server/server.ts', import.meta.url));

/** The bundled server (one ES module with the MCP SDK and zod inside). */
export async function mcpServerBundle(): Promise<{ file: string; text: string }> {
  const file = await bundleTs(MCP_SERVER_SOURCE);
  return { file, text: await readFile(file, 'utf8') };
}

/** Connects the official client to the server run bare with `node <bundle> ...args`. */
export async function bareClient(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bare', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [file, ...args], env, stderr: 'pipe' }));
  return client;
}

/** What the server lists, run bare. */
export async function listedTools(file: string, args: string[] = []): Promise<McpTool[]> {
  const client = await bareClient(file, args);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}
