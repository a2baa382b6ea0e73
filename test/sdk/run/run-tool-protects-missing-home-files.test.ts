// Kept closed ("missing files (a fresh home has no config.json) were created by a tool"):
// only existing parts of the home were bound read-only, so a writable grant on the home's parent
// could create config.json, remotes/ or journal/ entries. The whole home is protected now, so
// nothing can be created in it; the tool's own data folder stays writable with storage:data.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { planBubblewrap } from '../../../sdk/src/sandbox/bubblewrap.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const ID = 'acme/creator';
let h: RunHome;
let arc: Arcotheon;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  const write = { id: 'fs:write' as const, scope: h.root, reason: 'writes next to the home' };
  await h.install(
    {
      id: ID,
      permissions: [write, { id: 'storage:data', reason: 'keeps data' }],
      tools: [nodeTool('attack', 'home-attack.mjs', { permissions: [`fs:write:${h.root}`, 'storage:data'] })],
      files: { 'tools/home-attack.mjs': 'home-attack.mjs' },
    },
    arc,
  );
  // A fresh home: none of these exist yet.
  for (const p of [storeOf(arc).home.config, join(storeOf(arc).home.root, 'remotes'), storeOf(arc).home.journalDir])
    rmSync(p, { recursive: true, force: true });
});
afterAll(() => h.remove());

describe('paths of the home that do not exist yet', () => {
  it("cannot be created by a tool with fs:write on the home's parent", async () => {
    const targets = {
      config: storeOf(arc).home.config,
      remote: join(storeOf(arc).home.root, 'remotes', 'evil', 'catalog.json'),
      journal: join(storeOf(arc).home.journalDir, 'op.json'),
      newTopLevel: join(storeOf(arc).home.root, 'unexpected.json'),
    };
    const result = await runTool(arc, ID, 'attack', { writes: { ...targets, granted: join(h.root, 'beside-home.txt') } });
    const r = result.output['results'] as Record<string, string>;
    expect(r['granted']).toBe('ok');
    for (const [name, file] of Object.entries(targets)) {
      expect(['EROFS', 'ENOENT'], name).toContain(r[name]); // ENOENT: mkdir -p of a missing folder on the read-only mount
      expect(existsSync(file), file).toBe(false);
    }
    // storage:data: the tool's own folder in the protected home is still writable.
    expect(r['writeOwnData']).toBe('ok');
  });
});

describe('any protected path a host names that does not exist yet', () => {
  it('is protected through its nearest existing folder, mounted read-only over the writable grant', () => {
    const out = join(h.root, 'out');
    mkdirSync(join(out, 'settings'), { recursive: true });
    const missing = join(out, 'settings', 'not-yet', 'config.json');
    const runDir = mkdtempSync(join(h.root, 'plan-'));
    const plan = planBubblewrap(
      {
        command: process.execPath,
        args: [],
        env: {},
        grants: [`fs:write:${out}`],
        capabilityDir: storeOf(arc).home.versionDir(ID, '1.0.0'),
        dependencyDirs: [],
        readOnlyFiles: [],
        workspace: null,
        toolDataDir: null,
        tmpDir: runDir,
        home: join(h.root, 'userhome'),
        protectedDirs: [missing],
      },
      {},
    );
    const o = plan.options.join(' ');
    const rw = o.indexOf(`--bind-try ${out} ${out}`);
    const ro = o.indexOf(`--ro-bind-try ${join(out, 'settings')} ${join(out, 'settings')}`);
    expect(rw).toBeGreaterThan(0);
    expect(ro).toBeGreaterThan(rw);
  });
});
