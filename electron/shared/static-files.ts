import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * The one way the built renderer (renderer/dist) is served from a folder, by both of its servers:
 * the `arcotheon ui` web host (electron/web.ts) and the window's `app://` protocol
 * (electron/main/policy.ts serveAppRequest). A request names a path; it reaches a file only when
 *   1. after percent-decoding it has no NUL, no backslash and no `.` or `..` segment, and
 *   2. after resolving every link, the file is still inside the root's real path, and
 *   3. it is a regular file.
 * The second rule is what a path check alone misses: a symlink inside the build that points
 * elsewhere (Electron's security checklist, "custom protocols"; OWASP path traversal).
 */

/** A decoded URL path to a path relative to the root (`/` is index.html), or null when refused. */
export function staticRelativePath(decodedPath: string): string | null {
  if (decodedPath.includes('\0') || decodedPath.includes('\\')) return null;
  const segments = decodedPath.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) return null;
  return segments.length === 0 ? 'index.html' : segments.join('/');
}

type StaticFile = { status: 200; file: string; size: number } | { status: 403 | 404 };

/**
 * The regular file at `relativePath` under `root`, by its real path: 403 when following links
 * leaves the root, 404 when it is missing or not a regular file (or the root itself is missing).
 */
export async function openStaticFile(root: string, relativePath: string): Promise<StaticFile> {
  const checked = staticRelativePath(relativePath);
  if (checked === null) return { status: 403 };
  const realRoot = await realpath(root).catch(() => null);
  if (realRoot === null) return { status: 404 };
  const file = await realpath(join(realRoot, checked)).catch(() => null);
  if (file === null) return { status: 404 };
  const rel = relative(realRoot, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { status: 403 };
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) return { status: 404 };
  return { status: 200, file, size: info.size };
}
