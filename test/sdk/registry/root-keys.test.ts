// host contract "Embedding" 2: `new Arcotheon({ home, rootKeys:
// ARCOTHEON_ROOT_KEYS, host })` gives a working catalogue, in a checkout and, above all, from the
// published package: the SDK is packed by build/pack-sdk.mjs (`npm run pack:sdk`, from a staged copy
// of the package folder with the dist/ this checkout built), the tarball unpacked into a fresh
// folder's node_modules, and a host there searches the registry the package carries. The SDK's
// own dependencies are linked from this repository's node_modules (npm's cache here holds
// tarballs but not registry metadata, so `npm install --offline` of the tarball cannot resolve
// them; linking resolves exactly what an install would).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedRemote } from '../../../sdk/src/registry/embedded.js';
import { ARCOTHEON_ROOT_KEYS } from '../../../sdk/src/registry/root-keys.js';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { assertBuilt } from '../../helpers/built.js';
import { rejection } from '../../helpers/errors.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SDK = join(REPO, 'sdk');
const HOST = { platform: 'linux-x64', agent: { id: 'arcotheon', version: '1.0.0' } };
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
// npm keeps its logs and cache in the user's home: here, in the test's temporary folder.
const npmEnv = (): NodeJS.ProcessEnv => ({ ...env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' });

let work = '';
beforeAll(async () => {
  // The package is packed from the dist/ this checkout built: refuse a stale one.
  await assertBuilt('sdk');
  work = await mkdtemp(join(tmpdir(), 'adcap-root-keys-'));
});
afterAll(async () => {
  // Unset when beforeAll failed (a stale build): that failure is the one to read.
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe('ARCOTHEON_ROOT_KEYS in a checkout', () => {
  it('are the pinned keys of the registry the SDK ships, and that registry is the default remote', async () => {
    const shipped = shippedRemote();
    expect(shipped, 'the example registry must be built (npm run examples) for this test').not.toBeNull();
    expect(ARCOTHEON_ROOT_KEYS).toEqual(shipped?.rootKeys);
    expect(Object.isFrozen(ARCOTHEON_ROOT_KEYS)).toBe(true);
    const arc = new Arcotheon({
      home: join(work, 'checkout-home'),
      rootKeys: ARCOTHEON_ROOT_KEYS,
      host: HOST,
      runtimes: { node: '22.12.0', python: '3.11.7' },
    });
    expect((await storeOf(arc).sources.remotes()).map((r) => r.name)).toEqual([shipped?.name]);
    const hits = await arc.search('csv');
    expect(hits.map((h) => h.id)).toContain('acme/csv-summary');
    expect(new Set(hits.map((h) => h.remote))).toEqual(new Set([shipped?.name]));
  });

  it('an instance that names its remotes, or none ([]), gets no default', async () => {
    const arc = new Arcotheon({ home: join(work, 'no-default'), host: HOST, remotes: [] });
    expect(await storeOf(arc).sources.remotes()).toEqual([]);
  });

  it('root keys the host pins replace the shipped pin, so a different key refuses the catalogue', async () => {
    const arc = new Arcotheon({ home: join(work, 'other-key'), rootKeys: [generateKey().publicKey], host: HOST });
    expect((await rejection(arc.search('csv'))).code).toBe('E_CATALOG');
  });
});

describe('ARCOTHEON_ROOT_KEYS from the published package', () => {
  it('npm pack carries the registry; a host in a fresh folder searches it with the exported keys', { timeout: 600_000 }, async () => {
    const packDir = join(work, 'pack');
    await mkdir(packDir);
    // What `npm run pack:sdk` runs: the package is packed from a staged copy with the registry.
    await run(process.execPath, [join(REPO, 'build', 'pack-sdk.mjs'), '--pack-destination', packDir], {
      env: npmEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    // The checkout itself never holds the copy.
    expect(existsSync(join(SDK, 'registry'))).toBe(false);
    const { version, dependencies } = JSON.parse(await readFile(join(SDK, 'package.json'), 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    const tarball = join(packDir, `arcotheon-sdk-${version}.tgz`);
    const listing = (await run('tar', ['tzf', tarball])).stdout.split('\n');
    expect(listing).toContain('package/registry/embedded-remote.json');
    expect(listing).toContain('package/registry/v1/catalog.json');
    // No signing key of any kind travels with the package.
    expect(listing.filter((p) => /key/i.test(p) && !p.startsWith('package/dist/') && !p.startsWith('package/registry/v1/'))).toEqual([]);

    const app = join(work, 'app');
    const installed = join(app, 'node_modules', '@arcotheon', 'sdk');
    await mkdir(installed, { recursive: true });
    await run('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
    for (const dep of Object.keys(dependencies)) {
      await mkdir(dirname(join(app, 'node_modules', dep)), { recursive: true });
      await symlink(join(REPO, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
    }
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'host-app', version: '1.0.0', type: 'module', private: true }));
    await writeFile(
      join(app, 'host.mjs'),
      [
        "import { Arcotheon, ARCOTHEON_ROOT_KEYS, shippedRemote } from '@arcotheon/sdk';",
        // The remotes in force (the shipped one) through the app's internal view: the class keeps its store to itself.
        "import { hostStore } from '@arcotheon/sdk/internal';",
        'const arc = new Arcotheon({ home: process.argv[2], rootKeys: ARCOTHEON_ROOT_KEYS, ' +
          "host: { platform: 'linux-x64', agent: { id: 'arcotheon', version: '1.0.0' } } });",
        "const hits = await arc.search('csv');",
        'console.log(JSON.stringify({ keys: ARCOTHEON_ROOT_KEYS, url: shippedRemote().url, ' +
          'remotes: (await hostStore(arc).remotes()).map((r) => r.name), hits: hits.map((h) => h.id) }));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['host.mjs', join(app, 'home')], { cwd: app, env });
    const result = JSON.parse(stdout) as { keys: string[]; url: string; remotes: string[]; hits: string[] };
    const pin = JSON.parse(await readFile(join(installed, 'registry', 'embedded-remote.json'), 'utf8')) as {
      rootKeys: string[];
      name: string;
    };
    expect(result.keys).toEqual(pin.rootKeys);
    expect(result.keys.length).toBeGreaterThan(0);
    // The catalogue comes from the package's own copy, not from this checkout.
    expect(result.url.startsWith(`file://${installed}/registry/v1/`)).toBe(true);
    expect(result.remotes).toEqual([pin.name]);
    expect(result.hits).toContain('acme/csv-summary');
  });
});
