import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertGrantsAllowed,
  assertNotBlocked,
  assertNotRequired,
  assertRemoteAllowed,
  assertRemoteRemovable,
  assertSideloadAllowed,
  assertSignedAllowed,
  describePolicy,
  loadPolicy,
  patternDenies,
  systemPolicyPath,
  type LoadedPolicy,
} from '../../../sdk/src/store/policy.js';
import { rejection } from '../../helpers/errors.js';

const KEY = 'A'.repeat(43) + '=';
const OTHER_KEY = 'B'.repeat(43) + '=';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-policy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function policyFile(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function loaded(policy: LoadedPolicy['policy']): LoadedPolicy {
  return { policy, path: '/etc/arcotheon/policy.json', source: 'system' };
}

describe('loading the organisation policy', () => {
  it('reads ARCOTHEON_POLICY, and finds no policy when the system location has none', async () => {
    const path = await policyFile('env.json', { policy: 1, organisation: 'Acme IT', sideload: false });
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const got = await loadPolicy({ env: { ARCOTHEON_POLICY: path } });
    expect(got).toEqual({ policy: { policy: 1, organisation: 'Acme IT', sideload: false }, path, source: 'environment' });
    expect(await loadPolicy({ env: {}, systemPath: join(dir, 'absent.json') })).toBeNull();
  });

  it('reads the optional recommended list, and a policy without it stays valid (policy-1.json)', async () => {
    const path = await policyFile('recommended.json', {
      policy: 1,
      organisation: 'Acme IT',
      required: ['acme/baseline'],
      recommended: ['acme/notes', 'acme/fetcher@^1.0.0'],
    });
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const got = await loadPolicy({ env: { ARCOTHEON_POLICY: path } });
    expect(got?.policy.recommended).toEqual(['acme/notes', 'acme/fetcher@^1.0.0']);
    expect(describePolicy(got)).toContain('  recommended: acme/notes, acme/fetcher@^1.0.0');
    const old = await policyFile('old.json', { policy: 1, required: ['acme/baseline'] });
    // Not a user's run: the policy under test.
    const before = await loadPolicy({ env: { ARCOTHEON_POLICY: old } });
    expect(before?.policy).toEqual({ policy: 1, required: ['acme/baseline'] });
    expect(describePolicy(before)).toContain('  recommended: none');
  });

  it('names the system location of each platform', () => {
    expect(systemPolicyPath('linux')).toBe('/etc/arcotheon/policy.json');
    expect(systemPolicyPath('darwin')).toBe('/Library/Application Support/Arcotheon/policy.json');
    expect(systemPolicyPath('win32', { ProgramData: 'D:\\Data' })).toBe(join('D:\\Data', 'Arcotheon', 'policy.json'));
  });

  it(
    'an invalid policy stops everything with E_POLICY instead of being ignored ' +
      '(bad JSON, unknown rule, bad range, missing file named by the host)',
    async () => {
      const cases: Array<[string, unknown, RegExp]> = [
        ['json.json', '{"policy": 1,', /not valid JSON/],
        ['unknown.json', { policy: 1, sideloading: false }, /does not match the policy schema/],
        ['version.json', { policy: 2 }, /does not match the policy schema/],
        ['range.json', { policy: 1, blocked: ['acme/x@not a range!'] }, /not valid semver/],
        ['pattern.json', { policy: 1, deniedPermissions: ['net:connect:bad host'] }, /deniedPermissions entry/],
        ['both.json', { policy: 1, blocked: ['acme/x'], required: ['acme/x'] }, /both requires and blocks acme\/x/],
        ['recommends.json', { policy: 1, blocked: ['acme/x'], recommended: ['acme/x'] }, /both recommends and blocks acme\/x/],
        ['recommended-range.json', { policy: 1, recommended: ['acme/x@not a range!'] }, /recommended entry .* not valid semver/],
        ['recommended-id.json', { policy: 1, recommended: ['Acme X'] }, /does not match the policy schema/],
      ];
      for (const [name, value, message] of cases) {
        const path = await policyFile(name, value);
        // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
        const error = await rejection(loadPolicy({ env: { ARCOTHEON_POLICY: path } }));
        expect(error, name).toMatchObject({ code: 'E_POLICY' });
        expect(error.message, name).toMatch(message);
      }
      // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
      expect(await rejection(loadPolicy({ env: { ARCOTHEON_POLICY: join(dir, 'nope.json') } }))).toMatchObject({ code: 'E_POLICY' });
    },
  );

  it('refuses a policy at the system location that a user could edit (not root-owned, writable by others, a link)', async () => {
    const folder = join(dir, 'etc-arcotheon');
    await mkdir(folder, { recursive: true });
    const path = await policyFile('etc-arcotheon/policy.json', { policy: 1 });
    if (process.getuid?.() === 0) {
      // As root (CI) the file is root-owned: writable by others is what must fail.
      await chmod(folder, 0o755);
      await chmod(path, 0o644);
      expect(await loadPolicy({ env: {}, systemPath: path, platform: 'linux' })).toMatchObject({ source: 'system' });
      await chmod(path, 0o666);
      expect(await rejection(loadPolicy({ env: {}, systemPath: path, platform: 'linux' }))).toMatchObject({
        code: 'E_POLICY',
        message: expect.stringMatching(/writable by users other than root/),
      });
      await chmod(path, 0o644);
      await chmod(folder, 0o777);
      expect(await rejection(loadPolicy({ env: {}, systemPath: path, platform: 'linux' }))).toMatchObject({
        code: 'E_POLICY',
        message: expect.stringMatching(/a folder that users other than root can change/),
      });
      await chmod(folder, 0o755);
    } else {
      expect(await rejection(loadPolicy({ env: {}, systemPath: path, platform: 'linux' }))).toMatchObject({
        code: 'E_POLICY',
        message: expect.stringMatching(/not owned by root/),
      });
    }
    const link = join(folder, 'link.json');
    await symlink(path, link);
    expect(await rejection(loadPolicy({ env: {}, systemPath: link, platform: 'linux' }))).toMatchObject({
      code: 'E_POLICY',
      message: expect.stringMatching(/not a regular file/),
    });
  });
});

describe('policy rules', () => {
  it('deniedPermissions: an id denies every scope; fs:read:~/ every home path; net patterns deny what they overlap', () => {
    const denies: Array<[string, string, boolean]> = [
      ['net:connect', 'net:connect:api.example.com', true],
      ['net:connect', 'net:connect', true],
      ['net:connect:*.corp.example', 'net:connect:api.corp.example', true],
      ['net:connect:*.corp.example', 'net:connect:api.example.com', false],
      ['net:connect:api.example.com', 'net:connect', true],
      ['net:connect:api.example.com', 'net:connect:*.example.com', true],
      ['fs:read:~/', 'fs:read:~/Documents', true],
      ['fs:read:~/', 'fs:read:/data', false],
      ['fs:read:~/', 'fs:read:workspace', false],
      ['fs:read:~/.ssh', 'fs:read:~/', false],
      ['fs:read:~/.ssh', 'fs:read:~/.ssh/id_ed25519', true],
      ['fs:write:/', 'fs:write:/srv/data', true],
      ['fs:write:/', 'fs:read:/srv/data', false],
      ['process:exec', 'process:exec:git', true],
      ['process:exec:git', 'process:exec:curl', false],
      ['env:read:AWS_SECRET_ACCESS_KEY', 'env:read:AWS_SECRET_ACCESS_KEY', true],
    ];
    for (const [pattern, grant, expected] of denies) expect(patternDenies(pattern, grant), `${pattern} vs ${grant}`).toBe(expected);
    const policy = loaded({ policy: 1, organisation: 'Acme IT', contact: 'it@acme.example', deniedPermissions: ['net:connect'] });
    expect(() => assertGrantsAllowed(policy, [{ id: 'acme/x', grant: 'fs:read:workspace' }])).not.toThrow();
    let thrown: unknown;
    try {
      assertGrantsAllowed(policy, [{ id: 'acme/x', grant: 'net:connect:api.example.com' }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'E_POLICY',
      message:
        'acme/x needs the permission net:connect:api.example.com, ' +
        'which your organisation never grants (net:connect). ' +
        'Managed by Acme IT (rule "deniedPermissions" in /etc/arcotheon/policy.json). Ask it@acme.example if you need it.',
      details: { rule: 'deniedPermissions', pattern: 'net:connect' },
    });
  });

  it('blocked: an id blocks every version, id@range only those versions', () => {
    const policy = loaded({ policy: 1, blocked: ['acme/bad', 'acme/old@<2.0.0'] });
    expect(() => assertNotBlocked(policy, 'acme/bad', '9.9.9')).toThrow(
      /acme\/bad@9\.9\.9 may not be installed \(blocked: acme\/bad\)\. Managed by your organisation \(rule "blocked"/,
    );
    expect(() => assertNotBlocked(policy, 'acme/old', '1.4.0')).toThrow(/blocked: acme\/old@<2\.0\.0/);
    expect(() => assertNotBlocked(policy, 'acme/old', '2.0.0')).not.toThrow();
    expect(() => assertNotBlocked(null, 'acme/bad', '1.0.0')).not.toThrow();
  });

  it('sideload, unsigned, remotes and required each refuse with their rule named', () => {
    const policy = loaded({
      policy: 1,
      sideload: false,
      unsigned: false,
      remotes: [{ name: 'corp', url: 'https://registry.corp.example/v1/', rootKeys: [KEY] }],
      required: ['corp/security-baseline'],
    });
    expect(() => assertSideloadAllowed(policy, 'x.adcap')).toThrow(/rule "sideload"/);
    expect(() => assertSignedAllowed(policy, 'acme/x', false)).toThrow(/rule "unsigned"/);
    expect(() => assertSignedAllowed(policy, 'acme/x', true)).not.toThrow();
    expect(() => assertRemoteAllowed(policy, { name: 'corp', url: 'https://registry.corp.example/v1/', rootKeys: [KEY] })).not.toThrow();
    expect(() => assertRemoteAllowed(policy, { name: 'corp2', url: 'https://registry.corp.example/v1/', rootKeys: [OTHER_KEY] })).toThrow(
      /not one your organisation allows; the allowed ones are corp/,
    );
    expect(() => assertRemoteAllowed(policy, { name: 'x', url: 'https://evil.example/v1/', rootKeys: [KEY] })).toThrow(/rule "remotes"/);
    expect(() => assertRemoteRemovable(policy, 'corp')).toThrow(/added by your organisation and cannot be removed/);
    expect(() => assertRemoteRemovable(policy, 'mine')).not.toThrow();
    expect(() => assertNotRequired(policy, 'corp/security-baseline', 'uninstall')).toThrow(
      /required on this computer and cannot be uninstalled/,
    );
    expect(() => assertNotRequired(policy, 'corp/security-baseline', 'disable')).toThrow(/cannot be disabled/);
    expect(() => assertRemoteAllowed(loaded({ policy: 1 }), { name: 'x', url: 'https://any.example/v1/', rootKeys: [KEY] })).not.toThrow();
  });

  it('describes the policy in force and where it came from', () => {
    expect(describePolicy(null)[0]).toBe('No organisation policy is in force.');
    const lines = describePolicy(
      loaded({ policy: 1, organisation: 'Acme IT', deniedPermissions: ['net:connect'], updates: { automatic: true } }),
    );
    expect(lines).toContain('Managed by Acme IT: policy /etc/arcotheon/policy.json (system location)');
    expect(lines).toContain('  permissions never granted: net:connect');
    expect(lines).toContain('  automatic updates: on (updates that need no new permission)');
  });
});
