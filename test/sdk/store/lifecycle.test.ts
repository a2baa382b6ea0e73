import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { mirrorBlob } from '../../../sdk/src/registry/builder/mirror.js';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { revokeVersion, yankVersion, deprecateCapability } from '../../../sdk/src/registry/builder/maintain.js';
import type { Plan } from '../../../sdk/src/store/plan.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';
import { writeArchive } from '../../../sdk/src/format/archive/writer.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { buildCapability, LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };
const envToken = { id: 'env:read' as const, scope: 'API_TOKEN', reason: 'Authenticates with the API.' };

let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/lib', version: '1.0.0' },
    { id: 'acme/lib', version: '1.1.0' },
    { id: 'acme/lib', version: '1.2.0' },
    { id: 'acme/lib', version: '2.0.0' },
    { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '2.0.0', dependencies: { 'acme/lib': '^1.1.0' }, permissions: [fsRead, netApi, envToken], tool: true },
    { id: 'acme/other', version: '1.0.0', dependencies: { 'acme/lib': '>=1.0.0 <1.1.0' } },
    { id: 'acme/beta', version: '1.0.0' },
    { id: 'acme/beta', version: '1.1.0-beta.1' },
    { id: 'acme/yanky', version: '1.0.0' },
    { id: 'acme/yanky', version: '1.1.0' },
    { id: 'acme/bad', version: '1.0.0' },
    { id: 'acme/bad', version: '1.1.0' },
    { id: 'acme/armonly', version: '1.0.0', compat: { platforms: ['linux-arm64'], agents: { arcotheon: '*' } }, tool: true },
  ]);
  await yankVersion(reg.registry.dir, 'acme/yanky', '1.1.0', 'broken on Tuesdays');
  await revokeVersion(reg.registry.dir, 'acme/bad', '1.1.0', 'malicious');
  await deprecateCapability(reg.registry.dir, 'acme/other', 'Use acme/app instead.');
  await reg.registry.build();
});

const approveAll = (): boolean => true;

