import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes a directory tree that may have been made read-only (installs are read-only, DESIGN §6):
 * directories are made writable again first, because unlinking a file needs write access to its
 * directory. Missing trees are fine.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await makeWritable(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(dir, { recursive: true, force: true });
}

async function makeWritable(path: string): Promise<void> {
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  await chmod(path, 0o755);
  for (const entry of await readdir(path)) await makeWritable(join(path, entry));
}
