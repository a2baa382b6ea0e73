// Kept closed ("a symlink planted in tooldata/ led outside"): the tool data folder was
// created with mkdir -p and bound as it was, following any link on the way. A link anywhere
// below tooldata/ now refuses the run (E_IO) before anything is created or bound, and a tool
// with a writable grant around the home cannot plant one.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, RunHome, rejectionOf } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const ID = 'acme/keeper';
let h: RunHome;
let arc: Arcotheon;
let outside: string;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  outside = join(h.root, 'outside');
  mkdirSync(outside);
  const data = { id: 'storage:data' as const, reason: 'keeps data' };
  const write = { id: 'fs:write' as const, scope: h.root, reason: 'writes next to the home' };
  await h.install(
    {
      id: ID,
      permissions: [data, write],
      tools: [
        nodeTool('keep', 'home-attack.mjs', { permissions: ['storage:data'] }),
        nodeTool('other', 'home-attack.mjs', { permissions: ['storage:data'] }),
        nodeTool('planter', 'home-attack.mjs', { permissions: [`fs:write:${h.root}`] }),
      ],
      files: { 'tools/home-attack.mjs': 'home-attack.mjs' },
    },
    arc,
  );
});
afterAll(() => h.remove());

describe('links inside tooldata/', () => {
  it('cannot be planted by a tool with fs:write around the home', async () => {
    const link = join(storeOf(arc).home.root, 'tooldata', 'acme', 'keeper', 'planted');
    const result = await runTool(arc, ID, 'planter', { links: { plant: [outside, link] } });
    expect(['EROFS', 'ENOENT']).toContain((result.output['results'] as Record<string, string>)['plant']);
    expect(existsSync(link)).toBe(false);
  });

  it("refuse the run when the tool's data folder is a link, and nothing is written outside", async () => {
    mkdirSync(join(storeOf(arc).home.root, 'tooldata', 'acme', 'keeper'), { recursive: true });
    symlinkSync(outside, storeOf(arc).home.toolDataDir(ID, 'keep'));
    const error = await rejectionOf(runTool(arc, ID, 'keep', {}));
    expect(error.code).toBe('E_IO');
    expect(error.message).toContain('symbolic link');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuse the run when a folder above it is a link, before creating anything through it', async () => {
    const home2 = await RunHome.create();
    try {
      const arc2 = home2.arc();
      await home2.install(
        {
          id: ID,
          permissions: [{ id: 'storage:data', reason: 'keeps data' }],
          tools: [nodeTool('other', 'home-attack.mjs', { permissions: ['storage:data'] })],
          files: { 'tools/home-attack.mjs': 'home-attack.mjs' },
        },
        arc2,
      );
      mkdirSync(join(storeOf(arc2).home.root, 'tooldata'), { recursive: true });
      symlinkSync(outside, join(storeOf(arc2).home.root, 'tooldata', 'acme'));
      const error = await rejectionOf(runTool(arc2, ID, 'other', {}));
      expect(error.code).toBe('E_IO');
      expect(readdirSync(outside)).toEqual([]); // mkdir -p through the link would have made keeper/other here
    } finally {
      await home2.remove();
    }
  });

  it('control: without links the tool writes its own data folder', async () => {
    const result = await runTool(arc, ID, 'other', {});
    expect((result.output['results'] as Record<string, string>)['writeOwnData']).toBe('ok');
    expect(result.output['toolDataDir']).toBe(join(storeOf(arc).home.root, 'tooldata', 'acme', 'keeper', 'other'));
  });
});