describe('plan', () => {
  it('lists what will be installed, in dependency order, with each new permission in plain language', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    const plan = await arc.plan('acme/app@^1.0.0');
    expect(plan.items.map((i) => `${i.id}@${i.version}:${i.action}:${i.explicit}`)).toEqual([
      'acme/lib@1.2.0:install:false',
      'acme/app@1.1.0:install:true',
    ]);
    expect(plan.versions).toEqual({ 'acme/lib': '1.2.0', 'acme/app': '1.1.0' });
    expect(plan.newPermissions).toEqual([
      expect.objectContaining({
        id: 'acme/app',
        grant: 'fs:read:workspace',
        reason: 'Reads the files you point it at.',
        text: expect.stringMatching(/folder you choose/),
      }),
    ]);
    expect(plan.downloadSize).toBe(plan.items.reduce((s, i) => s + i.archive.size, 0));
    expect(plan.report.lines.join('\n')).toMatch(/Install acme\/app 1\.1\.0[\s\S]*new permission: Read files in the folder you choose/);
    expect(plan.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('warns about deprecated capabilities and prereleases', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    expect((await arc.plan('acme/other')).warnings.join(' ')).toMatch(/deprecated: Use acme\/app instead/);
    const beta = await arc.plan({ packages: ['acme/beta'], includePrerelease: true });
    expect(beta.items[0]?.version).toBe('1.1.0-beta.1');
    expect(beta.warnings.join(' ')).toMatch(/prerelease/);
  });

  it('changes nothing on disk', async () => {
    const home = await reg.newHome();
    await reg.arcotheon(home).plan('acme/app');
    expect(await readdir(home).then((d) => d.includes('packages'))).toBe(false);
  });
});

describe('install', () => {
  it('installs nothing without approval, or when approve returns false', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await expect(arc.install('acme/app')).rejects.toMatchObject({ code: 'E_DENIED' });
    await expect(arc.install('acme/app', { approve: () => false })).rejects.toMatchObject({ code: 'E_DENIED' });
    expect(await arc.list()).toEqual([]);
  });

  it('binds approval to the digest of the plan the user saw', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    const seen = await arc.plan('acme/app@^1.0.0');
    await expect(arc.install('acme/app@^1.0.0', { approvedDigest: 'f'.repeat(64) })).rejects.toMatchObject({
      code: 'E_DENIED',
      message: expect.stringMatching(/plan changed/),
    });
    const result = await arc.install('acme/app@^1.0.0', { approvedDigest: seen.digest });
    expect(result.plan.digest).toBe(seen.digest);
    expect(result.installed).toHaveLength(2);
  });

  it('hands approve a copy: changing it cannot change what is installed', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@^1.0.0', {
      approve: (plan: Plan) => {
        plan.items[1]!.newPermissions = [];
        plan.items[1]!.permissions = [];
        return true;
      },
    });
    expect((await storeOf(arc).state('acme/app')).grants).toEqual(['fs:read:workspace']);
  });

  it('installs verified, read-only files with the approved grants and reports progress', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    const phases = new Set<string>();
    await arc.install('acme/app@^1.0.0', { approve: approveAll, onProgress: (p) => phases.add(`${p.phase}:${p.item ?? ''}`) });
    expect(phases.has('download:acme/app@1.1.0')).toBe(true);
    expect([...phases].some((p) => p.startsWith('extract:'))).toBe(true);
    const dir = await arc.installedDir('acme/app');
    expect(dir).toBe(join(home, 'packages', 'acme', 'app', '1.1.0'));
    expect((await stat(join(dir, 'README.md'))).mode & 0o222).toBe(0);
    expect((await arc.installedManifest('acme/app')).version).toBe('1.1.0');
    const list = await arc.list();
    expect(list.map((c) => [c.id, c.version, c.explicit, c.status])).toEqual([
      ['acme/app', '1.1.0', true, 'ok'],
      ['acme/lib', '1.2.0', false, 'ok'],
    ]);
    expect(list[0]?.grants).toEqual(['fs:read:workspace']);
  });

  it('keeps an installed version that already satisfies a new constraint', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    const plan = await arc.plan('acme/app@^1.0.0');
    expect(plan.items.map((i) => i.id)).toEqual(['acme/app']);
    expect(plan.versions['acme/lib']).toBe('1.0.0');
  });

  it('explains an impossible combination in words (E_RESOLVE)', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/other', { approve: approveAll });
    await expect(arc.install('acme/app@2.0.0', { approve: approveAll })).rejects.toMatchObject({
      code: 'E_RESOLVE',
      message: expect.stringMatching(/acme\/lib/),
    });
  });

  it('refuses a capability built for another platform and says why (E_INCOMPATIBLE)', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await expect(arc.plan('acme/armonly')).rejects.toMatchObject({
      code: 'E_INCOMPATIBLE',
      message: expect.stringMatching(/linux-arm64.*linux-x64/),
    });
  });

  it('installs yanked versions only when pinned exactly, and revoked ones never', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    expect((await arc.plan('acme/yanky')).items[0]?.version).toBe('1.0.0');
    const pinned = await arc.plan('acme/yanky@1.1.0');
    expect(pinned.items[0]).toMatchObject({ version: '1.1.0', yanked: 'broken on Tuesdays' });
    expect((await arc.plan('acme/bad')).items[0]?.version).toBe('1.0.0');
    await expect(arc.plan('acme/bad@1.1.0')).rejects.toMatchObject({ code: expect.stringMatching(/E_RESOLVE|E_NOT_FOUND|E_REVOKED/) });
  });

  it('fails with E_LOCKED when another operation holds the home past the wait', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home, { limits: { lockWaitMs: 200 } });
    const holder = reg.arcotheon(home);
    let release!: () => void;
    const held = storeOf(holder).withHome('test holder', () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(arc.install('acme/lib', { approve: approveAll })).rejects.toMatchObject({ code: 'E_LOCKED' });
    release();
    await held;
  });
});

