/**
 * The capability page shows how much each storage:data tool keeps against its quota (SECURITY.md
 * "Tool data quota"): `arcotheon ui` on a home where a capability with such a tool is installed from
 * a signed test registry, Chromium on the capability page. The size on the screen follows the
 * folder on disk.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, startUi, type UiProcess } from './helpers/app.js';
import { manifest, nodeTool, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let ui: UiProcess;
let home: string;

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish({
    manifest: manifest('acme/keeper', '1.0.0', {
      name: 'Index keeper',
      summary: 'Keeps an index of your notes.',
      permissions: [{ id: 'storage:data', reason: 'Keeps its index between runs.' }],
      tools: [
        {
          name: 'index',
          description: 'Updates the index.',
          runtime: { type: 'node', entry: 'tools/main.mjs' },
          inputSchema: { type: 'object' },
          permissions: ['storage:data'],
        },
      ],
    }),
    files: { 'tools/main.mjs': nodeTool('{ ok: true }') },
  });
  home = await reg.newHome();
  await reg.adcapJson(home, ['install', 'acme/keeper', '--yes']);
  const data = join(home, 'tooldata', 'acme', 'keeper', 'index');
  await mkdir(data, { recursive: true });
  await writeFile(join(data, 'index.bin'), Buffer.alloc(3 * 1024 * 1024, 1));
  ui = await startUi(home, reg.env);
}, 120_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

describe('the capability page', () => {
  it("shows the tool's data size against its quota", async () => {
    const app = await openApp(ui);
    try {
      const page = app.page;
      await page.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/capability/acme/keeper'));
      await page.getByRole('heading', { name: 'Tool data' }).waitFor();
      const line = page.getByText(/keeps .* of its .* limit/);
      await expect(line.textContent()).resolves.toMatch(/^index keeps 3\.0 MiB of its 1\.0 GiB limit$/);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
