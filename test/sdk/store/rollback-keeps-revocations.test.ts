// After `grants --revoke` and `rollback`, the revoked grant came back. Rollback
// now restores the old version's grants minus what the user revoked since; anything more is asked
// for (spec §6), and granting again ends the revocation.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { adcap } from '../cli/run-cli.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const fsWrite = { id: 'fs:write' as const, scope: 'workspace', reason: 'Writes its results.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };
const approveAll = (): boolean => true;

let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/app', version: '1.0.0', permissions: [fsRead, fsWrite], tool: true },
    { id: 'acme/app', version: '2.0.0', permissions: [fsRead, fsWrite, netApi], tool: true },
  ]);
});

describe("rollback keeps the user's revocations", () => {
  it('a grant revoked on the new version stays revoked after rolling back to a version that had it', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/app@1.0.0', { approve: approveAll });
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    await arc.revokeGrant('acme/app', 'fs:write:workspace');
    const onDisk = JSON.parse(await readFile(join(home, 'packages', 'acme', 'app', 'state.json'), 'utf8')) as { revoked?: string[] };
    expect(onDisk.revoked).toEqual(['fs:write:workspace']);

    expect(await arc.rollback('acme/app')).toEqual({ id: 'acme/app', from: '2.0.0', to: '1.0.0' });
    const state = await storeOf(arc).state('acme/app');
    expect(state.active).toBe('1.0.0');
    expect(state.grants).toEqual(['fs:read:workspace']);
    // Forward again: 2.0.0's grants minus the revocation, never more.
    await arc.rollback('acme/app');
    expect((await storeOf(arc).state('acme/app')).grants).toEqual(['fs:read:workspace', 'net:connect:api.example.com']);
  });

  it('granting again ends the revocation, and an approved plan that lists the permission grants it again', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@1.0.0', { approve: approveAll });
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    await arc.revokeGrant('acme/app', 'fs:write:workspace');
    await arc.grant('acme/app', 'fs:write:workspace');
    expect((await storeOf(arc).state('acme/app')).revoked).toBeUndefined();
    await arc.rollback('acme/app');
    expect((await storeOf(arc).state('acme/app')).grants).toEqual(['fs:read:workspace', 'fs:write:workspace']);

    // Revoked on 1.0.0, then 2.0.0 asks for it again and the user approves that plan.
    await arc.revokeGrant('acme/app', 'fs:write:workspace');
    const plan = await arc.plan('acme/app@2.0.0');
    expect(plan.newPermissions.map((p) => p.grant)).toContain('fs:write:workspace');
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    expect((await storeOf(arc).state('acme/app')).revoked).toBeUndefined();
  });

  it('through the CLI: adcap grants --revoke, then adcap rollback, leaves the grant withdrawn', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/app@1.0.0', { approve: approveAll });
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    const run = (argv: string[]) => adcap(['--home', home, ...argv], { cwd: home });
    const add = await run(['remote', 'add', 'test', reg.registry.v1Url, '--root-key', reg.registry.rootKey.publicKey]);
    expect(add.stderr).toBe('');
    expect((await run(['grants', 'acme/app', '--revoke', 'fs:write:workspace'])).code).toBe(0);
    const back = await run(['rollback', 'acme/app']);
    expect(back.code).toBe(0);
    const list = JSON.parse((await run(['list', '--json'])).stdout) as Array<{ id: string; version: string; grants: string[] }>;
    expect(list).toEqual([expect.objectContaining({ id: 'acme/app', version: '1.0.0', grants: ['fs:read:workspace'] })]);
  });
});