describe('resources at install (spec §9)', () => {
  it(
    'fetches lazy: false resources at install from the registry mirror ' +
      'when the declared source fails, and leaves lazy ones for first use',
    async () => {
      const local = await LifecycleRegistry.create();
      const eagerBytes = Buffer.from('eager resource\n'.repeat(1000));
      const lazyBytes = Buffer.from('lazy resource\n'.repeat(1000));
      const files = join(local.registry.work, 'res');
      await mkdir(files, { recursive: true });
      await writeFile(join(files, 'eager.bin'), eagerBytes);
      await writeFile(join(files, 'lazy.bin'), lazyBytes);
      await mirrorBlob(local.registry.dir, join(files, 'eager.bin'));
      await mirrorBlob(local.registry.dir, join(files, 'lazy.bin'));
      // Port 9 on loopback refuses connections: the declared mirror fails, the registry's works.
      const unreachable = (name: string): string => `https://127.0.0.1:9/${name}`;
      await local.publishAll([
        {
          id: 'acme/data',
          version: '1.0.0',
          resources: [
            {
              id: 'eager',
              kind: 'dataset',
              sources: [unreachable('eager.bin')],
              sha256: sha256Hex(eagerBytes),
              size: eagerBytes.length,
              lazy: false,
            },
            { id: 'lazy', kind: 'dataset', sources: [unreachable('lazy.bin')], sha256: sha256Hex(lazyBytes), size: lazyBytes.length },
          ],
        },
      ]);
      const arc = local.arcotheon(await local.newHome());
      await arc.install('acme/data', { approve: approveAll });
      expect(await storeOf(arc).cache.has(sha256Hex(eagerBytes), eagerBytes.length)).toBe(true);
      expect(await storeOf(arc).cache.has(sha256Hex(lazyBytes))).toBe(false);
      expect(await readFile(storeOf(arc).cache.pathFor(sha256Hex(eagerBytes)), 'utf8')).toBe(eagerBytes.toString());
    },
  );

  it('installs nothing when an eager resource cannot be fetched', async () => {
    const local = await LifecycleRegistry.create();
    const bytes = Buffer.from('nowhere to be found');
    await local.publishAll([
      {
        id: 'acme/data',
        version: '1.0.0',
        resources: [
          {
            id: 'eager',
            kind: 'dataset',
            sources: ['https://127.0.0.1:9/x.bin'],
            sha256: sha256Hex(bytes),
            size: bytes.length,
            lazy: false,
          },
        ],
      },
    ]);
    const arc = local.arcotheon(await local.newHome());
    await expect(arc.install('acme/data', { approve: approveAll })).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
    expect(await arc.list()).toEqual([]);
  });
});

