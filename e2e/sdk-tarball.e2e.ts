// The README's "The commands on your PATH": `npm run pack:sdk`, then the tarball installed with npm
// into an empty folder outside the repository, and its `adcap` run from there exactly as a user
// would, with an environment that holds no ARCOTHEON_* variable: `--version`, then `search`, which
// must find the examples in the registry the package carries (the built-in remote). npm resolves the
// SDK's dependencies from the npm registry, as it does for a user.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSdk } from './helpers/pack-sdk.js';
import { userEnv } from './helpers/user-env.js';

const run = promisify(execFile);

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-tarball-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the packed SDK installed outside the repository', () => {
  it('npm run pack:sdk, npm install <tarball>, adcap --version and adcap search from there', { timeout: 600_000 }, async () => {
    const home = join(work, 'user');
    await mkdir(home);
    const env = userEnv(home);
    const { tarball, version } = await packSdk(join(work, 'pack'), env);

    const app = join(work, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'someone-elses-folder', private: true }));
    const installed = await run('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 });
    // The packed package.json runs nothing on install and points nowhere into the repository.
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/install-scripts|prepare|\.\.\/build/);
    const packed = JSON.parse(await readFile(join(app, 'node_modules', '@arcotheon', 'sdk', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    expect(Object.keys(packed.scripts ?? {}).filter((s) => /^(pre|post)?(install|prepare|pack)$/.test(s))).toEqual([]);

    const adcap = join(app, 'node_modules', '.bin', 'adcap');
    const shown = await run(adcap, ['--version'], { cwd: app, env });
    expect(shown.stdout.trim()).toBe(version);
    const found = await run(adcap, ['search', 'csv'], { cwd: app, env });
    expect(found.stdout).toMatch(/^acme\/csv-summary@1\.0\.0 {2}CSV summary/m);
    // The home is the user's default one, under their data folder; the registry is the package's copy.
    expect(existsSync(join(home, '.local', 'share', 'arcotheon'))).toBe(true);
    const remotes = await run(adcap, ['remote', 'list', '--json'], { cwd: app, env });
    const [builtIn] = JSON.parse(remotes.stdout) as Array<{ url: string; builtIn?: boolean }>;
    expect(builtIn?.builtIn).toBe(true);
    expect(builtIn?.url.startsWith(`file://${join(app, 'node_modules', '@arcotheon', 'sdk', 'registry', 'v1')}`)).toBe(true);
  });
});
