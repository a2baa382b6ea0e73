// An install from a registry downloads, verifies and extracts each archive in one
// read, before the journal, beside the version's final place; the switch renames it in. What a
// failed install prepared is removed: a later item whose mirror holds other bytes leaves no package
// directory, no prepared directory and no cache entry for the bad archive behind.
import { createHash } from 'node:crypto';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { blobRelativePath } from '../../../sdk/src/registry/layout.js';
import { MANIFEST_CHECKS } from '../../../sdk/src/store/file-fingerprints.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;
let appSha = '';
let libSha = '';

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  libSha = (await readPackage(await reg.publish({ id: 'acme/lib', version: '1.0.0' }))).archiveSha256;
  appSha = (await readPackage(await reg.publish({ id: 'acme/app', version: '1.0.0', dependencies: { 'acme/lib': '^1.0.0' }, tool: true })))
    .archiveSha256;
  await reg.publish({ id: 'acme/solo', version: '1.0.0', tool: true });
  await reg.registry.build();
});
const homes: string[] = [];
afterAll(async () => {
  for (const home of homes) await removeTree(home);
  await reg.registry.cleanup();
});

async function newHome(): Promise<string> {
  const home = await reg.newHome();
  homes.push(home);
  return home;
}

async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory()) out.push(...(await tree(path)));
  }
  return out;
}

describe('install from a registry in one read of each archive', () => {
  it('extracts read-only files, keeps the archive in the cache and leaves no prepared directory', async () => {
    const home = await newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/solo', { approve: () => true });
    const dir = await arc.installedDir('acme/solo');
    expect(await readdir(join(home, 'packages', 'acme', 'solo'))).toEqual(['1.0.0', 'state.json'].sort());
    expect((await readFile(join(dir, 'README.md'), 'utf8')).startsWith('# acme/solo 1.0.0')).toBe(true);
    const problems = (await arc.doctor({ checkRevocations: false })).problems.filter((p) => p.kind !== 'missing-sandbox');
    expect(problems).toEqual([]);
    const cached = (await tree(join(home, 'cache', 'sha256'))).filter((p) => /[0-9a-f]{64}$/.test(p));
    expect(cached).toHaveLength(1);
    expect(await readdir(join(home, 'cache', 'tmp'))).toEqual([]);
  });

  it('records the manifest check under the SHA-256 of the capability.json the extraction checked and wrote', async () => {
    const home = await newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/solo', { approve: () => true });
    const written = await readFile(join(await arc.installedDir('acme/solo'), 'capability.json'));
    const record = JSON.parse(await readFile(storeOf(arc).home.fingerprintFile('acme/solo', '1.0.0'), 'utf8')) as {
      manifest?: { sha256: string; checks: string };
    };
    expect(record.manifest).toEqual({ sha256: createHash('sha256').update(written).digest('hex'), checks: MANIFEST_CHECKS });
  });

  it('removes what it prepared when a later item of the plan cannot be downloaded', async () => {
    const blob = reg.registry.path(`v1/${blobRelativePath(appSha)}`);
    const original = await readFile(blob);
    await chmod(blob, 0o644);
    await writeFile(blob, Buffer.alloc(original.length, 0x20)); // same size, other bytes
    try {
      const home = await newHome();
      const arc = reg.arcotheon(home);
      const plan = await arc.plan('acme/app');
      expect(plan.items.map((i) => i.id)).toEqual(['acme/lib', 'acme/app']);
      const error = await arc.install('acme/app', { approve: () => true }).then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(error?.code).toBe('E_DOWNLOAD');
      expect(await arc.list()).toEqual([]);
      // acme/lib was downloaded, verified and extracted before acme/app failed: nothing of it is left
      // under packages/, though its verified archive stays in the cache for the next attempt.
      expect(await tree(join(home, 'packages'))).toEqual([]);
      const cached = (await tree(join(home, 'cache', 'sha256'))).filter((p) => /[0-9a-f]{64}$/.test(p)).map((p) => p.slice(-64));
      expect(cached).toEqual([libSha]);
      expect(await readdir(join(home, 'cache', 'tmp'))).toEqual([]);
    } finally {
      await writeFile(blob, original);
    }
  });
});
