// Kept closed ("a workspace that contains the Arcotheon home exposes its secrets"): whatever
// the workspace and grants expose, the home (SandboxSpec.hiddenDirs) is an empty folder inside the
// sandbox; only the run's own folders in it (the capability, its dependencies, resources and data
// folder) are bound on top. Real bubblewrap runs: a host that passes such a workspace anyway, and
// runTool with an absolute grant on a folder that holds the home; plus the macOS profile text.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import { buildSandboxExecProfile, sbplString } from '../../../sdk/src/sandbox/sandbox-exec.js';
import { nodeTool, RunHome } from '../run/run-fixture.js';
import { makeFixture, parseProbe, runSandboxed, type Fixture } from './sandbox-fixture.js';

const sandbox = new BubblewrapSandbox();
let fx: Fixture;
let arcHome: string;
let secrets: string;

beforeAll(async () => {
  expect(await sandbox.available(), 'bubblewrap must work on this machine for these tests').toBe(true);
  fx = makeFixture();
  arcHome = path.join(fx.home, '.arcotheon');
  secrets = path.join(arcHome, 'secrets.json');
  fs.writeFileSync(secrets, '{"acme/x":{"TOKEN":"hunter2"}}', { mode: 0o600 });
});
afterAll(() => fx.remove());

function probeArgs(workspace: string): string[] {
  const cfg = {
    secret: secrets,
    ownDir: fx.capabilityDir,
    toolData: fx.toolData,
    extraRead: path.join(workspace, 'workspace', 'input.txt'),
  };
  return [path.join(fx.capabilityDir, 'probe.mjs'), JSON.stringify(cfg)];
}

describe('the Arcotheon home inside the sandbox', () => {
  it('a tool with fs:read:workspace cannot read secrets.json when a host passes a workspace holding the home', async () => {
    fs.mkdirSync(fx.toolData, { recursive: true });
    const grants = ['fs:read:workspace', 'storage:data'];
    // Control: without hiddenDirs the workspace exposes the secrets (what the attack read).
    // The user's home is another folder here (it is always hidden), so only hiddenDirs hides this one.
    const user = { home: path.join(fx.root, 'user-home') };
    fs.mkdirSync(user.home, { recursive: true });
    const exposed = parseProbe(await runSandboxed(sandbox, fx.spec(grants, probeArgs(fx.root), { workspace: fx.root, ...user })));
    expect(exposed['readSecret']).toEqual({ ok: true, detail: '{"acme/x":{"TOKEN":"hunter2"}}' });

    const spec = fx.spec(grants, probeArgs(fx.root), { workspace: fx.root, hiddenDirs: [arcHome], ...user });
    const r = parseProbe(await runSandboxed(sandbox, spec));
    expect(r['readSecret']).toEqual({ ok: false, detail: 'ENOENT' });
    // The rest of the workspace, the capability's own folder and its data folder still work.
    expect(r['readExtra']).toEqual({ ok: true, detail: 'workspace input' });
    expect(r['readOwnDir']).toEqual({ ok: true, detail: 'tool file' });
    expect(r['writeToolData']?.ok).toBe(true);
    expect(r['writeOwnDir']?.ok).toBe(false);
  });

  it('runTool hides its home from a tool granted a folder that holds it', async () => {
    const h = await RunHome.create();
    try {
      const arc = h.arc();
      await h.install(
        {
          id: 'acme/wide-reader',
          permissions: [{ id: 'fs:read', scope: h.root, reason: 'reads your project files' }],
          tools: [nodeTool('read', 'read-files.mjs', { permissions: [`fs:read:${h.root}`] })],
          files: { 'tools/read-files.mjs': 'read-files.mjs' },
        },
        arc,
      );
      fs.writeFileSync(path.join(h.home, 'secrets.json'), 'hunter2', { mode: 0o600 });
      fs.writeFileSync(path.join(h.root, 'notes.txt'), 'project notes');
      const own = path.join(h.home, 'packages', 'acme', 'wide-reader', '1.0.0', 'capability.json');
      const result = await runTool(arc, 'acme/wide-reader', 'read', {
        files: {
          secrets: path.join(h.home, 'secrets.json'),
          state: path.join(h.home, 'packages', 'acme', 'wide-reader', 'state.json'),
          notes: path.join(h.root, 'notes.txt'),
          own,
        },
      });
      const r = result.output['results'] as Record<string, string>;
      expect(r['secrets']).toBe('ENOENT');
      expect(r['state']).toBe('ENOENT');
      expect(r['notes']).toBe('project notes');
      expect(r['own']).toBe(fs.readFileSync(own, 'utf8'));
    } finally {
      await h.remove();
    }
  });

  it('the macOS profile denies the home for reading and writing after every allow, then reads the capability again', () => {
    const spec = fx.spec(['fs:read:workspace'], ['probe.mjs'], { workspace: fx.root, hiddenDirs: [arcHome] });
    const p = buildSandboxExecProfile(spec, { home: `${fx.root}/private-home`, tmp: `${fx.root}/private-tmp` });
    const deny = p.indexOf(`(deny file-read* file-write*\n  (subpath ${sbplString(arcHome)}))`);
    const again = p.indexOf(`(allow file-read*\n  (subpath ${sbplString(fx.capabilityDir)})`, deny);
    expect(deny).toBeGreaterThan(p.indexOf(`(subpath ${sbplString(fx.root)})`));
    expect(again).toBeGreaterThan(deny);
  });
});
