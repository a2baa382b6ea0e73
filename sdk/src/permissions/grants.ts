import { AdcapError } from '../errors.js';
import type { Permission, PermissionId } from '../format/manifest-types.js';
import { fsFolderCovers } from './fs-paths.js';
import { PERMISSION_IDS, PERMISSION_TABLE, scopeProblem, type PermissionKind } from './table.js';

export { PERMISSION_IDS } from './table.js';

/** Whether `value` is a permission id of the catalogue (spec §6). */
export function isPermissionId(value: unknown): value is PermissionId {
  return typeof value === 'string' && (PERMISSION_IDS as readonly string[]).includes(value);
}

/** Throws E_SEMANTIC (rule `permission-scope`) when `scope` is not valid for `id` (DESIGN §5). */
export function validateScope(id: PermissionId, scope: string | undefined): void {
  const problem = scopeProblem(id, scope);
  if (problem !== undefined) {
    throw new AdcapError('E_SEMANTIC', `Invalid permission: ${problem}.`, { details: { rule: 'permission-scope', id, scope } });
  }
}

/**
 * DESIGN §5: ids are `namespace:verb`, so everything after the second colon is the scope. Splits
 * without checking anything (grants, policy patterns and the sandbox all split this way).
 */
export function splitGrantText(text: string): { id: string; scope?: string } {
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  return second < 0 ? { id: text } : { id: text.slice(0, second), scope: text.slice(second + 1) };
}

/** A permission without its reason: what a grant string denotes. */
export interface Grant {
  /** Which permission (spec §6). */
  id: PermissionId;
  /** What it is limited to; absent for an unscoped grant, which covers every scope. */
  scope?: string;
}

/**
 * Parses a grant string `id` or `id:scope` (DESIGN §5: ids are `namespace:verb`, so everything after
 * the second colon is the scope, as in `net:connect:api.example.com:443`). Throws E_SEMANTIC for an
 * unknown id or a scope that is not valid for the id.
 */
export function parseGrant(grant: string): Grant {
  const { id, scope } = splitGrantText(grant);
  if (!isPermissionId(id)) {
    throw new AdcapError('E_SEMANTIC', `Unknown permission ${JSON.stringify(id)}: use one of ${PERMISSION_IDS.join(', ')}.`, {
      details: { rule: 'permission-id', grant },
    });
  }
  const problem = scopeProblem(id, scope);
  if (problem !== undefined) {
    throw new AdcapError('E_SEMANTIC', `Invalid permission ${JSON.stringify(grant)}: ${problem}.`, {
      details: { rule: 'permission-scope', grant },
    });
  }
  return scope === undefined ? { id } : { id, scope };
}

/** The grant string of a permission: `id` or `id:scope`. */
export function grantString(permission: Grant | Permission): string {
  return permission.scope === undefined ? permission.id : `${permission.id}:${permission.scope}`;
}

function tryParse(grant: string): Grant | undefined {
  try {
    return parseGrant(grant);
  } catch {
    return undefined;
  }
}

/**
 * Whether the grant `granted` allows everything `needed` asks for (the permission table's `covers`).
 * Fails closed: malformed grants cover nothing. Different ids never cover each other (fs:write does
 * not imply fs:read).
 */
export function grantCovers(granted: string, needed: string): boolean {
  const g = tryParse(granted);
  const n = tryParse(needed);
  if (g === undefined || n === undefined || g.id !== n.id) return false;
  // DESIGN §5 fs scopes name folders: compared resolved (home expanded, links followed), so a grant
  // covers what it exposes, whichever spelling either side uses (SECURITY.md "File scopes are compared as folders").
  if (isFsId(g.id) && g.scope !== undefined && n.scope !== undefined) {
    const resolved = fsFolderCovers(g.scope, n.scope);
    if (resolved !== undefined) return resolved;
  }
  return PERMISSION_TABLE[g.id].covers(g.scope, n.scope);
}

const isFsId = (id: string): boolean => id === 'fs:read' || id === 'fs:write';

/**
 * Whether two grants overlap: one covers the other, so holding either gives some of what the other
 * does (revocations, store/grant-revocations.ts). Identical strings overlap even when this version
 * cannot parse them.
 */
export function grantsOverlap(a: string, b: string): boolean {
  return a === b || grantCovers(a, b) || grantCovers(b, a);
}

/**
 * What is wrong with an organisation policy's permission pattern (docs/admin.md
 * `deniedPermissions`), or undefined when it is usable: a known id alone, or `id:scope` with a
 * scope of the id's grammar or one of its pattern scopes (`fs:read:~/`).
 */
export function patternProblem(pattern: string): string | undefined {
  const { id, scope } = splitGrantText(pattern);
  if (!isPermissionId(id)) return `${JSON.stringify(id)} is not a permission; use one of ${PERMISSION_IDS.join(', ')}`;
  if (scope === undefined || PERMISSION_TABLE[id].patternScopes.includes(scope)) return undefined;
  try {
    parseGrant(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Whether the policy pattern matches the grant (docs/admin.md): an id alone matches every grant of
 * that id; otherwise they match when they overlap by the table's `covers` (`net:connect:*.corp.example`
 * matches `net:connect:api.corp.example`, `fs:read:~/` every home path, and `net:connect` with no
 * scope, "any server", is matched by every net:connect pattern). A grant whose scope the id's
 * grammar refuses matches only an id-alone pattern.
 */
export function patternMatches(pattern: string, grant: string): boolean {
  const p = splitGrantText(pattern);
  const g = splitGrantText(grant);
  if (p.id !== g.id) return false;
  if (p.scope === undefined) return true;
  if (!isPermissionId(p.id)) return false;
  const kind: PermissionKind = PERMISSION_TABLE[p.id];
  if (g.scope !== undefined && kind.scopeProblem(g.scope) !== undefined) return false;
  if (kind.covers(p.scope, g.scope) || kind.covers(g.scope, p.scope)) return true;
  // docs/admin.md: file patterns match the folders they name, resolved on both sides (home
  // expanded, links followed), so `fs:read:~/` denies `fs:read:/home/alice/.ssh` and a link to it.
  if (!isFsId(p.id) || g.scope === undefined) return false;
  return fsFolderCovers(p.scope, g.scope) === true || fsFolderCovers(g.scope, p.scope) === true;
}
