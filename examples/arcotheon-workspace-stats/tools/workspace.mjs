// Safe access to the workspace folder the user chose for this run (permission fs:read:workspace).
// Paths in tool input are relative to the workspace; anything that would leave it is refused
// here, even though the host's sandbox would refuse it too.
import { lstat, open, readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './protocol.mjs';

const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', 'dist', 'build', '.next', 'target']);
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

export function workspaceRoot(context) {
  if (typeof context.workspace !== 'string' || context.workspace === '') {
    throw new ToolError('This tool works on a folder: choose a workspace folder for the run (adcap run ... --workspace DIR).');
  }
  return context.workspace;
}

/** Resolves a user-supplied relative path inside the workspace. */
export function insideWorkspace(root, path) {
  if (isAbsolute(path)) throw new ToolError(`"${path}" is absolute; give a path relative to the workspace folder.`);
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel === '..' || rel.startsWith(`..${sep}`)) throw new ToolError(`"${path}" is outside the workspace folder.`);
  return full;
}

/** Workspace-relative path with forward slashes, for output. */
export function displayPath(root, full) {
  return relative(root, full).split(sep).join('/') || '.';
}

/**
 * Yields regular files under `start` (a file or a folder), sorted, without following symbolic
 * links and skipping dependency and VCS folders. Stops after `maxFiles`.
 */
export async function* walkFiles(start, { extensions, maxFiles }) {
  let count = 0;
  const wanted = (name) => extensions === undefined || extensions.length === 0 || extensions.some((ext) => name.endsWith(ext.startsWith('.') ? ext : `.${ext}`));
  async function* visit(path) {
    const info = await lstat(path).catch(() => null);
    if (info === null) return;
    if (info.isFile()) {
      if (wanted(path) && count < maxFiles) {
        count++;
        yield { path, size: info.size };
      }
      return;
    }
    if (!info.isDirectory()) return; // symlinks, sockets, devices: not followed
    const names = (await readdir(path)).sort();
    for (const name of names) {
      if (count >= maxFiles) return;
      if (SKIPPED_DIRS.has(name)) continue;
      yield* visit(join(path, name));
    }
  }
  const info = await lstat(start).catch(() => null);
  if (info === null) throw new ToolError(`There is no file or folder "${start}" in the workspace.`);
  yield* visit(start);
}

/** Reads a text file, or returns null for a binary file (a NUL byte in the first 8 KiB) or one over the size cap. */
export async function readText(path, size) {
  if (size > MAX_FILE_BYTES) return null;
  const handle = await open(path, 'r');
  try {
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8192).includes(0)) return null;
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}