describe('sideloading', () => {
  it('needs the extra confirmation for an unsigned package and labels it everywhere', async () => {
    const file = await buildCapability(
      { id: 'local/tool', version: '0.1.0', permissions: [fsRead], tool: true },
      join(reg.registry.work, 'side'),
      [],
    );
    const arc = reg.arcotheon(await reg.newHome());
    const plan = await arc.plan({ file });
    expect(plan.items[0]?.source).toMatchObject({ kind: 'file', unsigned: true });
    expect(plan.warnings.join(' ')).toMatch(/UNSIGNED/);
    await expect(arc.install({ file }, { approve: approveAll })).rejects.toMatchObject({
      code: 'E_DENIED',
      message: expect.stringMatching(/extra confirmation/),
    });
    await arc.install({ file }, { approve: approveAll, allowUnsigned: true });
    expect((await arc.list())[0]).toMatchObject({ id: 'local/tool', status: 'unsigned', grants: ['fs:read:workspace'] });
  });

  it("labels a package signed by an unknown key, and installs a known publisher's file like a registry one", async () => {
    const stranger = await buildCapability({ id: 'acme/side', version: '0.1.0' }, join(reg.registry.work, 'side'), [generateKey()]);
    const arc = reg.arcotheon(await reg.newHome());
    expect((await arc.plan({ file: stranger })).items[0]?.source).toMatchObject({ unknownSigner: true, unsigned: false });
    await expect(arc.install({ file: stranger }, { approve: approveAll })).rejects.toMatchObject({ code: 'E_DENIED' });
    const known = await buildCapability({ id: 'acme/side', version: '0.2.0' }, join(reg.registry.work, 'side'), [
      reg.registry.keyOf('acme'),
    ]);
    await arc.install({ file: known }, { approve: approveAll });
    expect((await arc.list())[0]).toMatchObject({ id: 'acme/side', version: '0.2.0', status: 'sideloaded' });
  });

  it('refuses a tampered local file before anything is installed', async () => {
    const file = await buildCapability({ id: 'local/bad', version: '0.1.0' }, join(reg.registry.work, 'side'), []);
    const bytes = await readFile(file);
    const at = bytes.length - 30;
    bytes.writeUInt8((bytes.readUInt8(at) ^ 0xff) & 0xff, at);
    await writeFile(file, bytes);
    const home = await reg.newHome();
    await expect(reg.arcotheon(home).install({ file }, { approve: approveAll, allowUnsigned: true })).rejects.toMatchObject({
      code: expect.stringMatching(/^E_(GZIP|TAR|HASH)$/),
    });
    expect(await reg.arcotheon(home).list()).toEqual([]);
  });
});

describe('installs that registries no longer describe', () => {
  it('keeps an installed capability resolvable after its registry is gone', async () => {
    const home = await reg.newHome();
    await reg.arcotheon(home).install('acme/app@^1.0.0', { approve: approveAll });
    const other = await LifecycleRegistry.create();
    await other.publishAll([{ id: 'beta/tool', version: '1.0.0' }]);
    // The same home, now configured with another registry only.
    const arc = other.arcotheon(home, {
      remotes: [{ name: 'other', url: other.registry.v1Url, rootKeys: [other.registry.rootKey.publicKey] }],
    });
    await arc.install('beta/tool', { approve: approveAll });
    expect((await arc.list()).map((c) => `${c.id}@${c.version}`)).toEqual(['acme/app@1.1.0', 'acme/lib@1.2.0', 'beta/tool@1.0.0']);
  });

  it('refuses a package whose workflow document is invalid at install, leaving nothing behind', async () => {
    // The builder refuses such a package, so it is written below it, as an attacker would.
    const workflow = Buffer.from(JSON.stringify({ 'adcap-workflow': '1.0', id: 'w', steps: [{ id: 'a', tool: 'no_such_tool' }] }));
    const readme = Buffer.from('# bad workflow\n');
    const manifest = {
      adcap: '1.0',
      id: 'local/badflow',
      version: '1.0.0',
      name: 'Bad workflow',
      summary: 'A workflow naming a tool that does not exist.',
      workflows: [{ path: 'workflows/w.json' }],
      files: [
        { path: 'README.md', sha256: sha256Hex(readme), size: readme.length },
        { path: 'workflows/w.json', sha256: sha256Hex(workflow), size: workflow.length },
      ],
    };
    const manifestBytes = Buffer.from(JSON.stringify(manifest));
    const file = join(reg.registry.work, 'badflow.adcap');
    await writeArchive(
      [
        { path: 'capability.json', size: manifestBytes.length, executable: false, open: () => manifestBytes },
        { path: 'README.md', size: readme.length, executable: false, open: () => readme },
        { path: 'workflows/w.json', size: workflow.length, executable: false, open: () => workflow },
      ],
      file,
    );
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await expect(arc.install({ file }, { approve: approveAll, allowUnsigned: true })).rejects.toMatchObject({
      code: 'E_SEMANTIC',
      message: expect.stringContaining('no_such_tool'),
    });
    expect(await arc.list()).toEqual([]);
    expect(await readdir(join(home, 'packages', 'local', 'badflow')).catch(() => [])).toEqual([]);
    // The failed operation undid itself at once: no journal is left for doctor.
    expect(await readdir(join(home, 'journal')).catch(() => [])).toEqual([]);
    expect((await arc.doctor({ checkRevocations: false })).problems).toEqual([]);
  });
});

