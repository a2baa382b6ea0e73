/**
 * Runs before every unit test file: the file gets its own temporary folder
 * (TMPDIR, inherited by the child processes it spawns), removed after the file's last hook, so
 * no test leaves anything in the system temp folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { RUN_ROOT_ENV, SYSTEM_TMP_ENV, linkCaches } from './temp-root.js';

const root = process.env[RUN_ROOT_ENV];
const systemTmp = process.env[SYSTEM_TMP_ENV];
if (root !== undefined && systemTmp !== undefined) {
  const folder = await mkdtemp(join(root, 'f-'));
  await linkCaches(folder, systemTmp);
  process.env['TMPDIR'] = folder;
  // Registered before the file's own hooks, so it runs after them (hooks run as a stack).
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true, maxRetries: 3 });
  });
}
