// A package installed from one registry was replaced on `adcap update` by a
// same-id package from a newly added registry (another key for the same publisher name), with no
// prompt. An installed capability now updates only from the registry it came from, with that
// registry's keys; moving it is an explicit install from the other remote, shown as a change of
// source in the plan. Checked through the SDK, the `adcap` CLI and the desktop host service.
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { revokeVersion } from '../../../sdk/src/registry/builder/maintain.js';
import { addRemote } from '../../../sdk/src/registry/remotes.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { adcap } from '../cli/run-cli.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const approveAll = (): boolean => true;

let bundled: LifecycleRegistry;
let attacker: LifecycleRegistry;

beforeAll(async () => {
  bundled = await LifecycleRegistry.create();
  attacker = await LifecycleRegistry.create();
  await bundled.publishAll([
    { id: 'acme/lib', version: '1.0.0' },
    { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, tool: true },
  ]);
  // The attacker's registry: the same publisher name "acme" under another key, higher versions.
  await attacker.publishAll([
    { id: 'acme/lib', version: '1.9.0' },
    {
      id: 'acme/app',
      version: '1.0.0',
      dependencies: { 'acme/lib': '^1.0.0' },
      tool: true,
      permissions: [{ id: 'net:connect', reason: 'Phones home.' }],
    },
    { id: 'acme/app', version: '9.0.0', dependencies: { 'acme/lib': '^1.0.0' }, tool: true },
  ]);
  expect(attacker.registry.keyOf('acme').keyId).not.toBe(bundled.registry.keyOf('acme').keyId);
});

/** A home with acme/app installed from the bundled registry, then the attacker's registry added (configured remotes come first). */
async function installedThenAttackerAdded(): Promise<{ home: string; arc: Arcotheon }> {
  const home = await bundled.newHome();
  const options = bundled.options(home);
  await new Arcotheon(options).install('acme/app', { approve: approveAll });
  await addRemote(home, { name: 'attacker', url: attacker.registry.v1Url, rootKeys: [attacker.registry.rootKey.publicKey] });
  return { home, arc: new Arcotheon(options) };
}

