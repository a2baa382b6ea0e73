import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsync, openSync } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const fsyncFd = promisify(fsync);

/**
 * Atomic file writes (DESIGN §6): write a temp file beside the target with O_EXCL, fsync it, rename
 * it over the target and fsync the directory, so a crash leaves either the old or the new content.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | readonly Uint8Array[],
  options: { mode?: number } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode ?? 0o644);
    // Parts are written one after the other (each in full), without joining them in memory.
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else for (const part of data) await handle.writeFile(part);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await fsyncDir(dirname(path));
}

/** Pretty-printed JSON with a trailing newline, written atomically. */
export async function writeJsonAtomic(path: string, value: unknown, options: { mode?: number } = {}): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** A unique temp name in the same directory (so the rename never crosses file systems). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** fsync a directory so a rename inside it survives a crash. Some platforms refuse; that is not fatal. */
export async function fsyncDir(dir: string): Promise<void> {
  // Opened and closed with synchronous calls (metadata calls that return at once; a promise would
  // cost a thread-pool round trip each, on the path of every audit line); only the wait for the disk is not.
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY);
  } catch {
    return; // Windows cannot open directories for fsync; the rename is still atomic there.
  }
  try {
    await fsyncFd(fd);
  } catch {
    // Not fatal: some file systems refuse to fsync a directory.
  } finally {
    closeSync(fd);
  }
}
