// One bad package cannot stall the lifecycle. A revoked installed
// version blocks no unrelated plan, install or update and is reported; an update that needs new
// permissions waits without holding back plain updates of other capabilities; an install pinned to
// a version is told when newer ones exist and how to move. Real registry, packages and installs.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { revokeVersion } from '../../../sdk/src/registry/builder/maintain.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };
const approveAll = (): boolean => true;

describe('a revoked installed version', () => {
  it('blocks no unrelated plan, install or update, and is reported by list, plan and doctor', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/bad', version: '1.0.0' },
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' } },
      { id: 'acme/other', version: '1.0.0' },
    ]);
    const arc = reg.arcotheon(await reg.newHome());
    // Pinned exactly: no other version could ever replace it.
    await arc.install(['acme/bad@1.0.0', 'acme/app'], { approve: approveAll });
    await revokeVersion(reg.registry.dir, 'acme/bad', '1.0.0', 'ships a credential stealer');
    await reg.publish({ id: 'acme/lib', version: '1.1.0' });
    await reg.publish({ id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^1.1.0' } });
    await reg.registry.build();
    await arc.refreshRemotes();

    const plan = await arc.plan('acme/other');
    expect(plan.items.map((i) => `${i.id}@${i.version}`)).toEqual(['acme/other@1.0.0']);
    expect(plan.warnings.join(' ')).toMatch(
      /acme\/bad 1\.0\.0 stays installed but was revoked by its registry \(ships a credential stealer\)/,
    );
    expect((await arc.install('acme/other', { approve: approveAll })).installed).toEqual([{ id: 'acme/other', version: '1.0.0' }]);

    const update = await arc.update();
    expect(update.applied).toBe(true);
    expect(update.installed.map((i) => `${i.id}@${i.version}`).sort()).toEqual(['acme/app@1.1.0', 'acme/lib@1.1.0']);

    const bad = (await arc.list()).find((c) => c.id === 'acme/bad');
    expect(bad).toMatchObject({ version: '1.0.0', revoked: 'ships a credential stealer' });
    expect((await arc.list()).filter((c) => c.revoked !== undefined).map((c) => c.id)).toEqual(['acme/bad']);
    const doctor = await arc.doctor({ checkCache: false });
    expect(doctor.problems.filter((p) => p.kind === 'revoked')).toEqual([
      expect.objectContaining({ id: 'acme/bad', version: '1.0.0', message: expect.stringMatching(/adcap update acme\/bad.*uninstall/) }),
    ]);
    // Offered for removal: uninstalling it works as for any capability.
    expect(await arc.uninstall('acme/bad')).toEqual({ removed: ['acme/bad'] });
  });
});

describe('an installed capability nothing can resolve any more', () => {
  it('is no root of unrelated installs and updates; doctor reports it', async () => {
    const first = await LifecycleRegistry.create();
    await first.publishAll([{ id: 'acme/gone', version: '1.0.0' }]);
    const home = await first.newHome();
    await first.arcotheon(home).install('acme/gone', { approve: approveAll });
    // Its files are damaged, and the host now uses another registry that does not list it.
    const manifest = join(home, 'packages', 'acme', 'gone', '1.0.0', 'capability.json');
    await chmod(manifest, 0o644);
    await writeFile(manifest, '{ damaged');
    const second = await LifecycleRegistry.create();
    await second.publishAll([{ id: 'acme/other', version: '1.0.0' }]);
    const arc = second.arcotheon(home, {
      remotes: [{ name: 'second', url: second.registry.v1Url, rootKeys: [second.registry.rootKey.publicKey] }],
    });
    expect((await arc.install('acme/other', { approve: approveAll })).installed).toEqual([{ id: 'acme/other', version: '1.0.0' }]);
    expect((await arc.update()).plan.items).toEqual([]);
    expect((await arc.doctor({ checkCache: false })).problems.map((p) => `${p.kind} ${p.id ?? ''}`)).toEqual(['damaged-install acme/gone']);
  });
});

describe('update applies what it can', () => {
  it('an update needing new permissions waits; plain updates of other capabilities are applied', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/app', version: '1.0.0', permissions: [fsRead], tool: true },
      { id: 'acme/plain', version: '1.0.0' },
    ]);
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install(['acme/app', 'acme/plain'], { approve: approveAll });
    await reg.publish({ id: 'acme/app', version: '2.0.0', permissions: [fsRead, netApi], tool: true });
    await reg.publish({ id: 'acme/plain', version: '1.1.0' });
    await reg.registry.build();

    const result = await arc.update();
    expect(result).toMatchObject({ applied: true, needsApproval: true, installed: [{ id: 'acme/plain', version: '1.1.0' }] });
    expect(result.waiting).toEqual([{ id: 'acme/app', from: '1.0.0', version: '2.0.0', newPermissions: ['net:connect:api.example.com'] }]);
    // The plan is what is left to approve; its digest is the next update's, so a host that shows
    // it can pass the digest back.
    expect(result.plan.items.map((i) => `${i.id}@${i.version}`)).toEqual(['acme/app@2.0.0']);
    expect(result.plan.newPermissions.map((p) => p.grant)).toEqual(['net:connect:api.example.com']);
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');
    expect((await storeOf(arc).state('acme/plain')).active).toBe('1.1.0');

    const approved = await arc.update(undefined, { approvedDigest: result.plan.digest });
    expect(approved).toMatchObject({ applied: true, needsApproval: true, waiting: [] });
    expect((await storeOf(arc).state('acme/app')).active).toBe('2.0.0');
    expect((await storeOf(arc).state('acme/app')).grants).toEqual(['fs:read:workspace', 'net:connect:api.example.com']);
  });

  it('holds back a capability whose new version depends on one that waits', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' } },
      { id: 'acme/plain', version: '1.0.0' },
    ]);
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install(['acme/app', 'acme/plain'], { approve: approveAll });
    // lib 2.0.0 asks for a new permission; app 1.1.0 needs it; plain moves on its own.
    await reg.publish({ id: 'acme/lib', version: '2.0.0', permissions: [netApi] });
    await reg.publish({ id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^2.0.0' } });
    await reg.publish({ id: 'acme/plain', version: '1.1.0' });
    await reg.registry.build();

    const result = await arc.update();
    expect(result.installed).toEqual([{ id: 'acme/plain', version: '1.1.0' }]);
    expect(result.waiting.map((w) => `${w.id}@${w.version}:${w.newPermissions.join(',')}`).sort()).toEqual([
      'acme/app@1.1.0:',
      'acme/lib@2.0.0:net:connect:api.example.com',
    ]);
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.0.0');
  });
});

describe('an install pinned to an exact version', () => {
  it('is not "up to date" when newer versions exist: the result names the newest and the request that moves to it', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([{ id: 'acme/lib', version: '1.0.0' }]);
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    expect((await arc.update()).pinned).toEqual([]);
    await reg.publish({ id: 'acme/lib', version: '1.1.0' });
    await reg.publish({ id: 'acme/lib', version: '2.0.0' });
    await reg.registry.build();
    const result = await arc.update();
    expect(result.plan.items).toEqual([]);
    expect(result.pinned).toEqual([{ id: 'acme/lib', version: '1.0.0', range: '1.0.0', latest: '2.0.0', request: 'acme/lib@^2.0.0' }]);
    await arc.install(result.pinned[0]?.request as string, { approve: approveAll });
    expect((await storeOf(arc).state('acme/lib')).active).toBe('2.0.0');
    expect((await arc.update()).pinned).toEqual([]);
  });
});
