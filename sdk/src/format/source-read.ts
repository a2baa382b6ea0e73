/**
 * Reading the text files of a source folder (a skills repository at `adcap init`, a capability's
 * folder at build): only regular files inside the folder, each up to a size limit (SECURITY.md,
 * "Source folders"). A repository is someone else's content: a SKILL.md that is a link to `/dev/stdin` would hang
 * the reader, one to `/dev/zero` would fill memory, a 300 MiB file would exhaust the heap, and a
 * link to `~/.ssh/id_ed25519` would copy a secret into capability.json. Links that stay inside the
 * folder are followed, as `git` checks them out; anything else is refused with the path.
 */
import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { AdcapError, asAdcapError } from '../errors.js';

/** A SKILL.md, README or LICENSE is prose: a larger one is not what it claims to be. */
export const MAX_SOURCE_TEXT_BYTES = 1024 * 1024;

/**
 * The text of `root/relativePath`, or null when it does not exist. Throws E_ENTRY_TYPE when the
 * path, followed through links, leaves `root` or is not a regular file (device, FIFO, socket,
 * folder), and E_LIMIT when it holds more than `maxBytes`. The file is opened non-blocking and
 * checked on its descriptor, so a FIFO swapped in after the check cannot block the read.
 */
export async function readSourceText(root: string, relativePath: string, maxBytes = MAX_SOURCE_TEXT_BYTES): Promise<string | null> {
  const bytes = await readSourceBytes(root, relativePath, maxBytes);
  return bytes === null ? null : bytes.toString('utf8');
}

/** As readSourceText, the bytes. */
export async function readSourceBytes(root: string, relativePath: string, maxBytes = MAX_SOURCE_TEXT_BYTES): Promise<Buffer | null> {
  const path = join(root, relativePath);
  let real: string;
  let realRoot: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw asAdcapError(error, `Cannot read ${path}`);
    // A link that leads nowhere a path can name (/dev/stdin on a pipe is /proc/self/fd/0 -> "pipe:[…]").
    if ((await lstat(path).catch(() => null))?.isSymbolicLink() === true) {
      throw new AdcapError(
        'E_ENTRY_TYPE',
        `${path} is a symbolic link that leads to no file inside ${root}; only regular files inside the folder are read.`,
        { details: { path: relativePath } },
      );
    }
    return null;
  }
  const inside = relative(realRoot, real);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new AdcapError(
      'E_ENTRY_TYPE',
      `${path} is a link to ${real}, outside ${root}; only files inside the folder are read. Replace the link with a copy of the file.`,
      { details: { path: relativePath } },
    );
  }
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer; O_NOFOLLOW: `real` has no links left.
    handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    throw asAdcapError(error, `Cannot read ${path}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const kind = info.isDirectory() ? 'a folder' : 'a special file (device, FIFO or socket)';
      throw new AdcapError('E_ENTRY_TYPE', `${path} is ${kind}; only regular files are read. Replace it with a regular file.`, {
        details: { path: relativePath },
      });
    }
    if (info.size > maxBytes) throw overLimit(path, relativePath, info.size, maxBytes);
    // One byte more than the limit: a file that grew since fstat is caught without reading it all.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw overLimit(path, relativePath, filled, maxBytes);
    return buffer.subarray(0, filled);
  } catch (error) {
    throw asAdcapError(error, `Cannot read ${path}`);
  } finally {
    await handle.close();
  }
}

function overLimit(path: string, relativePath: string, size: number, maxBytes: number): AdcapError {
  return new AdcapError(
    'E_LIMIT',
    `${path} holds ${size} bytes or more, over the ${maxBytes}-byte limit for this file; it cannot be the text it should be.`,
    { details: { path: relativePath, limit: maxBytes } },
  );
}