describe('update refuses a registry takeover', () => {
  it('SDK: update() and plan-update never pick the same id from another registry', async () => {
    const { arc } = await installedThenAttackerAdded();
    const result = await arc.update(undefined, { approve: approveAll });
    expect(result.plan.items).toEqual([]);
    expect(result.applied).toBe(false);
    for (const id of ['acme/app', 'acme/lib']) {
      const state = await storeOf(arc).state(id);
      expect(state.active).toBe('1.0.0');
      expect(state.versions['1.0.0']?.source).toMatchObject({ kind: 'registry', remote: 'test' });
    }
  });

  it('SDK: a genuine update comes from the installing registry, and new dependencies from it first', async () => {
    const local = await LifecycleRegistry.create();
    await local.publishAll([{ id: 'acme/app', version: '1.0.0', tool: true }]);
    const home = await local.newHome();
    await new Arcotheon(local.options(home)).install('acme/app', { approve: approveAll });
    await addRemote(home, { name: 'attacker', url: attacker.registry.v1Url, rootKeys: [attacker.registry.rootKey.publicKey] });
    await local.publish({ id: 'acme/lib', version: '1.0.0' });
    await local.publish({ id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^1.0.0' }, tool: true });
    await local.registry.build();
    const arc = new Arcotheon(local.options(home));
    const result = await arc.update(undefined, { approve: approveAll });
    expect(result.plan.items.map((i) => `${i.id}@${i.version} from ${i.source.kind === 'registry' ? i.source.remote : 'file'}`)).toEqual([
      'acme/lib@1.0.0 from test',
      'acme/app@1.1.0 from test',
    ]);
  });

  it('CLI: adcap update --yes keeps the installing registry; adcap install attacker:acme/app is shown as a change of source', async () => {
    const { home, arc } = await installedThenAttackerAdded();
    const run = (argv: string[]) => adcap(['--home', home, ...argv], { cwd: home });
    // The CLI's own default remote is the embedded registry; register the bundled one by name too.
    await addRemote(home, { name: 'test', url: bundled.registry.v1Url, rootKeys: [bundled.registry.rootKey.publicKey] });
    const update = await run(['update', '--yes', '--json']);
    expect(update.stderr).toBe('');
    expect(JSON.parse(update.stdout)).toMatchObject({ applied: false, installed: [], plan: { items: [] } });
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');

    // Without --yes and without a terminal the move is refused after printing the plan.
    const asked = await run(['install', 'attacker:acme/app@9.0.0']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('source changes: from registry "test" to registry "attacker"');
    expect(asked.stderr).toMatch(/acme\/app changes source: it now comes from registry "attacker" instead of registry "test"/);
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');
  });

  it('host service: updates.apply leaves the package where it came from', async () => {
    const { arc } = await installedThenAttackerAdded();
    const host = createHostService(arc);
    // updates.apply is a long operation: it answers with an operation id, and its result comes
    // through operations.wait.
    const started = await host.dispatch('updates.apply', [null]);
    expect(started).toMatchObject({ ok: true, value: { operation: expect.any(String) } });
    const result = await host.dispatch('operations.wait', [(started as { value: { operation: string } }).value.operation]);
    // operations.wait answers with the operation's own Result.
    expect(result).toMatchObject({ ok: true, value: { applied: false, installed: [] } });
    await host.close();
    expect((await storeOf(arc).state('acme/app')).versions['1.0.0']?.source).toMatchObject({ remote: 'test' });
  });

  it('an explicit move (InstallRequest.remote) is a plan item with previousSource, approved as usual; updates then follow it', async () => {
    const { arc } = await installedThenAttackerAdded();
    const plan = await arc.plan({ packages: ['acme/app@^9.0.0'], remote: 'attacker' });
    const item = plan.items.find((i) => i.id === 'acme/app');
    expect(item).toMatchObject({
      version: '9.0.0',
      action: 'upgrade',
      source: { kind: 'registry', remote: 'attacker' },
      previousSource: { kind: 'registry', remote: 'test' },
    });
    // The dependency stays with the registry it came from: only what was named moves.
    expect(plan.items.map((i) => i.id)).toEqual(['acme/app']);
    expect(plan.report.lines).toContain('  source changes: from registry "test" to registry "attacker"');
    await arc.install({ packages: ['acme/app@^9.0.0'], remote: 'attacker' }, { approvedDigest: plan.digest });
    const state = await storeOf(arc).state('acme/app');
    expect(state.active).toBe('9.0.0');
    expect(state.versions['9.0.0']?.source).toMatchObject({
      kind: 'registry',
      remote: 'attacker',
      signedBy: [attacker.registry.keyOf('acme').keyId],
    });
    // And the same version from another registry with other contents is refused, not relabelled.
    await expect(arc.plan('test:acme/app@1.0.0')).resolves.toMatchObject({
      items: [expect.objectContaining({ previousSource: { kind: 'registry', remote: 'attacker' } })],
    });
  });

  it('the installing registry also decides what is shown and what is revoked (doctor)', async () => {
    const local = await LifecycleRegistry.create();
    await local.publishAll([{ id: 'acme/app', version: '1.0.0', tool: true }]);
    const home = await local.newHome();
    await new Arcotheon(local.options(home)).install('acme/app', { approve: approveAll });
    await addRemote(home, { name: 'attacker', url: attacker.registry.v1Url, rootKeys: [attacker.registry.rootKey.publicKey] });
    await revokeVersion(local.registry.dir, 'acme/app', '1.0.0', 'malicious');
    await local.registry.build();
    const arc = new Arcotheon(local.options(home));
    await arc.refreshRemotes();
    expect((await arc.packageDoc('acme/app')).remote).toBe('test');
    const report = await arc.doctor();
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'revoked', id: 'acme/app' })]);
  });

  it('refuses to relabel a version on disk as coming from a registry whose package differs', async () => {
    const { arc } = await installedThenAttackerAdded();
    await expect(arc.plan('attacker:acme/app@1.0.0')).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('is a different package'),
    });
    await expect(arc.plan('nowhere:acme/app')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });
});
