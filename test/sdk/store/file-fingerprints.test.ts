// The stat fingerprints of installed files (SECURITY.md "Installed files"): recorded when a version
// is extracted, and removed with the version, so fingerprints/ holds only installed versions.
import { readdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
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
