import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Workspace folders for runs: never a path invented by page script. The user types a
 * folder and confirms it; the host checks it (absolute, exists, a directory after resolving
 * links, not inside or around the Arcotheon home) and hands back a handle; runs take only handles.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/echo', version: '1.0.0', permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads your files.' }], tool: true },
  ]);
});

async function setup() {
  const root = await mkdtemp(join(tmpdir(), 'adcap-ws-rules-'));
  const home = join(root, 'home');
  await mkdir(home);
  const user = join(root, 'user');
  await mkdir(user);
  const host = createHostService(new Arcotheon(reg.options(home)), { userHome: user });
  return { root, home, user, client: host.api };
}

describe('workspace handles', () => {
  it('confirms an existing folder by its real path, once', async () => {
    const { root, client } = await setup();
    const folder = join(root, 'project');
    await mkdir(folder);
    await symlink(folder, join(root, 'link-to-project'));
    const first = await client.workspaces.confirm(folder);
    expect(first).toMatchObject({
      ok: true,
      value: { path: folder, name: 'project', handle: expect.stringMatching(/^ws_[A-Za-z0-9_-]{24}$/) },
    });
    // Through a link: the same real folder, the same handle.
    expect(await client.workspaces.confirm(join(root, 'link-to-project'))).toEqual(first);
    expect(await client.workspaces.list()).toEqual({ ok: true, value: [first.ok ? first.value : null] });
  });

  it('refuses relative paths, missing folders, files, the filesystem root, and anything in or around the home', async () => {
    const { root, home, client } = await setup();
    await writeFile(join(root, 'file.txt'), 'x');
    await mkdir(join(home, 'packages'), { recursive: true });
    await symlink(join(home, 'packages'), join(root, 'sneaky'));
    const refusals: Array<[string, string]> = [
      ['project', 'E_USAGE'],
      ['./project', 'E_USAGE'],
      [join(root, 'missing'), 'E_NOT_FOUND'],
      [join(root, 'file.txt'), 'E_USAGE'],
      ['/', 'E_USAGE'],
      [home, 'E_USAGE'],
      [join(home, 'packages'), 'E_USAGE'],
      [join(root, 'sneaky'), 'E_USAGE'],
      [root, 'E_USAGE'],
    ];
    for (const [path, code] of refusals) expect(await client.workspaces.confirm(path), path).toMatchObject({ ok: false, error: { code } });
    expect(await client.workspaces.list()).toEqual({ ok: true, value: [] });
  });

  it("refuses the user's whole home folder and the credential folders in it", async () => {
    const { user, client } = await setup();
    await mkdir(join(user, '.ssh', 'keys'), { recursive: true });
    await mkdir(join(user, '.config', 'gcloud'), { recursive: true });
    await mkdir(join(user, 'projects', 'site'), { recursive: true });
    expect(await client.workspaces.confirm(user)).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringMatching(/whole home folder/) },
    });
    for (const path of [join(user, '.ssh'), join(user, '.ssh', 'keys'), join(user, '.config', 'gcloud')]) {
      expect(await client.workspaces.confirm(path), path).toMatchObject({
        ok: false,
        error: { code: 'E_USAGE', message: expect.stringMatching(/credentials and keys/) },
      });
    }
    expect(await client.workspaces.confirm(join(user, 'projects', 'site'))).toMatchObject({ ok: true, value: { name: 'site' } });
  });

  it('runs take handles only: a path, an unknown handle or a folder gone since are refused', async () => {
    const { root, client } = await setup();
    const plan = await client.installs.plan('acme/echo');
    if (!plan.ok) throw new Error(plan.error.message);
    await client.perform('installs.install', 'acme/echo', { approvedDigest: plan.value.digest });
    const folder = join(root, 'project');
    await mkdir(folder);
    const confirmed = await client.workspaces.confirm(folder);
    if (!confirmed.ok) throw new Error(confirmed.error.message);

    expect(await client.perform('run.tool', 'acme/echo', 'main', { a: 1 }, { workspace: confirmed.value.handle })).toMatchObject({
      ok: true,
      value: { output: { a: 1 } },
    });
    // A path where a handle belongs never reaches the SDK.
    const withPath = await (client.call as (m: string, ...a: unknown[]) => Promise<unknown>)(
      'run.tool',
      'acme/echo',
      'main',
      {},
      { workspace: folder },
    );
    expect(withPath).toMatchObject({ ok: false, error: { code: 'E_USAGE', message: expect.stringMatching(/workspace handle/) } });
    expect(await client.perform('run.tool', 'acme/echo', 'main', {}, { workspace: 'ws_AAAAAAAAAAAAAAAAAAAAAAAA' })).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE' },
    });
    await rm(folder, { recursive: true });
    expect(await client.perform('run.tool', 'acme/echo', 'main', {}, { workspace: confirmed.value.handle })).toMatchObject({
      ok: false,
      error: { code: 'E_NOT_FOUND', message: expect.stringMatching(/changed since it was chosen/) },
    });
    expect(await client.workspaces.forget(confirmed.value.handle)).toEqual({ ok: true, value: null });
    expect(await client.workspaces.forget(confirmed.value.handle)).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });
});
