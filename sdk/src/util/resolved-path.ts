/**
 * Paths compared as the file system sees them: `~` expanded, `.` and
 * `..` removed, and symbolic links resolved, through the longest prefix that exists (a path that
 * does not exist yet is the real path of its nearest existing folder with the missing rest
 * appended). Two spellings of one folder (`~/.ssh`, `/home/alice/.ssh`, a link to it) resolve to
 * the same string, so a rule written in one spelling covers the others.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** `~` and `~/…` against `home`; anything else resolved against `cwd` (default: the process's). */
export function expandHome(p: string, home: string, cwd?: string): string {
  if (p === '~') return path.resolve(home);
  if (p.startsWith('~/')) return path.resolve(home, p.slice(2));
  return cwd === undefined ? path.resolve(p) : path.resolve(cwd, p);
}

/** The real path of `p` (home expanded, `..` removed, links resolved through the longest existing prefix). */
export function resolvedPath(p: string, home?: string): string {
  const absolute = home === undefined ? path.resolve(p) : expandHome(p, home);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    let real: string | null;
    try {
      real = realpathSync.native(current);
    } catch {
      real = null;
    }
    if (real !== null) return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    const parent = path.dirname(current);
    if (parent === current) return absolute;
    missing.push(path.basename(current));
    current = parent;
  }
}

/** Whether `child` is `parent` or inside it (both already resolved). */
export function isSameOrInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
