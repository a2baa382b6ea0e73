import { AdcapError } from '../errors.js';
import type { Permission, PermissionId } from '../format/manifest-types.js';
import { parseFsScope, parseNetScope, scopeProblem, type NetScope } from './scopes.js';

/** DESIGN §5: the permission ids version 1.0 knows; any other id is rejected. */
export const PERMISSION_IDS = ['fs:read', 'fs:write', 'net:connect', 'process:exec', 'env:read', 'storage:data'] as const satisfies readonly PermissionId[];

export function isPermissionId(value: unknown): value is PermissionId {
  return typeof value === 'string' && (PERMISSION_IDS as readonly string[]).includes(value);
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
 * Whether the grant `granted` allows everything `needed` asks for. Fails closed: malformed grants
 * cover nothing. Different ids never cover each other (fs:write does not imply fs:read).
 */
export function grantCovers(granted: string, needed: string): boolean {
  const g = tryParse(granted);
  const n = tryParse(needed);
  if (g === undefined || n === undefined || g.id !== n.id) return false;
  if (g.scope === undefined || n.scope === undefined) {
    // No scope means "any server" for net:connect and is the only form for storage:data.
    return g.scope === undefined && (n.scope === undefined || g.id === 'net:connect');
  }
  switch (g.id) {
    case 'fs:read':
    case 'fs:write': {
      const gs = parseFsScope(g.scope);
      const ns = parseFsScope(n.scope);
      if (typeof gs === 'string' || typeof ns === 'string' || gs.kind !== ns.kind) return false;
      if (gs.kind === 'workspace' || ns.kind === 'workspace') return true;
      return gs.segments.length <= ns.segments.length && gs.segments.every((s, i) => s === ns.segments[i]);
    }
    case 'net:connect': {
      const gs = parseNetScope(g.scope);
      const ns = parseNetScope(n.scope);
      return typeof gs !== 'string' && typeof ns !== 'string' && netCovers(gs, ns);
    }
    default:
      return g.scope === n.scope;
  }
}

/** `*.example.com` covers subdomains of example.com (not example.com itself); no port = any port. */
function netCovers(granted: NetScope, needed: NetScope): boolean {
  if (granted.port !== undefined && granted.port !== needed.port) return false;
  if (!granted.wildcard) return !needed.wildcard && granted.host === needed.host;
  return needed.host.endsWith(`.${granted.host}`);
}
