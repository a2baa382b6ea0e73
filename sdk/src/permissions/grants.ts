import { AdcapError } from '../errors.js';
import type { Permission, PermissionId } from '../format/manifest-types.js';
import { PERMISSION_IDS, PERMISSION_TABLE, scopeProblem } from './table.js';

export { PERMISSION_IDS } from './table.js';

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

/** A permission without its reason: what a grant string denotes. */
export interface Grant {
  id: PermissionId;
  scope?: string;
}

/**
 * Parses a grant string `id` or `id:scope` (DESIGN §5: ids are `namespace:verb`, so everything after
 * the second colon is the scope, as in `net:connect:api.example.com:443`). Throws E_SEMANTIC for an
 * unknown id or a scope that is not valid for the id.
 */
export function parseGrant(grant: string): Grant {
  const first = grant.indexOf(':');
  const second = first < 0 ? -1 : grant.indexOf(':', first + 1);
  const id = second < 0 ? grant : grant.slice(0, second);
  const scope = second < 0 ? undefined : grant.slice(second + 1);
  if (!isPermissionId(id)) {
    throw new AdcapError('E_SEMANTIC', `Unknown permission ${JSON.stringify(id)}: use one of ${PERMISSION_IDS.join(', ')}.`, {
      details: { rule: 'permission-id', grant },
    });
  }
  const problem = scopeProblem(id, scope);
  if (problem !== undefined) {
    throw new AdcapError('E_SEMANTIC', `Invalid permission ${JSON.stringify(grant)}: ${problem}.`, { details: { rule: 'permission-scope', grant } });
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
  return PERMISSION_TABLE[g.id].covers(g.scope, n.scope);
}
