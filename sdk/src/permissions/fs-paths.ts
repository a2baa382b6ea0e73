/**
 * File scopes compared as the folders they name (DESIGN §5 fs:read / fs:write; docs/admin.md
 * `deniedPermissions`): `~` expanded against the user's home, `.`/`..` removed, and symbolic links
 * resolved (realpath of the longest existing prefix), so `fs:read:~/.ssh`, `fs:read:/home/alice/.ssh`
 * and a link to that folder are one folder to the policy, to grants and to doctor. The sandbox
 * binds what the scope names with links followed, so this is also what a tool would see.
 */
import os from 'node:os';
import { isSameOrInside, resolvedPath } from '../util/resolved-path.js';
import { FS_ROOT_PATTERNS, parseFsPatternScope } from './scopes.js';

/** The folder an fs scope (or a policy's `~/` and `/` pattern scopes) names, resolved; null for `workspace` or a bad scope. */
export function fsScopeFolder(scope: string, home: string = os.homedir()): string | null {
  const parsed = parseFsPatternScope(scope);
  if (typeof parsed === 'string' || parsed.kind === 'workspace') return null;
  if (Object.hasOwn(FS_ROOT_PATTERNS, scope)) return parsed.kind === 'home' ? resolvedPath(home) : '/';
  return resolvedPath(scope, home);
}

/** Whether the folder `granted` names holds the folder `needed` names (both resolved). */
export function fsFolderCovers(granted: string, needed: string, home?: string): boolean | undefined {
  const g = fsScopeFolder(granted, home);
  const n = fsScopeFolder(needed, home);
  if (g === null || n === null) return undefined;
  return isSameOrInside(n, g);
}
