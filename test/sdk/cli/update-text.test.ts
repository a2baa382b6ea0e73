// On the command line: `adcap update` never says "up to date" while the
// range an install was pinned to holds it below a newer version; it names that version and the
// command that moves to it. Real registry and CLI.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { revokeVersion } from '../../../sdk/src/registry/builder/maintain.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { adcap } from './run-cli.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };

describe('adcap update', () => {
  it('names the newer version a pinned install is held from, and the command that moves to it', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/app', version: '1.0.0', permissions: [fsRead], tool: true },
    ]);
    const home = join(await reg.newHome(), 'home');
    const run = (...argv: string[]): ReturnType<typeof adcap> =>
      // Not a user's run: no built-in registry, and a temporary home instead of the user's own.
      adcap(argv, { cwd: '/', env: { ARCOTHEON_HOME: home, ARCOTHEON_EMBEDDED_REGISTRY: '' } });
    expect((await run('remote', 'add', 'test', reg.registry.v1Url, '--root-key', reg.registry.rootKey.publicKey)).code).toBe(0);
    expect((await run('install', 'acme/lib@1.0.0', 'acme/app', '--yes')).code).toBe(0);
    expect((await run('update')).stdout).toBe('Everything is up to date.\n');

    await reg.publish({ id: 'acme/lib', version: '2.0.0' });
    await reg.publish({ id: 'acme/app', version: '1.1.0', permissions: [fsRead, netApi], tool: true });
    await reg.registry.build();
    // app 1.1.0 (which would ask for a new permission) is not named, so only lib is looked at.
    const text = await run('update', 'acme/lib');
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(/up to date/);
    expect(text.stdout).toContain(
      'acme/lib stays at 1.0.0 because it was installed as 1.0.0; 2.0.0 is available: "adcap install acme/lib@^2.0.0" moves to it',
    );

    const json = JSON.parse((await run('update', 'acme/lib', '--json')).stdout) as { pinned: unknown[] };
    expect(json.pinned).toEqual([{ id: 'acme/lib', version: '1.0.0', range: '1.0.0', latest: '2.0.0', request: 'acme/lib@^2.0.0' }]);
    expect((await run('install', 'acme/lib@^2.0.0', '--yes')).code).toBe(0);
    expect((await run('list', '--json')).stdout).toContain('"version": "2.0.0"');
  });

  it('adcap list marks a revoked install (its reason in --json), and update goes on around it', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/bad', version: '1.0.0' },
      { id: 'acme/lib', version: '1.0.0' },
    ]);
    const home = join(await reg.newHome(), 'home');
    const run = (...argv: string[]): ReturnType<typeof adcap> =>
      // Not a user's run: no built-in registry, and a temporary home instead of the user's own.
      adcap(argv, { cwd: '/', env: { ARCOTHEON_HOME: home, ARCOTHEON_EMBEDDED_REGISTRY: '' } });
    expect((await run('remote', 'add', 'test', reg.registry.v1Url, '--root-key', reg.registry.rootKey.publicKey)).code).toBe(0);
    expect((await run('install', 'acme/bad@1.0.0', 'acme/lib', '--yes')).code).toBe(0);
    await revokeVersion(reg.registry.dir, 'acme/bad', '1.0.0', 'malicious');
    await reg.publish({ id: 'acme/lib', version: '1.1.0' });
    await reg.registry.build();
    const update = await run('update', '--yes');
    expect(update.stdout).toContain('updated acme/lib to 1.1.0');
    expect((await run('list')).stdout).toContain('acme/bad@1.0.0 [revoked: update or uninstall it]');
    const listed = JSON.parse((await run('list', '--json')).stdout) as Array<{ id: string; revoked?: string }>;
    expect(listed.find((c) => c.id === 'acme/bad')?.revoked).toBe('malicious');
    expect(listed.find((c) => c.id === 'acme/lib')?.revoked).toBeUndefined();
  });
});
