// The organisation policy on the command line, in-process: `adcap disable/enable`, `adcap policy [apply]`, the
// list marks, and each policy rule refusing with E_POLICY and the rule named, with a real policy
// file in a temporary folder (ARCOTHEON_POLICY) that lists the test registry as its only remote.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapability, LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { adcap, type CliRun } from './run-cli.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };

let reg: LifecycleRegistry;
let work: string;
let policyPath: string;
let count = 0;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-policy-'));
  policyPath = join(work, 'policy.json');
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/app', version: '1.0.0', permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '2.0.0', permissions: [fsRead, netApi], tool: true },
    { id: 'acme/other', version: '1.0.0' },
  ]);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function policy(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    policy: 1,
    organisation: 'Acme IT',
    remotes: [{ name: 'corp', url: reg.registry.v1Url, rootKeys: [reg.registry.rootKey.publicKey] }],
    ...extra,
  };
}

/** A fresh home and a runner for it, under the policy file (rewritten by `setPolicy`). */
async function session(
  initial: Record<string, unknown> | string,
): Promise<{ run: (argv: string[]) => Promise<CliRun>; setPolicy: (p: Record<string, unknown> | string) => Promise<void> }> {
  const path = join(work, `policy-${++count}.json`);
  const setPolicy = (p: Record<string, unknown> | string): Promise<void> => writeFile(path, typeof p === 'string' ? p : JSON.stringify(p));
  await setPolicy(initial);
  const home = join(work, `home-${count}`);
  const run = (argv: string[]): Promise<CliRun> =>
    adcap([...argv, '--home', home], {
      cwd: work,
      // Not a user's run: the policy under test, and no built-in registry, so the test's own (or none) is the only one.
      env: { ARCOTHEON_EMBEDDED_REGISTRY: '', ARCOTHEON_POLICY: path, PATH: process.env.PATH },
    });
  return { run, setPolicy };
}

function ok(r: CliRun): string {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}

