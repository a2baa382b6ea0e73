import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LifecycleRegistry } from '../test/helpers/lifecycle-registry.js';

/**
 * The install lifecycle through the BUILT `adcap` bin, as real child processes (the whole
 * cycle works from the CLI): remote add, install (plan, refusal without --yes, approval),
 * list, grants, update, rollback, uninstall, doctor, cache gc.
 */
const bin = join(import.meta.dirname, '..', 'sdk', 'dist', 'cli', 'bin.js');

function adcap(home: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, '--home', home, ...args], {
    encoding: 'utf8',
    // Not a user's run: no built-in registry, so the test's own (or none) is the only one.
    env: { ...process.env, ARCOTHEON_EMBEDDED_REGISTRY: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T>(home: string, ...args: string[]): T {
  const r = adcap(home, ...args, '--json');
  if (r.code !== 0) throw new Error(`adcap ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads your files.' };
const net = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up.' };
let reg: LifecycleRegistry;
let home: string;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/lib', version: '1.0.0' },
    { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead], tool: true },
  ]);
  home = await mkdtemp(join(tmpdir(), 'adcap-e2e-home-'));
  const added = adcap(home, 'remote', 'add', 'test', reg.registry.v1Url, '--root-key', reg.registry.rootKey.publicKey);
  expect(added.code, added.stderr).toBe(0);
});

describe('adcap lifecycle (built CLI)', () => {
  it('prints the plan and refuses to install without --yes when there is no terminal', () => {
    const r = adcap(home, 'install', 'acme/app');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Install acme\/app 1\.0\.0/);
    expect(r.stderr).toMatch(/new permission: Read files in the folder you choose/);
    expect(r.stderr).toMatch(/^error E_DENIED: /m);
    expect(json<unknown[]>(home, 'list')).toEqual([]);
  });

  it('installs with --yes, lists, and shows grants', () => {
    const installed = json<{ installed: Array<{ id: string; version: string }> }>(home, 'install', 'acme/app', '--yes');
    expect(installed.installed).toEqual([
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/app', version: '1.0.0' },
    ]);
    expect(
      json<Array<{ id: string; version: string; status: string; grants: string[] }>>(home, 'list').map((c) => [
        c.id,
        c.version,
        c.status,
        c.grants,
      ]),
    ).toEqual([
      ['acme/app', '1.0.0', 'ok', ['fs:read:workspace']],
      ['acme/lib', '1.0.0', 'ok', []],
    ]);
    const grants = adcap(home, 'grants', 'acme/app');
    expect(grants.stdout).toMatch(/\[x\] Read files in the folder you choose/);
  });

  it('holds back an update that needs a new permission until approved, then rolls back', async () => {
    await reg.publish({ id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead, net], tool: true });
    await reg.registry.build();
    const held = adcap(home, 'update');
    expect(held.code).toBe(1);
    expect(held.stderr).toMatch(/new permission: Connect to api\.example\.com/);
    expect(json<Array<{ version: string }>>(home, 'list')[0]?.version).toBe('1.0.0');
    const done = json<{ applied: boolean }>(home, 'update', '--yes');
    expect(done.applied).toBe(true);
    expect(json<Array<{ id: string; version: string; grants: string[] }>>(home, 'list')[0]).toMatchObject({
      version: '1.1.0',
      grants: ['fs:read:workspace', 'net:connect:api.example.com'],
    });
    expect(json<{ from: string; to: string }>(home, 'rollback', 'acme/app')).toEqual({ id: 'acme/app', from: '1.1.0', to: '1.0.0' });
    expect(json<Array<{ grants: string[] }>>(home, 'list')[0]?.grants).toEqual(['fs:read:workspace']);
  });

  it('revokes a grant from the command line', () => {
    const r = json<{ granted: string[] }>(home, 'grants', 'acme/app', '--revoke', 'fs:read:workspace');
    expect(r.granted).toEqual([]);
  });

  it('doctor finds a damaged install (exit 1) and --fix repairs it (exit 0)', async () => {
    const readme = join(home, 'packages', 'acme', 'lib', '1.0.0', 'README.md');
    await chmod(readme, 0o644);
    await writeFile(readme, 'damaged');
    const found = adcap(home, 'doctor');
    expect(found.code).toBe(1);
    expect(found.stdout).toMatch(/README\.md was changed after installation/);
    const fixed = adcap(home, 'doctor', '--fix');
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(adcap(home, 'doctor').code).toBe(0);
  });

  it('refuses to uninstall a dependency, then uninstalls with its orphans, and cache gc frees the blobs', () => {
    const refused = adcap(home, 'uninstall', 'acme/lib');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error E_DEPENDENTS: acme\/lib is needed by acme\/app/m);
    expect(json<{ removed: string[] }>(home, 'uninstall', 'acme/app').removed).toEqual(['acme/app', 'acme/lib']);
    const gc = json<{ removed: string[]; kept: number }>(home, 'cache', 'gc');
    expect(gc.kept).toBe(0);
    expect(gc.removed.length).toBeGreaterThanOrEqual(3);
  });
});
