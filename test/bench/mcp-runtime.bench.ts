/**
 * mcp runtime bench: a trivial tools/call (echo) through the mcp runtime
 * (runTool: the checks, the server started in bubblewrap for the call, initialize, tools/list
 * with the schema check, tools/call, the audit line) vs the same server run bare (node started
 * directly, the official client's stdio transport: initialize, tools/call, close), interleaved so
 * both see the same machine load, after one warm-up of each (page cache, compile cache). Both
 * start the server for the call: the runtime keeps no server warm (docs/spec/mcp-runtime.md).
 * Target: median ratio at most 1.5x.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '../../sdk/src/format/manifest-types.js';
import { toolSchemaOf } from '../../sdk/src/run/mcp-runtime.js';
import { runTool } from '../../sdk/src/run/run-tool.js';
import { listedTools, mcpServerBundle } from '../sdk/run/mcp-fixture.js';
import { RunHome } from '../sdk/run/run-fixture.js';
import { registerBench } from './registry.js';

const ITERATIONS = 15;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

registerBench({
  name: 'mcp runtime vs bare server: trivial tools/call',
  async run(report) {
    const { file, text } = await mcpServerBundle();
    const echo = (await listedTools(file)).find((t) => t.name === 'echo');
    if (echo === undefined) throw new Error('the fixture server lists no echo tool');
    const h = await RunHome.create();
    try {
      const tool: Tool = {
        name: 'echo',
        description: 'Echoes the text back.',
        runtime: { type: 'mcp', server: { type: 'node', entry: 'server/index.mjs' }, tool: 'echo' },
        inputSchema: toolSchemaOf(echo.inputSchema),
      };
      await h.install({ id: 'bench/mcp', tools: [tool], files: { 'server/index.mjs': { text } } });
      const arc = h.arc();
      const viaRuntime = async (): Promise<void> => {
        const result = await runTool(arc, 'bench/mcp', 'echo', { text: 'hi' });
        if (result.output['text'] !== 'echo: hi') throw new Error('unexpected output from the mcp runtime');
      };
      const bare = async (): Promise<void> => {
        const client = new Client({ name: 'bench', version: '1.0.0' });
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [file], stderr: 'pipe' }));
        const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
        await client.close();
        if (JSON.stringify(result.content) !== JSON.stringify([{ type: 'text', text: 'echo: hi' }]))
          throw new Error('unexpected bare output');
      };
      await viaRuntime();
      await bare();
      const runtime: number[] = [];
      const plain: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        plain.push(await timed(bare));
        runtime.push(await timed(viaRuntime));
      }
      report({
        label: `runTool through the mcp runtime (bubblewrap), median of ${ITERATIONS}`,
        value: median(runtime),
        unit: 'ms',
        baseline: { label: 'the same server run bare with the MCP client', value: median(plain) },
        target: 1.5,
      });
    } finally {
      await h.remove();
    }
  },
});