describe('adcap policy', () => {
  it('prints the policy in force and where it came from, as text and as JSON', async () => {
    await writeFile(policyPath, JSON.stringify(policy({ deniedPermissions: ['process:exec'], sideload: false })));
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const env = { ARCOTHEON_POLICY: policyPath };
    const text = ok(await adcap(['policy'], { cwd: work, env }));
    expect(text).toContain(`Managed by Acme IT: policy ${policyPath} (ARCOTHEON_POLICY)`);
    expect(text).toContain('installing from a file: not allowed');
    expect(text).toContain('permissions never granted: process:exec');
    expect(text).toContain(`registries: corp (${reg.registry.v1Url})`);
    const json = JSON.parse(ok(await adcap(['policy', '--json'], { cwd: work, env }))) as Record<string, unknown>;
    expect(json).toMatchObject({ path: policyPath, source: 'environment', policy: { organisation: 'Acme IT', sideload: false } });
  });

  it('says when no policy is in force, and names an invalid one with E_POLICY', async () => {
    const none = await adcap(['policy'], { cwd: work, env: {} });
    // This machine has no /etc/arcotheon/policy.json; the command says so and where it looked.
    expect(ok(none)).toContain('No organisation policy is in force.');
    await writeFile(join(work, 'bad.json'), '{"policy": 1, "sideloading": false}');
    const bad = await adcap(['policy'], { cwd: work, env: { ARCOTHEON_POLICY: join(work, 'bad.json') } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/E_POLICY/);
    expect(bad.stderr).toMatch(/does not match the policy schema/);
  });
});

describe('adcap disable and enable', () => {
  it('switches a capability off and on; list marks it and run refuses it naming "adcap enable"', async () => {
    const { run } = await session(policy());
    ok(await run(['install', 'acme/app@1.0.0', '--yes']));
    expect(ok(await run(['disable', 'acme/app']))).toMatch(/^disabled acme\/app; its files, versions and grants are kept/);
    expect(ok(await run(['list']))).toMatch(/acme\/app@1\.0\.0 \[disabled\] {2}grants: fs:read:workspace/);
    const listed = JSON.parse(ok(await run(['list', '--json']))) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ id: 'acme/app', disabled: { by: 'user' }, managed: null });
    const refused = await run(['run', 'acme/app', 'main', '--input', '{}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/E_DISABLED/);
    expect(refused.stderr).toMatch(/adcap enable acme\/app/);
    expect(ok(await run(['disable', 'acme/app']))).toBe('acme/app was already disabled\n');
    expect(ok(await run(['enable', 'acme/app']))).toBe('enabled acme/app\n');
    expect(ok(await run(['list']))).not.toMatch(/\[disabled\]/);
  });
});

describe('policy rules on the command line', () => {
  it('deniedPermissions, blocked and sideload refuse with E_POLICY and the rule named', async () => {
    const { run } = await session(policy({ deniedPermissions: ['net:connect'], blocked: ['acme/other'], sideload: false }));
    const denied = await run(['install', 'acme/app@2.0.0', '--yes']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/E_POLICY.*net:connect:api\.example\.com.*rule "deniedPermissions"/s);
    const blocked = await run(['install', 'acme/other', '--yes']);
    expect(blocked.stderr).toMatch(/E_POLICY.*blocked: acme\/other.*rule "blocked"/s);
    const file = await buildCapability({ id: 'acme/local', version: '1.0.0' }, join(work, 'build'), []);
    const sideload = await run(['install', file, '--allow-unsigned', '--yes']);
    expect(sideload.stderr).toMatch(/E_POLICY.*rule "sideload"/s);
    // From the policy's registry, what it allows installs.
    expect(ok(await run(['install', 'acme/app@^1.0.0', '--yes']))).toContain('installed acme/app@1.0.0');
    expect(ok(await run(['install', 'acme/app@^1.0.0', '--yes', '--json']))).toContain('"installed"');
  });

  it("remotes: another registry cannot be added and the policy's cannot be removed", async () => {
    const { run } = await session(policy());
    const other = await LifecycleRegistry.create();
    const add = await run(['remote', 'add', 'other', other.registry.v1Url, '--root-key', other.registry.rootKey.publicKey]);
    expect(add.code).toBe(1);
    expect(add.stderr).toMatch(/E_POLICY.*is not one your organisation allows; the allowed ones are corp.*rule "remotes"/s);
    const remove = await run(['remote', 'remove', 'corp']);
    expect(remove.stderr).toMatch(/E_POLICY.*corp was added by your organisation and cannot be removed/s);
  });

  it('policy apply installs required capabilities, disables blocked ones; list shows them; uninstall and disable are refused', async () => {
    const { run, setPolicy } = await session(policy());
    ok(await run(['install', 'acme/other', '--yes']));
    await setPolicy(policy({ required: ['acme/app@^1.0.0'], blocked: ['acme/other'] }));
    const applied = ok(await run(['policy', 'apply']));
    expect(applied).toContain('disabled acme/other (blocked: acme/other)');
    expect(applied).toContain('installed acme/app@1.0.0 (required)');
    const list = ok(await run(['list']));
    expect(list).toMatch(/acme\/app@1\.0\.0 \[required by policy\] {2}grants: fs:read:workspace/);
    expect(list).toMatch(/acme\/other@1\.0\.0 \[disabled by policy\]/);
    expect((await run(['uninstall', 'acme/app'])).stderr).toMatch(
      /E_POLICY.*required on this computer and cannot be uninstalled.*Managed by Acme IT/s,
    );
    expect((await run(['disable', 'acme/app'])).stderr).toMatch(/E_POLICY.*cannot be disabled/s);
    expect((await run(['enable', 'acme/other'])).stderr).toMatch(/E_POLICY.*may not be installed \(blocked: acme\/other\)/s);
    const doctor = await run(['doctor']);
    expect(doctor.stdout).not.toMatch(/policy/);
  });

  it('an invalid policy stops install with E_POLICY while list still works', async () => {
    const { run, setPolicy } = await session(policy());
    ok(await run(['install', 'acme/other', '--yes']));
    await setPolicy('{"policy": 1,');
    const install = await run(['install', 'acme/app@1.0.0', '--yes']);
    expect(install.code).toBe(1);
    expect(install.stderr).toMatch(/E_POLICY.*not valid JSON/s);
    expect(ok(await run(['list']))).toContain('acme/other@1.0.0');
  });
});
