// The capability page shows how much each tool keeps in its storage:data folder against the quota
// (SECURITY.md "Tool data quota"): installs.detail carries it, measured on disk by the host.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { nodeTool, RunHome } from '../../sdk/run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
beforeAll(async () => {
  h = await RunHome.create();
});
afterAll(() => h.remove());

describe('installs.detail: tool data', () => {
  it('lists each storage:data tool with the bytes it keeps and the quota', async () => {
    const arc = h.arc({ limits: { toolDataBytes: 5_000_000 } });
    await h.install(
      {
        id: 'acme/keeper',
        permissions: [{ id: 'storage:data', reason: 'Keeps an index.' }],
        tools: [nodeTool('index', 'echo.mjs', { permissions: ['storage:data'] }), nodeTool('plain', 'echo.mjs')],
        files: { 'tools/echo.mjs': 'echo.mjs' },
      },
      arc,
    );
    const host = createHostService(arc);
    const before = await host.api.installs.detail('acme/keeper');
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.toolData).toEqual([{ tool: 'index', bytes: 0, quota: 5_000_000 }]);

    const dir = storeOf(arc).home.toolDataDir('acme/keeper', 'index');
    await mkdir(join(dir, 'db'), { recursive: true });
    await writeFile(join(dir, 'db', 'index.bin'), Buffer.alloc(300_000, 7));
    const after = await host.api.installs.detail('acme/keeper');
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.toolData).toHaveLength(1);
    expect(after.value.toolData[0]!.bytes).toBeGreaterThanOrEqual(300_000);
    expect(after.value.toolData[0]!.bytes).toBeLessThan(400_000);
  });
});
