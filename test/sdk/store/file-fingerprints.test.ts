// The stat fingerprints of installed files (SECURITY.md "Installed files"): recorded when a version
// is extracted, and removed with the version, so fingerprints/ holds only installed versions.
import { chmod, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInstalledFiles } from '../../../sdk/src/store/file-fingerprints.js';
import { nodeTool, RunHome } from '../run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
beforeAll(async () => {
  h = await RunHome.create();
});
afterAll(() => h.remove());

const spec = (version: string) => ({
  id: 'acme/printed',
  version,
  tools: [nodeTool('echo', 'echo.mjs')],
  files: { 'tools/echo.mjs': 'echo.mjs' },
});

describe('fingerprints follow the installed versions', () => {
  it('are recorded at install, kept for the rollback version, and removed at uninstall', async () => {
    const arc = h.arc({ limits: { keepVersions: 1 } });
    await h.install(spec('1.0.0'), arc);
    const first = storeOf(arc).home.fingerprintFile('acme/printed', '1.0.0');
    expect((await stat(first)).isFile()).toBe(true);
    // Recorded from the files just verified: a check right after install hashes nothing.
    const manifest = await arc.readInstalledManifest('acme/printed', '1.0.0');
    expect(await checkInstalledFiles(storeOf(arc).home, 'acme/printed', '1.0.0', manifest)).toEqual({ files: 1, hashed: 0 });

    await h.install(spec('2.0.0'), arc);
    await h.install(spec('3.0.0'), arc);
    const folder = dirname(first);
    expect((await readdir(folder)).sort(), 'one version kept for rollback, 1.0.0 pruned').toEqual(['2.0.0.json', '3.0.0.json']);

    await arc.uninstall('acme/printed');
    await expect(stat(folder)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a check walks small packages with synchronous calls and large ones with promises, to the same verdicts', () => {
  /** Installs `id` with `count` data files; returns the check of it and its folder. */
  async function installedWith(id: string, count: number) {
    const arc = h.arc();
    const files: Record<string, string | { text: string }> = { 'tools/echo.mjs': 'echo.mjs' };
    for (let i = 0; i < count; i++) files[`data/f${i}.txt`] = { text: `file ${i}\n` };
    await h.install({ id, tools: [nodeTool('echo', 'echo.mjs')], files }, arc);
    const home = storeOf(arc).home;
    const manifest = await arc.readInstalledManifest(id, '1.0.0');
    const dir = home.versionDir(id, '1.0.0');
    return { check: () => checkInstalledFiles(home, id, '1.0.0', manifest), dir, files: count + 1 };
  }
  const writable = async (dir: string): Promise<void> => {
    await chmod(dir, 0o755);
    await chmod(join(dir, 'data'), 0o755);
  };

  for (const [label, count] of [
    ['small (3 files)', 2],
    ['large (301 files)', 300],
  ] as const) {
    it(`${label}: intact, then a file added, removed and rewritten are each refused`, async () => {
      const { check, dir, files } = await installedWith(`acme/walk-${count}`, count);
      expect(await check()).toEqual({ files, hashed: 0 });
      await writable(dir);
      await writeFile(join(dir, 'data', 'added.txt'), 'x');
      await expect(check()).rejects.toMatchObject({ code: 'E_UNLISTED', details: { path: 'data/added.txt' } });
      await rm(join(dir, 'data', 'added.txt'));
      await rm(join(dir, 'data', 'f1.txt'));
      await expect(check()).rejects.toMatchObject({ code: 'E_MISSING', details: { path: 'data/f1.txt' } });
      await writeFile(join(dir, 'data', 'f1.txt'), 'file 9\n'); // same size, other bytes
      await expect(check()).rejects.toMatchObject({ code: 'E_HASH', details: { path: 'data/f1.txt' } });
      await writeFile(join(dir, 'data', 'f1.txt'), 'file 1\n'); // the signed bytes again: hashed, then accepted
      expect(await check()).toEqual({ files, hashed: 1 });
    });
  }

  it('a small package whose folders hold more entries than the synchronous walk takes is still walked in full', async () => {
    const { check, dir } = await installedWith('acme/walk-crowded', 2);
    await writable(dir);
    // 400 empty folders, then one unlisted file in the last: past the budget, the walk goes on with promises.
    for (let i = 0; i < 400; i++) await mkdir(join(dir, 'data', `d${String(i).padStart(3, '0')}`));
    await writeFile(join(dir, 'data', 'd399', 'hidden.txt'), 'x');
    await expect(check()).rejects.toMatchObject({ code: 'E_UNLISTED', details: { path: 'data/d399/hidden.txt' } });
  });
});
