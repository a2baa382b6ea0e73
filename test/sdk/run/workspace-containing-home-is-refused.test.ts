// Kept closed ("a workspace that contains the Arcotheon home exposes its secrets"): with
// `--workspace ~` a tool holding only fs:read:workspace read secrets.json, other capabilities'
// tool data and the audit log. The web UI refused such folders; the CLI, the SDK and `adcap mcp`
// did not. runTool, runWorkflow and mcpServe now refuse a workspace that is the home, contains it
// or lies inside it (real paths, so a link to it too), with E_USAGE, before any tool starts.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWorkspace } from '../../../sdk/src/index.js';
import { mcpServe } from '../../../sdk/src/run/mcp.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { runWorkflow } from '../../../sdk/src/run/workflow.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { adcap } from '../cli/run-cli.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';

const ID = 'acme/ws-reader';
let h: RunHome;
let arc: Arcotheon;
let project: string;
let secrets: string;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install(
    {
      id: ID,
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'reads the files you give it' }],
      tools: [nodeTool('read', 'read-files.mjs', { permissions: ['fs:read:workspace'] })],
      workflows: [{ 'adcap-workflow': '1.0', id: 'ask', steps: [{ id: 'a', agent: 'Summarise the workspace.' }] }],
      files: { 'tools/read-files.mjs': 'read-files.mjs' },
    },
    arc,
  );
  secrets = join(h.home, 'secrets.json');
  await writeFile(secrets, '{"acme/x":{"TOKEN":"hunter2"}}', { mode: 0o600 });
  project = join(h.root, 'project');
  await mkdir(project);
  await writeFile(join(project, 'notes.txt'), 'project notes');
  await symlink(h.root, join(h.root, 'link-to-root'));
});
afterAll(() => h.remove());

describe('a workspace that is, contains or lies in the Arcotheon home', () => {
  it('runTool refuses it with E_USAGE and the tool never reads secrets.json', async () => {
    for (const workspace of [h.root, h.home, join(h.home, 'packages'), join(h.root, 'link-to-root')]) {
      const error = await rejectionOf(runTool(arc, ID, 'read', { files: { secrets } }, { workspace }));
      expect(error, workspace).toMatchObject({ code: 'E_USAGE', details: { home: h.home } });
      expect(error.message).toMatch(/Arcotheon home .*Choose a project folder outside the home as the workspace\./);
    }
    // A project folder beside the home still works.
    const ok = await runTool(arc, ID, 'read', { files: { notes: join(project, 'notes.txt') } }, { workspace: project });
    expect(ok.output['results']).toEqual({ notes: 'project notes' });
  });

  it('runWorkflow refuses it before any step, even with agent steps only', async () => {
    expect(await rejectionOf(runWorkflow(arc, ID, 'ask', {}, { workspace: h.root }))).toMatchObject({ code: 'E_USAGE' });
    expect(await runWorkflow(arc, ID, 'ask', {}, { workspace: project })).toMatchObject({ status: 'agent' });
  });

  it('mcpServe refuses to start with it', async () => {
    expect(await rejectionOf(mcpServe(arc, [ID], { workspace: h.root }))).toMatchObject({ code: 'E_USAGE' });
  });

  it('adcap run, workflow and mcp refuse --workspace ~ when the home is in it', async () => {
    // HOME is the folder holding the Arcotheon home, as with a default home under ~/.local/share.
    const env = { PATH: process.env.PATH, HOME: h.root };
    for (const args of [
      ['run', ID, 'read', '--input', JSON.stringify({ files: { secrets } })],
      ['workflow', ID, 'ask'],
      ['mcp', ID],
    ]) {
      const r = await adcap([...args, '--workspace', h.root, '--home', h.home], { cwd: h.root, env });
      expect(r.code, args[0]).toBe(2); // E_USAGE exits 2
      expect(r.stderr).toMatch(/^error E_USAGE: The workspace .* contains the Arcotheon home/);
      expect(r.stdout).not.toContain('hunter2');
    }
  });

  it('checkWorkspace is exported for hosts: the real path of an allowed folder, E_USAGE or E_IO otherwise', async () => {
    expect(await checkWorkspace(h.home, project)).toBe(project);
    expect(await checkWorkspace(h.home, null)).toBeNull();
    expect(await rejectionOf(checkWorkspace(h.home, join(h.root, 'link-to-root')))).toMatchObject({ code: 'E_USAGE' });
    expect(await rejectionOf(checkWorkspace(h.home, join(h.root, 'missing')))).toMatchObject({ code: 'E_IO' });
  });
});