describe('grants', () => {
  it('revokes and re-grants, never more than declared', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@^1.0.0', { approve: approveAll });
    expect(await arc.revokeGrant('acme/app', 'fs:read:workspace')).toEqual([]);
    expect((await arc.grants('acme/app')).granted).toEqual([]);
    await expect(arc.grant('acme/app', 'net:connect')).rejects.toMatchObject({ code: 'E_NOT_GRANTED' });
    expect(await arc.grant('acme/app', 'fs:read:workspace')).toEqual(['fs:read:workspace']);
    await expect(arc.revokeGrant('acme/app', 'env:read:HOME')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });
});

describe('update', () => {
  /** A registry where app 1.0.0 is installed first and newer versions are published afterwards. */
  async function installedThenPublished(
    later: Parameters<LifecycleRegistry['publish']>[0][],
  ): Promise<{ arc: ReturnType<LifecycleRegistry['arcotheon']>; local: LifecycleRegistry }> {
    const local = await LifecycleRegistry.create();
    await local.publishAll([
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead], tool: true },
    ]);
    const arc = local.arcotheon(await local.newHome());
    await arc.install('acme/app', { approve: approveAll });
    for (const spec of later) await local.publish(spec);
    await local.registry.build();
    return { arc, local };
  }

  it('finds a newer version and applies it without asking when it needs no new permission', async () => {
    const { arc } = await installedThenPublished([
      { id: 'acme/lib', version: '1.1.0' },
      { id: 'acme/app', version: '1.1.0', dependencies: { 'acme/lib': '^1.1.0' }, permissions: [fsRead], tool: true },
    ]);
    const result = await arc.update();
    expect(result).toMatchObject({ applied: true, needsApproval: false });
    expect(result.plan.items.map((i) => `${i.id}@${i.from}->${i.version}:${i.action}`)).toEqual([
      'acme/lib@1.0.0->1.1.0:upgrade',
      'acme/app@1.0.0->1.1.0:upgrade',
    ]);
    expect((await arc.list()).map((c) => `${c.id}@${c.version}`)).toEqual(['acme/app@1.1.0', 'acme/lib@1.1.0']);
    expect((await storeOf(arc).state('acme/app')).grants).toEqual(['fs:read:workspace']);
  });

  it('does not apply an update that needs new permissions until approved, and says exactly which', async () => {
    const { arc } = await installedThenPublished([
      { id: 'acme/app', version: '2.0.0', dependencies: { 'acme/lib': '^1.0.0' }, permissions: [fsRead, netApi, envToken], tool: true },
    ]);
    const held = await arc.update(['acme/app']);
    expect(held).toMatchObject({ applied: false, needsApproval: true });
    expect(held.plan.newPermissions.map((p) => p.grant)).toEqual(['net:connect:api.example.com', 'env:read:API_TOKEN']);
    expect(held.plan.report.lines.join('\n')).toMatch(/new permission: Connect to api\.example\.com/);
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');
    await expect(arc.update(['acme/app'], { approve: () => false })).rejects.toMatchObject({ code: 'E_DENIED' });
    expect((await arc.update(['acme/app'], { approve: approveAll })).applied).toBe(true);
    const state = await storeOf(arc).state('acme/app');
    expect(state.active).toBe('2.0.0');
    expect(state.grants).toEqual(['env:read:API_TOKEN', 'fs:read:workspace', 'net:connect:api.example.com']);
  });

  it('stays within the range the user asked for', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@~1.0.0', { approve: approveAll });
    expect((await arc.update()).plan.items).toEqual([]);
    expect((await storeOf(arc).state('acme/app')).active).toBe('1.0.0');
  });

  it('drops grants for permissions a new version no longer declares', async () => {
    const { arc } = await installedThenPublished([
      { id: 'acme/app', version: '1.2.0', dependencies: { 'acme/lib': '^1.0.0' }, tool: true },
    ]);
    await arc.update();
    expect((await storeOf(arc).state('acme/app')).grants).toEqual([]);
  });

  it('asks again for a permission the user revoked', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@1.0.0', { approve: approveAll });
    await arc.revokeGrant('acme/app', 'fs:read:workspace');
    const plan = await arc.plan('acme/app@1.1.0');
    expect(plan.newPermissions.map((p) => p.grant)).toEqual(['fs:read:workspace']);
  });
});

