// Kept closed ("any user replaces the administrator's policy with ARCOTHEON_POLICY"): the
// variable named a file that replaced the system policy, and that file needed no owner. Now a
// system policy stays in force: the named file only adds restrictions (the stricter of both
// rules), it must pass the same ownership rule, and every host reads the same answer through
// loadPolicy (the CLI calls it; the desktop app's utility process reaches it through Arcotheon).
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePolicy, loadPolicy, type Policy } from '../../../sdk/src/store/policy.js';
import { rejection } from '../../helpers/errors.js';
import { RunHome } from '../run/run-fixture.js';

const KEY = 'A'.repeat(43) + '=';
const OTHER_KEY = 'B'.repeat(43) + '=';
const acme = { name: 'acme', url: 'https://capabilities.acme.example/v1/', rootKeys: [KEY] };
const mine = { name: 'mine', url: 'https://mine.example/v1/', rootKeys: [OTHER_KEY] };
const SYSTEM: Policy = { policy: 1, organisation: 'Acme IT', sideload: false, deniedPermissions: ['net:connect'], remotes: [acme] };

let dir: string;
let systemPath: string;
let count = 0;

beforeAll(async () => {
  expect(process.getuid?.(), 'the ownership rule is tested as root (files a test makes are then root-owned)').toBe(0);
  dir = await mkdtemp(join(tmpdir(), 'adcap-policy-env-'));
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'etc'), { mode: 0o755 });
  systemPath = join(dir, 'etc', 'policy.json');
  await writeFile(systemPath, JSON.stringify(SYSTEM), { mode: 0o644 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function named(policy: Policy, mode = 0o644): Promise<string> {
  const path = join(dir, `named-${++count}.json`);
  await writeFile(path, JSON.stringify(policy));
  await chmod(path, mode);
  return path;
}

// The variable as a user would set it; the system location is this test's folder (systemPath),
// where a user's run reads /etc/arcotheon/policy.json.
const load = (path: string) => loadPolicy({ env: { ARCOTHEON_POLICY: path }, systemPath, platform: 'linux' });

describe('ARCOTHEON_POLICY beside a system policy', () => {
  it('cannot lift a system rule: an empty policy in the variable leaves the system policy in force', async () => {
    const path = await named({ policy: 1, sideload: true });
    const loaded = await load(path);
    expect(loaded).toMatchObject({ path: systemPath, source: 'system', added: { path, ignored: [] } });
    expect(loaded?.policy).toMatchObject({ sideload: false, deniedPermissions: ['net:connect'], remotes: [acme] });
  });

  it('a sideload the system policy forbids is still refused when the user names a permissive policy', async () => {
    const h = await RunHome.create();
    try {
      const path = await named({ policy: 1 });
      // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
      const arc = h.arc({ policy: { env: { ARCOTHEON_POLICY: path }, systemPath, platform: 'linux' } });
      const error = await rejection(h.install({ id: 'acme/anything' }, arc));
      expect(error).toMatchObject({ code: 'E_POLICY', details: { rule: 'sideload' } });
      expect(error.message).toContain(`rule "sideload" in ${systemPath}, with the restrictions of ${path}`);
      // The host's path (Arcotheon, as the desktop app's utility process) and the CLI's (loadPolicy) agree.
      expect(await arc.policyInForce()).toEqual(await load(path));
    } finally {
      await h.remove();
    }
  });

  it('adds restrictions: the stricter of both rules; registries, required, recommended and updates stay the system policy’s', async () => {
    const path = await named({
      policy: 1,
      unsigned: false,
      deniedPermissions: ['process:exec', 'net:connect'],
      blocked: ['acme/legacy'],
      remotes: [acme, mine],
      required: ['acme/extra'],
      recommended: ['acme/extra'],
      updates: { automatic: true },
    });
    const loaded = await load(path);
    expect(loaded?.policy).toEqual({
      policy: 1,
      organisation: 'Acme IT',
      sideload: false,
      unsigned: false,
      deniedPermissions: ['net:connect', 'process:exec'],
      blocked: ['acme/legacy'],
      remotes: [acme],
    });
    expect(loaded?.added?.ignored).toEqual(['remotes', 'required', 'recommended', 'updates']);
    expect(describePolicy(loaded).join('\n')).toContain(
      `ignored in ${path}, which only the system policy may set: remotes, required, recommended, updates`,
    );
    // A list of fewer registries is stricter: it narrows the system's.
    expect((await load(await named({ policy: 1, remotes: [] })))?.policy.remotes).toEqual([]);
  });

  it('the named file passes the same ownership rule as the system file', async () => {
    const writable = await named({ policy: 1 }, 0o666);
    expect(await rejection(load(writable))).toMatchObject({
      code: 'E_POLICY',
      message: expect.stringMatching(/writable by users other than root \(named by ARCOTHEON_POLICY/),
    });
    const users = await named({ policy: 1 });
    await chown(users, 1000, 1000);
    expect(await rejection(load(users))).toMatchObject({ code: 'E_POLICY', message: expect.stringMatching(/is not owned by root/) });
    // Without a system policy, the named file (root's) is the policy in force, as before.
    const alone = await loadPolicy({
      env: { ARCOTHEON_POLICY: await named({ policy: 1, sideload: true }) },
      systemPath: join(dir, 'none.json'),
    });
    expect(alone).toMatchObject({ source: 'environment', policy: { sideload: true } });
    expect(alone?.added).toBeUndefined();
  });
});
