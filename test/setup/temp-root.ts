/**
 * The temporary folders of a unit test run: every run gets one root under the
 * system temp folder, every test file its own folder inside it (TMPDIR, so `os.tmpdir()` in the
 * file and in every child process it spawns points there), removed after the file's tests. The
 * global teardown reports anything left in the root and removes the root.
 */
import { lstat, mkdir, readdir, symlink } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';

/** Environment variables the global setup hands to the test workers. */
export const RUN_ROOT_ENV = 'ARCOTHEON_TEST_TMP_ROOT';
export const SYSTEM_TMP_ENV = 'ARCOTHEON_TEST_SYSTEM_TMP';

/**
 * Caches that tools keep in the temp folder by name (tsx's transform cache, Node's compile cache,
 * jiti's): each per-file folder links them to the system temp folder, so child processes share one
 * warm cache instead of compiling the SDK again in every test file.
 */
export function cacheNames(): string[] {
  const uid = typeof process.geteuid === 'function' ? String(process.geteuid()) : userInfo().username;
  return [`tsx-${uid}`, 'node-compile-cache', 'jiti'];
}

export async function linkCaches(folder: string, systemTmp: string): Promise<void> {
  for (const name of cacheNames()) {
    const target = join(systemTmp, name);
    await mkdir(target, { recursive: true });
    const link = join(folder, name);
    const existing = await lstat(link).catch(() => null);
    if (existing === null) await symlink(target, link, 'dir');
  }
}

/**
 * The folder of the run's root where test/helpers/spawn-ts.ts keeps the fixtures it bundled, one
 * per script, shared by the workers; the global teardown removes it with the root.
 */
export const BUNDLES_FOLDER = 'bundles';

/** The entries of `folder` that are not the cache links or the bundles. */
export async function leftovers(folder: string): Promise<string[]> {
  const caches = new Set([...cacheNames(), BUNDLES_FOLDER]);
  return (await readdir(folder).catch(() => [])).filter((name) => !caches.has(name));
}