describe('rollback and history', () => {
  it('goes back to the previous version with the grants it had, and can go forward again', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/app@1.1.0', { approve: approveAll });
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    expect((await storeOf(arc).state('acme/app')).grants).toHaveLength(3);
    expect(await arc.rollback('acme/app')).toEqual({ id: 'acme/app', from: '2.0.0', to: '1.1.0' });
    const state = await storeOf(arc).state('acme/app');
    expect(state).toMatchObject({ active: '1.1.0', history: ['2.0.0'], grants: ['fs:read:workspace'] });
    expect(await arc.installedDir('acme/app')).toBe(join(home, 'packages', 'acme', 'app', '1.1.0'));
    expect((await arc.rollback('acme/app')).to).toBe('2.0.0');
  });

  it('keeps a rolled-back version when another capability is installed (a seed of the crash test found it moved forward)', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@1.1.0', { approve: approveAll });
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    expect((await arc.rollback('acme/app')).to).toBe('1.1.0');
    const result = await arc.install('acme/beta@1.0.0', { approve: approveAll });
    expect(result.plan.items.map((item) => `${item.id}@${item.version}`)).toEqual(['acme/beta@1.0.0']);
    expect(await storeOf(arc).state('acme/app')).toMatchObject({ active: '1.1.0', history: ['2.0.0'] });
    // An update of it moves it forward again, as the page's "Update to 2.0.0" says.
    await arc.update(['acme/app'], { approve: approveAll });
    expect((await storeOf(arc).state('acme/app')).active).toBe('2.0.0');
  });

  it('keeps two previous versions by default and removes older ones from disk', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    for (const v of ['1.0.0', '1.1.0', '1.2.0', '2.0.0']) await arc.install(`acme/lib@${v}`, { approve: approveAll });
    expect((await storeOf(arc).state('acme/lib')).history).toEqual(['1.1.0', '1.2.0']);
    expect((await readdir(join(home, 'packages', 'acme', 'lib'))).sort()).toEqual(['1.1.0', '1.2.0', '2.0.0', 'state.json']);
  });

  it('refuses a rollback that would break an installed dependent (E_DEPENDENTS)', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    // Asking again with a looser range changes no files, but records the range…
    expect((await arc.install('acme/lib@^1.0.0', { approve: approveAll })).applied).toBe(false);
    expect((await storeOf(arc).state('acme/lib')).range).toBe('^1.0.0');
    // app 2.0.0 needs lib ^1.1.0, so installing it moves lib on to 1.2.0 (1.0.0 stays in history).
    await arc.install('acme/app@2.0.0', { approve: approveAll });
    expect(await storeOf(arc).state('acme/lib')).toMatchObject({ active: '1.2.0', history: ['1.0.0'] });
    await expect(arc.rollback('acme/lib')).rejects.toMatchObject({
      code: 'E_DEPENDENTS',
      message: expect.stringContaining('acme/app needs acme/lib ^1.1.0'),
    });
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.2.0');
  });

  it('says there is nothing to roll back to when only one version was installed', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/lib', { approve: approveAll });
    await expect(arc.rollback('acme/lib')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(arc.rollback('acme/nothere')).rejects.toMatchObject({ code: 'E_NOT_INSTALLED' });
  });
});

