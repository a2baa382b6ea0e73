// A tool with storage:data could fill the disk the Arcotheon home is on: its data folder had no
// limit, and it outlives the run. Now each tool's folder has a quota (default 1 GiB, ArcotheonOptions
// limits.toolDataBytes): checked before a run (a tool over it does not start) and after it (the run
// that went over fails, naming the quota). SECURITY.md "Tool data quota". Real runs in bubblewrap.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { DEFAULT_TOOL_DATA_QUOTA, formatBytes, toolDataUsage } from '../../../sdk/src/store/tool-data.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { nodeTool, RunHome, rejectionOf } from './run-fixture.js';

/** Writes input.bytes bytes into a new file of its data folder (input.sparse: a sparse file), and a marker it ran. */
const FILLER = `import { createInterface } from 'node:readline';
import { closeSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
for await (const line of createInterface({ input: process.stdin })) {
  const { input, context } = JSON.parse(line);
  const dir = context.toolDataDir;
  writeFileSync(join(dir, 'ran-' + input.n), '');
  const file = join(dir, 'blob-' + input.n + '.bin');
  if (input.sparse) { const fd = openSync(file, 'w'); ftruncateSync(fd, input.bytes); closeSync(fd); }
  else writeFileSync(file, Buffer.alloc(input.bytes, 1));
  process.stdout.write(JSON.stringify({ type: 'result', output: { wrote: input.bytes } }) + '\\n');
  break;
}
`;
const MiB = 1024 * 1024;
let h: RunHome;
let n = 0;

beforeAll(async () => {
  h = await RunHome.create();
});
afterAll(() => h.remove());

async function filler(arc: Arcotheon): Promise<{ id: string; dir: string }> {
  const id = `acme/filler-${++n}`;
  await h.install(
    {
      id,
      permissions: [{ id: 'storage:data', reason: 'Keeps its files.' }],
      tools: [nodeTool('fill', 'fill.mjs', { permissions: ['storage:data'] })],
      files: { 'tools/fill.mjs': { text: FILLER } },
    },
    arc,
  );
  return { id, dir: storeOf(arc).home.toolDataDir(id, 'fill') };
}

describe('the storage:data quota', () => {
  it('a control: a tool under its quota runs and keeps its data', async () => {
    const arc = h.arc({ limits: { toolDataBytes: 4 * MiB } });
    const { id, dir } = await filler(arc);
    expect((await runTool(arc, id, 'fill', { n: 1, bytes: MiB })).output).toEqual({ wrote: MiB });
    expect(await toolDataUsage(dir)).toBeGreaterThanOrEqual(MiB);
  });

  it('a run that goes over fails with E_LIMIT naming the quota; the next run does not start; removing data lets it run', async () => {
    const arc = h.arc({ limits: { toolDataBytes: 4 * MiB } });
    const { id, dir } = await filler(arc);
    const over = await rejectionOf(runTool(arc, id, 'fill', { n: 1, bytes: 5 * MiB }));
    expect(over).toMatchObject({ code: 'E_LIMIT', details: { id, tool: 'fill', quota: 4 * MiB, limit: 'toolDataBytes' } });
    expect(over.message).toContain('over its quota of 4 MiB');
    expect(over.message).toContain(dir);
    const refused = await rejectionOf(runTool(arc, id, 'fill', { n: 2, bytes: 1 }));
    expect(refused).toMatchObject({ code: 'E_LIMIT' });
    expect(refused.message).toContain('so the tool does not run');
    expect((await readdir(dir)).sort(), 'the refused run never started').toEqual(['blob-1.bin', 'ran-1']);
    await rm(join(dir, 'blob-1.bin'));
    expect((await runTool(arc, id, 'fill', { n: 3, bytes: MiB })).output).toEqual({ wrote: MiB });
  });

  it('the default quota is 1 GiB, and a sparse file counts at its full length', async () => {
    expect(DEFAULT_TOOL_DATA_QUOTA).toBe(1024 * MiB);
    const arc = h.arc();
    const { id } = await filler(arc);
    const error = await rejectionOf(runTool(arc, id, 'fill', { n: 1, bytes: 1100 * MiB, sparse: true }));
    expect(error).toMatchObject({ code: 'E_LIMIT', details: { quota: DEFAULT_TOOL_DATA_QUOTA } });
    expect(error.message).toContain('over its quota of 1 GiB');
  });
});

describe('toolDataUsage', () => {
  it('sums files in nested folders, 0 for a folder that does not exist', async () => {
    const dir = join(h.root, 'usage');
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    await writeFile(join(dir, 'x'), Buffer.alloc(10_000));
    await writeFile(join(dir, 'a', 'b', 'y'), Buffer.alloc(20_000));
    expect(await toolDataUsage(dir)).toBeGreaterThanOrEqual(30_000);
    expect(await toolDataUsage(join(h.root, 'missing'))).toBe(0);
    expect(formatBytes(1536 * MiB)).toBe('1.5 GiB');
  });
});
