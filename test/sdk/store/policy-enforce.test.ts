// docs/admin.md "The rules": every rule enforced through the SDK with a real policy file in a
// temporary folder (named through ARCOTHEON_POLICY), a real signed registry and real installs.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { checkPolicy, type Policy } from '../../../sdk/src/store/policy.js';
import { rejection } from '../../helpers/errors.js';
import { buildCapability, LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };
const approve = (): boolean => true;

let reg: LifecycleRegistry;
let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-policy-enforce-'));
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/lib', version: '1.0.0' },
    { id: 'acme/lib', version: '1.2.0' },
    { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '2.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead, netApi], tool: true },
    { id: 'acme/other', version: '1.0.0' },
    { id: 'acme/auto', version: '1.0.0' },
    { id: 'acme/perm', version: '1.0.0' },
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `policy` to a new file in the temp folder and returns its path. */
async function policyFile(policy: Policy | string): Promise<string> {
  const path = join(dir, `policy-${++count}.json`);
  await writeFile(path, typeof policy === 'string' ? policy : JSON.stringify(policy));
  return path;
}

/** An Arcotheon over a fresh home whose policy file can be rewritten between operations. */
async function managed(
  policy: Policy | string,
  extra: Parameters<LifecycleRegistry['arcotheon']>[1] = {},
): Promise<{ arc: Arcotheon; set: (p: Policy | string) => Promise<void>; path: string }> {
  const path = join(dir, `live-${++count}.json`);
  const set = async (p: Policy | string): Promise<void> => writeFile(path, typeof p === 'string' ? p : JSON.stringify(p));
  await set(policy);
  // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
  const env = { ARCOTHEON_POLICY: path };
  const arc = reg.arcotheon(await reg.newHome(), { policy: { env, systemPath: join(dir, 'no-system-policy.json') }, ...extra });
  return { arc, set, path };
}

const ORG = { policy: 1 as const, organisation: 'Acme IT', contact: 'it@acme.example' };

describe('deniedPermissions', () => {
  it('refuses a plan that needs a denied permission, naming the rule, the pattern and the policy file', async () => {
    const { arc, path } = await managed({ ...ORG, deniedPermissions: ['net:connect'] });
    const refused = await rejection(arc.plan('acme/app@2.0.0'));
    expect(refused.code).toBe('E_POLICY');
    expect(refused.message).toContain(
      'acme/app needs the permission net:connect:api.example.com, which your organisation never grants (net:connect).',
    );
    expect(refused.message).toContain(`Managed by Acme IT (rule "deniedPermissions" in ${path}). Ask it@acme.example if you need it.`);
    expect(refused.details).toMatchObject({ rule: 'deniedPermissions', pattern: 'net:connect' });
    expect((await rejection(arc.install('acme/app@2.0.0', { approve }))).code).toBe('E_POLICY');
    expect(await arc.list()).toEqual([]);
    // What the policy allows still installs.
    expect((await arc.install('acme/app@^1.0.0', { approve })).installed.map((i) => i.id)).toEqual(['acme/lib', 'acme/app']);
  });

  it('refuses a grant the policy denies, refuses to run a tool whose grant a newer policy denies, doctor and list flag it', async () => {
    const { arc, set } = await managed({ ...ORG });
    await arc.install('acme/app@1.0.0', { approve });
    await arc.revokeGrant('acme/app', 'fs:read:workspace');
    await set({ ...ORG, deniedPermissions: ['fs:read:workspace'] });
    const grant = await rejection(arc.grant('acme/app', 'fs:read:workspace'));
    expect(grant.code).toBe('E_POLICY');
    expect(grant.message).toMatch(/never grants \(fs:read:workspace\)/);

    // The grant given before the policy changed: the tool is refused now, with the rule named.
    await set({ ...ORG });
    await arc.grant('acme/app', 'fs:read:workspace');
    await set({ ...ORG, deniedPermissions: ['fs:read'] });
    const run = await rejection(runTool(arc, 'acme/app', 'main', {}));
    expect(run.code).toBe('E_POLICY');
    expect(run.message).toMatch(/rule "deniedPermissions"/);
    const report = await arc.doctor({ checkRevocations: false, checkCache: false });
    expect(report.ok).toBe(false);
    expect(report.problems.filter((p) => p.kind === 'policy').map((p) => p.message)).toEqual([
      expect.stringMatching(/acme\/app holds the grant fs:read:workspace, which the policy denies \(fs:read\)/),
    ]);
    expect((await arc.list()).find((c) => c.id === 'acme/app')?.managed).toMatchObject({ deniedGrants: ['fs:read:workspace'] });
  });
});

describe('blocked', () => {
  it('refuses a blocked id, and a blocked version range even when it comes in as a dependency', async () => {
    const { arc } = await managed({ ...ORG, blocked: ['acme/other', 'acme/lib@>=1.2.0'] });
    const other = await rejection(arc.plan('acme/other'));
    expect(other.code).toBe('E_POLICY');
    expect(other.message).toMatch(
      /acme\/other@1\.0\.0 may not be installed \(blocked: acme\/other\)\. Managed by Acme IT \(rule "blocked"/,
    );
    const dep = await rejection(arc.install('acme/app@1.0.0', { approve }));
    expect(dep.message).toMatch(/acme\/lib@1\.2\.0 may not be installed \(blocked: acme\/lib@>=1\.2\.0\)/);
    // Asking for an allowed version works.
    await arc.install(['acme/lib@1.0.0', 'acme/app@1.0.0'], { approve });
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.0.0');
  });

  it(
    'disables an installed capability the policy blocks (by: policy), ' +
      'refuses enabling and running it, and enables it again when unblocked',
    async () => {
      const { arc, set } = await managed({ ...ORG });
      await arc.install('acme/app@1.0.0', { approve });
      await set({ ...ORG, blocked: ['acme/app@1'] });
      expect((await arc.doctor({ checkRevocations: false, checkCache: false })).problems.map((p) => p.message)).toContainEqual(
        expect.stringMatching(/acme\/app@1\.0\.0 is blocked by the policy \(acme\/app@1\) but still enabled/),
      );
      // Even before applyPolicy runs, the blocked version's tools are refused.
      expect((await rejection(runTool(arc, 'acme/app', 'main', {}))).code).toBe('E_POLICY');

      const applied = await arc.applyPolicy();
      expect(applied.disabled).toEqual([{ id: 'acme/app', rule: 'acme/app@1' }]);
      const entry = (await arc.list()).find((c) => c.id === 'acme/app');
      expect(entry?.disabled).toMatchObject({ by: 'policy', rule: 'acme/app@1' });
      expect(entry?.managed).toMatchObject({ blocked: 'acme/app@1', text: expect.stringMatching(/^Managed by Acme IT \(rule "blocked"/) });
      const run = await rejection(runTool(arc, 'acme/app', 'main', {}));
      expect(run.code).toBe('E_DISABLED');
      expect(run.message).toMatch(/switched off by your organisation's policy \(blocked: acme\/app@1\)/);
      expect((await rejection(arc.enable('acme/app'))).code).toBe('E_POLICY');
      // Applying again changes nothing.
      expect((await arc.applyPolicy()).disabled).toEqual([]);

      await set({ ...ORG });
      expect((await arc.applyPolicy()).enabled).toEqual(['acme/app']);
      expect((await storeOf(arc).state('acme/app')).disabled).toBeUndefined();
    },
  );

  it('an update passes over a blocked newer version instead of failing', async () => {
    const { arc, set } = await managed({ ...ORG });
    await arc.install('acme/lib@1.0.0', { approve });
    await arc.install('acme/lib@^1.0.0', { approve });
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.0.0');
    await set({ ...ORG, blocked: ['acme/lib@1.2.0'] });
    const blocked = await arc.update();
    expect(blocked.plan.items).toEqual([]);
    await set({ ...ORG });
    expect((await arc.update()).installed).toEqual([{ id: 'acme/lib', version: '1.2.0' }]);
  });

  it('refuses a rollback to a blocked version', async () => {
    const { arc, set } = await managed({ ...ORG });
    await arc.install('acme/lib@1.0.0', { approve });
    await arc.install('acme/lib@1.2.0', { approve });
    await set({ ...ORG, blocked: ['acme/lib@<1.1.0'] });
    const refused = await rejection(arc.rollback('acme/lib'));
    expect(refused.code).toBe('E_POLICY');
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.2.0');
  });
});

describe('sideload and unsigned', () => {
  it('sideload: false refuses installing from a file', async () => {
    const { arc } = await managed({ ...ORG, sideload: false });
    const file = await buildCapability({ id: 'acme/local', version: '1.0.0' }, join(dir, 'build'), []);
    const refused = await rejection(arc.install({ file }, { approve, allowUnsigned: true }));
    expect(refused.code).toBe('E_POLICY');
    expect(refused.message).toMatch(/Installing from a file \(.*\.adcap\) is not allowed.*rule "sideload"/);
  });

  it(
    'unsigned: false refuses an unsigned file even with the extra confirmation, ' +
      'and accepts one signed by a publisher an allowed registry trusts',
    async () => {
      const { arc } = await managed({ ...ORG, unsigned: false });
      const unsigned = await buildCapability({ id: 'acme/local', version: '1.0.0' }, join(dir, 'build'), []);
      const refused = await rejection(arc.install({ file: unsigned }, { approve, allowUnsigned: true }));
      expect(refused.code).toBe('E_POLICY');
      expect(refused.message).toMatch(/acme\/local is not signed by a key an allowed registry trusts.*rule "unsigned"/);
      const signed = await reg.publish({ id: 'acme/signed', version: '1.0.0' });
      expect((await arc.install({ file: signed }, { approve })).installed).toEqual([{ id: 'acme/signed', version: '1.0.0' }]);
    },
  );
});

describe('remotes', () => {
  it('uses the registries the policy lists, added for the user, and no other', async () => {
    const { arc } = await managed(
      { ...ORG, remotes: [{ name: 'corp', url: reg.registry.v1Url, rootKeys: [reg.registry.rootKey.publicKey] }] },
      { remotes: [] },
    );
    expect((await storeOf(arc).sources.remotes()).map((r) => r.name)).toEqual(['corp']);
    expect((await arc.install('acme/other', { approve })).installed).toEqual([{ id: 'acme/other', version: '1.0.0' }]);
    expect((await storeOf(arc).state('acme/other')).versions['1.0.0']?.source).toMatchObject({ kind: 'registry', remote: 'corp' });

    // A policy that lists another registry: the host's default remote is not used at all.
    const nowhere = pathToFileURL(join(dir, 'nowhere', 'v1')).href + '/';
    const elsewhere = await managed({ ...ORG, remotes: [{ name: 'corp', url: nowhere, rootKeys: [reg.registry.rootKey.publicKey] }] });
    expect((await storeOf(elsewhere.arc).sources.remotes()).map((r) => r.url)).toEqual([nowhere]);
    // The default remote (the test registry) is not asked: the only registry in force cannot be read.
    const away = await rejection(elsewhere.arc.plan('acme/other'));
    expect(away.code).toBe('E_DOWNLOAD');
    expect(away.message).toContain(`${nowhere}catalog.json`);
    expect(await elsewhere.arc.list()).toEqual([]);
  });
});

describe('required', () => {
  it("applyPolicy installs required capabilities with the policy's grants; they cannot be uninstalled or disabled", async () => {
    const { arc } = await managed({ ...ORG, required: ['acme/app@^1.0.0'] });
    expect((await arc.doctor({ checkRevocations: false, checkCache: false })).problems.map((p) => p.message)).toContainEqual(
      expect.stringMatching(/acme\/app is required by the policy \(acme\/app@\^1\.0\.0\) but not installed/),
    );
    const applied = await arc.applyPolicy();
    expect(applied.installed).toEqual([
      { id: 'acme/lib', version: '1.2.0' },
      { id: 'acme/app', version: '1.0.0' },
    ]);
    expect(applied.failed).toEqual([]);
    const state = await storeOf(arc).state('acme/app');
    expect(state).toMatchObject({ explicit: true, range: '^1.0.0', grants: ['fs:read:workspace'] });
    expect((await arc.list()).find((c) => c.id === 'acme/app')?.managed).toMatchObject({
      required: 'acme/app@^1.0.0',
      text: expect.stringMatching(/rule "required"/),
    });

    const uninstall = await rejection(arc.uninstall('acme/app'));
    expect(uninstall.code).toBe('E_POLICY');
    expect(uninstall.message).toMatch(
      /acme\/app is required on this computer and cannot be uninstalled\. Managed by Acme IT \(rule "required"/,
    );
    expect((await rejection(arc.disable('acme/app'))).message).toMatch(/cannot be disabled/);
    expect((await arc.doctor({ checkRevocations: false, checkCache: false })).problems.filter((p) => p.kind === 'policy')).toEqual([]);
  });

  it('keeps a required capability updated, granting the new permissions itself, and enables one the user had disabled', async () => {
    const { arc, set } = await managed({ ...ORG });
    await arc.install('acme/app@1.0.0', { approve });
    await arc.disable('acme/app');
    await set({ ...ORG, required: ['acme/app'] });
    const applied = await arc.applyPolicy();
    expect(applied.enabled).toEqual(['acme/app']);
    expect(applied.updated).toEqual([{ id: 'acme/app', version: '2.0.0' }]);
    const state = await storeOf(arc).state('acme/app');
    expect(state.active).toBe('2.0.0');
    expect(state.disabled).toBeUndefined();
    expect(state.grants).toEqual(['fs:read:workspace', 'net:connect:api.example.com']);
  });

  it('reports a required capability that cannot be installed, and goes on with the rest', async () => {
    const { arc } = await managed({ ...ORG, required: ['acme/missing', 'acme/other'] });
    const applied = await arc.applyPolicy();
    expect(applied.failed).toEqual([{ id: 'acme/missing', code: 'E_NOT_FOUND', message: expect.stringMatching(/acme\/missing/) }]);
    expect(applied.installed).toEqual([{ id: 'acme/other', version: '1.0.0' }]);
  });
});

describe('updates: automatic', () => {
  it('applies updates that need no new permission and leaves the others for the user', async () => {
    const local = await LifecycleRegistry.create();
    await local.publishAll([
      { id: 'acme/auto', version: '1.0.0' },
      { id: 'acme/perm', version: '1.0.0' },
    ]);
    const path = await policyFile({ ...ORG, updates: { automatic: true } });
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const arc = local.arcotheon(await local.newHome(), { policy: { env: { ARCOTHEON_POLICY: path } } });
    await arc.install(['acme/auto', 'acme/perm'], { approve });
    await local.publishAll([
      { id: 'acme/auto', version: '1.1.0' },
      { id: 'acme/perm', version: '1.1.0', permissions: [netApi] },
    ]);
    const applied = await arc.applyPolicy();
    expect(applied.updated).toEqual([{ id: 'acme/auto', version: '1.1.0' }]);
    expect(applied.awaitingApproval).toEqual(['acme/perm']);
    expect((await storeOf(arc).state('acme/perm')).active).toBe('1.0.0');

    // Without the rule nothing is updated by applyPolicy.
    const off = await policyFile({ ...ORG });
    const manual = local.arcotheon(await local.newHome(), { policy: { env: { ARCOTHEON_POLICY: off } } });
    await manual.install('acme/auto@1.0.0', { approve });
    await manual.install('acme/auto@*', { approve });
    expect((await manual.applyPolicy()).updated).toEqual([]);
  });
});

describe("the administrators' guide", () => {
  it('docs/admin.md gives a complete example policy that the schema and the checks accept', async () => {
    const text = await readFile(fileURLToPath(new URL('../../../docs/admin.md', import.meta.url)), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(text)?.[1];
    expect(example).toBeDefined();
    const policy = checkPolicy(JSON.parse(example as string), 'docs/admin.md');
    // Every rule of the format appears in the example.
    expect(Object.keys(policy).sort()).toEqual([
      'blocked',
      'contact',
      'deniedPermissions',
      'organisation',
      'policy',
      'recommended',
      'remotes',
      'required',
      'sideload',
      'unsigned',
      'updates',
    ]);
  });
});

describe('an invalid policy', () => {
  it('stops every change with E_POLICY, while list and doctor go on and report it', async () => {
    const { arc, set } = await managed({ ...ORG });
    await arc.install('acme/other', { approve });
    await set('{"policy": 1, "sideloading": false}');
    const changes: Array<() => Promise<unknown>> = [
      () => arc.install('acme/lib', { approve }),
      () => arc.update(),
      () => arc.uninstall('acme/other'),
      () => arc.disable('acme/other'),
      () => arc.enable('acme/other'),
      () => arc.applyPolicy(),
    ];
    for (const change of changes) {
      const refused = await rejection(change());
      expect(refused.code).toBe('E_POLICY');
      expect(refused.message).toMatch(/does not match the policy schema/);
    }
    expect((await arc.list()).map((c) => c.id)).toEqual(['acme/other']);
    const report = await arc.doctor({ checkRevocations: false, checkCache: false });
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: 'policy', message: expect.stringMatching(/every change is stopped/) }),
    );
  });
});