describe('uninstall', () => {
  it('refuses while an installed capability depends on it (E_DEPENDENTS)', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@^1.0.0', { approve: approveAll });
    await expect(arc.uninstall('acme/lib')).rejects.toMatchObject({ code: 'E_DEPENDENTS', message: expect.stringContaining('acme/app') });
  });

  it('removes the capability and the dependencies nothing else needs', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/app@^1.0.0', { approve: approveAll });
    expect(await arc.uninstall('acme/app')).toEqual({ removed: ['acme/app', 'acme/lib'] });
    expect(await arc.list()).toEqual([]);
    expect(await readdir(join(home, 'packages', 'acme'))).toEqual([]);
  });

  it('keeps a dependency that another installed capability still needs', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install(['acme/app@^1.0.0', 'acme/other'], { approve: approveAll });
    expect((await arc.uninstall('acme/app')).removed).toEqual(['acme/app']);
    expect((await arc.list()).map((c) => c.id)).toEqual(['acme/lib', 'acme/other']);
  });
});

describe('doctor', () => {
  it('finds a file changed after installation and reinstalls it from the cache', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    const readme = join(await arc.installedDir('acme/lib'), 'README.md');
    await chmod(readme, 0o644);
    await writeFile(readme, 'tampered');
    const report = await arc.doctor();
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.objectContaining({ kind: 'damaged-install', id: 'acme/lib', message: expect.stringContaining('README.md was changed') }),
    ]);
    const dry = await arc.doctor({ fix: true, dryRun: true });
    expect(dry.problems[0]?.fixed).toBeUndefined();
    const fixed = await arc.doctor({ fix: true });
    expect(fixed.problems[0]?.fixed).toMatch(/cache/);
    expect(await readFile(readme, 'utf8')).toMatch(/^# acme\/lib 1\.0\.0/);
    expect((await arc.doctor()).ok).toBe(true);
  });

  it('reinstalls from the registry when the cached archive is gone too', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    const { removeTree } = await import('../../../sdk/src/util/fs-tree.js');
    await removeTree(await arc.installedDir('acme/lib'));
    await removeTree(join(home, 'cache'));
    const fixed = await arc.doctor({ fix: true });
    expect(fixed.problems.map((p) => p.fixed)).toEqual([expect.stringMatching(/registry/)]);
    expect((await arc.doctor()).ok).toBe(true);
  });

  it('reports a revoked installed version and a missing dependency, which it cannot fix', async () => {
    const local = await LifecycleRegistry.create();
    await local.publishAll([
      { id: 'acme/x', version: '1.0.0' },
      { id: 'acme/y', version: '1.0.0', dependencies: { 'acme/x': '^1.0.0' } },
    ]);
    const home = await local.newHome();
    const arc = local.arcotheon(home);
    await arc.install('acme/y', { approve: approveAll });
    await revokeVersion(local.registry.dir, 'acme/y', '1.0.0', 'malicious');
    await local.registry.build();
    // Simulate a dependency lost outside Arcotheon (the state file removed by hand).
    const { rm } = await import('node:fs/promises');
    await rm(join(home, 'packages', 'acme', 'x'), { recursive: true, force: true, maxRetries: 0 }).catch(async () => {
      const { removeTree } = await import('../../../sdk/src/util/fs-tree.js');
      await removeTree(join(home, 'packages', 'acme', 'x'));
    });
    const fresh = local.arcotheon(home);
    await (await storeOf(fresh).sources.client('test')).update();
    const report = await fresh.doctor({ fix: true });
    expect(report.problems.map((p) => p.kind).sort()).toEqual(['missing-dependency', 'revoked']);
    expect(report.ok).toBe(false);
  });

  it('drops a corrupt cache entry', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/lib@1.0.0', { approve: approveAll });
    const [sha] = await storeOf(arc).cache.entries();
    const blob = storeOf(arc).cache.pathFor(sha!);
    await chmod(blob, 0o644);
    await writeFile(blob, 'garbage');
    const report = await arc.doctor({ fix: true });
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'corrupt-cache-entry', fixed: 'removed' })]);
    expect(await storeOf(arc).cache.entries()).toEqual([]);
  });
});
