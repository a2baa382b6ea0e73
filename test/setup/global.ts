/**
 * Global setup of the unit and e2e projects:
 * - one temporary root for the run (see temp-root.ts); the teardown fails the run if anything is
 *   left in it (a test file whose folder was not removed, or a process that wrote beside it);
 * - NODE_COMPILE_CACHE, so the Node processes the tests start share one compile cache (the
 *   TypeScript fixtures they start are bundled from the source: test/helpers/spawn-ts.ts).
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_ROOT_ENV, SYSTEM_TMP_ENV, leftovers, linkCaches } from './temp-root.js';

export default async function setup(): Promise<() => Promise<void>> {
  const systemTmp = tmpdir();
  // Not "arcotheon-…": a path segment naming Arcotheon is where capabilities are installed, and
  // manifests that grant fs:write on a test folder would be refused (spec §3.2 fs-write-own-dir).
  const root = await mkdtemp(join(systemTmp, 'adcap-tests-'));
  await linkCaches(root, systemTmp);
  process.env[RUN_ROOT_ENV] = root;
  process.env[SYSTEM_TMP_ENV] = systemTmp;
  // Anything a worker writes before its file's own folder exists lands in the root, and is reported.
  process.env['TMPDIR'] = root;
  // Node's compile cache for every Node process the tests start (the CLI, arcotheon ui, fixtures,
  // the workers): ~20% less CPU a start (0.45 s → 0.36 s for the CLI). It is one of the caches
  // linked into every per-file folder (temp-root.ts), kept in the system temp folder across runs.
  process.env['NODE_COMPILE_CACHE'] ??= join(systemTmp, 'node-compile-cache');
  return async () => {
    const left = await leftovers(root);
    // A folder left behind is usually one a process recreated after its file's folder was removed
    // (a child still starting, with TMPDIR pointing there): what it holds names the culprit.
    const kinds = await Promise.all(
      left.map(async (name) => {
        const folder = (await stat(join(root, name)).catch(() => null))?.isDirectory() === true;
        if (!folder) return `${name} (file)`;
        const inside = await readdir(join(root, name), { recursive: true }).catch(() => []);
        const more = inside.length > 12 ? ', …' : '';
        return `${name} (folder${inside.length === 0 ? '' : `, holding ${inside.slice(0, 12).join(', ')}${more}`})`;
      }),
    );
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0) {
      const what = `${left.length} entr${left.length === 1 ? 'y' : 'ies'}`;
      throw new Error(`the tests left ${what} in their temporary root ${root}: ${kinds.join(', ')}`);
    }
  };
}
