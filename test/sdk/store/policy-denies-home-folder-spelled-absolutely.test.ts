// Kept closed ("deniedPermissions: ["fs:read:~/"] misses the same folder spelled absolutely"):
// `fs:read:/home/alice/.ssh` installed under that policy and its tool read the key. Policy
// patterns, grants and doctor now compare the folders the scopes name, resolved on both sides
// (home expanded, links followed). Real policy file, real sideloaded packages, real runs.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCovers } from '../../../sdk/src/permissions/index.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import type { Policy } from '../../../sdk/src/store/policy.js';
import { nodeTool, rejectionOf, RunHome } from '../run/run-fixture.js';

let h: RunHome;
let alice: string;
let alias: string;
const savedHome = process.env.HOME;

beforeAll(async () => {
  h = await RunHome.create();
  // `~` in scopes and patterns is the user's home (os.homedir(), which reads HOME): this file's
  // runs get a home of their own holding a key, where a user's run has their real home.
  alice = join(h.root, 'alice');
  await mkdir(join(alice, '.ssh'), { recursive: true });
  await writeFile(join(alice, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
  process.env.HOME = alice;
  alias = join(h.root, 'alias');
  await symlink(alice, alias);
  await mkdir(join(h.root, 'data'));
});
afterAll(async () => {
  process.env.HOME = savedHome;
  await h.remove();
});

let count = 0;
async function managed(policy: Policy | null): Promise<{ arc: Arcotheon; set: (p: Policy) => Promise<void> }> {
  const file = join(h.root, `policy-${++count}.json`);
  const set = (p: Policy): Promise<void> => writeFile(file, JSON.stringify(p));
  if (policy !== null) await set(policy);
  // The policy file this test writes, named as a host names its own (ARCOTHEON_POLICY); a user's
  // run reads the system location.
  const env = policy === null ? {} : { ARCOTHEON_POLICY: file };
  const home = join(h.root, `home-${count}`);
  await mkdir(home);
  return { arc: h.arc({ home, policy: { env, systemPath: join(h.root, 'no-system-policy.json') } }), set };
}

function keyReader(id: string, scope: string): Parameters<RunHome['install']>[0] {
  return {
    id,
    permissions: [{ id: 'fs:read', scope, reason: 'reads your keys' }],
    tools: [nodeTool('read', 'read-files.mjs', { permissions: [`fs:read:${scope}`] })],
    files: { 'tools/read-files.mjs': 'read-files.mjs' },
  };
}

describe('deniedPermissions compares the folders scopes name', () => {
  it('fs:read:~/ refuses an install of fs:read:<home>/.ssh spelled absolutely', async () => {
    const { arc } = await managed({ policy: 1, deniedPermissions: ['fs:read:~/'] });
    const error = await rejectionOf(h.install(keyReader('acme/keys', `${alice}/.ssh`), arc));
    expect(error).toMatchObject({ code: 'E_POLICY', details: { rule: 'deniedPermissions', pattern: 'fs:read:~/' } });
    expect(await arc.list()).toEqual([]);
    // A folder outside the home still installs.
    await h.install(keyReader('acme/data', join(h.root, 'data')), arc);
    expect((await arc.list()).map((c) => c.id)).toEqual(['acme/data']);
  });

  it('fs:read:~/.ssh refuses the same folder reached through a link', async () => {
    const { arc } = await managed({ policy: 1, deniedPermissions: ['fs:read:~/.ssh'] });
    const error = await rejectionOf(h.install(keyReader('acme/keys', `${alias}/.ssh`), arc));
    expect(error).toMatchObject({ code: 'E_POLICY', details: { pattern: 'fs:read:~/.ssh', grant: `fs:read:${alias}/.ssh` } });
  });

  it('a grant given before the policy: the run is refused and doctor reports it', async () => {
    const { arc, set } = await managed({ policy: 1 });
    await h.install(keyReader('acme/keys', `${alias}/.ssh`), arc);
    const file = join(alias, '.ssh', 'id_ed25519');
    // Control: the grant works, and exposes the key.
    expect((await runTool(arc, 'acme/keys', 'read', { files: { key: file } })).output['results']).toEqual({ key: 'PRIVATE KEY' });
    await set({ policy: 1, deniedPermissions: ['fs:read:~/.ssh'] });
    expect(await rejectionOf(runTool(arc, 'acme/keys', 'read', { files: { key: file } }))).toMatchObject({ code: 'E_POLICY' });
    const { problems } = await arc.doctor({ checkCache: false });
    expect(problems).toContainEqual(expect.objectContaining({ kind: 'policy', id: 'acme/keys' }));
  });

  it('grants cover by folder: one spelling of a folder covers the others, a link into another folder does not', async () => {
    expect(grantCovers('fs:read:~/.ssh', `fs:read:${alice}/.ssh`)).toBe(true);
    expect(grantCovers(`fs:read:${alias}`, 'fs:read:~/.ssh/id_ed25519')).toBe(true);
    expect(grantCovers('fs:read:~/.ssh', `fs:read:${h.root}/data`)).toBe(false);
    await symlink(join(h.root, 'data'), join(alice, 'data-link'));
    expect(grantCovers(`fs:read:${alice}`, 'fs:read:~/data-link')).toBe(false);
  });
});
