// Kept closed ("sideload: false and unsigned: false are void without a remotes rule"): the user
// added a registry of their own, signed with their own key, and installed anything from it. Without
// a `remotes` rule these rules now mean "only registries the policy or the built-in configuration
// trust" (docs/admin.md): a registry from config.json is not used, for installs nor for the keys a
// sideload's signature is checked against. Real signed registries over file://, real installs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote } from '../../../sdk/src/registry/remotes.js';
import type { Policy } from '../../../sdk/src/store/policy.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let builtIn: LifecycleRegistry;
let users: LifecycleRegistry;
let dir: string;
let count = 0;
const approve = (): boolean => true;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-policy-user-registry-'));
  builtIn = await LifecycleRegistry.create();
  await builtIn.publishAll([{ id: 'acme/allowed', version: '1.0.0' }]);
  // The user's own registry, root key and publisher key.
  users = await LifecycleRegistry.create();
  await users.publishAll([{ id: 'mallory/anything', version: '1.0.0', tool: true }]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A home whose config.json lists the user's registry (as `adcap remote add` writes it), under `policy`. */
async function userHome(policy: Policy | null, name = 'mine') {
  const home = await builtIn.newHome();
  await addRemote(home, { name, url: users.registry.v1Url, rootKeys: [users.registry.rootKey.publicKey] });
  const file = join(dir, `policy-${++count}.json`);
  if (policy !== null) await writeFile(file, JSON.stringify(policy));
  // The policy under test, named as a host names its own; a user's comes from the system location.
  const env = policy === null ? {} : { ARCOTHEON_POLICY: file };
  return builtIn.arcotheon(home, { policy: { env, systemPath: join(dir, 'no-system-policy.json') } });
}

describe('sideload: false / unsigned: false without a remotes rule', () => {
  it('control: without a policy the user installs from their own registry', async () => {
    const arc = await userHome(null);
    expect((await arc.install('mallory/anything', { approve })).installed.map((i) => i.id)).toEqual(['mallory/anything']);
  });

  for (const rule of [{ sideload: false }, { unsigned: false }] as const) {
    it(`${JSON.stringify(rule)}: the user's registry is not used; the built-in one still is`, async () => {
      const arc = await userHome({ policy: 1, ...rule });
      const error = await rejection(arc.install('mallory/anything', { approve }));
      // Not found: the registry that has it is not one this host uses under the policy.
      expect(error).toMatchObject({ code: 'E_NOT_FOUND', message: expect.stringMatching(/registries this host uses/) });
      expect(await arc.list()).toEqual([]);
      expect((await arc.install('acme/allowed', { approve })).installed.map((i) => i.id)).toEqual(['acme/allowed']);
    });
  }

  it("a user's registry that takes the built-in one's name does not replace it", async () => {
    const arc = await userHome({ policy: 1, sideload: false }, 'test');
    expect((await rejection(arc.install('mallory/anything', { approve }))).code).toBe('E_NOT_FOUND');
    expect((await arc.install('acme/allowed', { approve })).installed.map((i) => i.id)).toEqual(['acme/allowed']);
  });

  it("unsigned: false refuses a sideload signed only by the user's own key", async () => {
    const file = await users.publish({ id: 'mallory/sideloaded', version: '1.0.0' });
    // Control: with no policy the user's registry vouches for the key, and the sideload is "signed".
    const open = await userHome(null);
    expect((await open.install({ file }, { approve })).installed.map((i) => i.id)).toEqual(['mallory/sideloaded']);
    const arc = await userHome({ policy: 1, unsigned: false });
    const error = await rejection(arc.install({ file }, { approve, allowUnsigned: true }));
    expect(error).toMatchObject({ code: 'E_POLICY', details: { rule: 'unsigned' } });
  });
});
