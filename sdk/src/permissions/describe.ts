import type { Permission } from '../format/manifest-types.js';
import { parseGrant, type Grant } from './grants.js';
import { PERMISSION_TABLE, type DescribeOptions, type RiskLevel } from './table.js';

export type { DescribeOptions, RiskLevel } from './table.js';

function asGrant(permission: Grant | Permission | string): Grant {
  return typeof permission === 'string' ? parseGrant(permission) : permission;
}

/** The plain-language sentence for a permission, as shown to the user (DESIGN §5, spec §6). */
export function describePermission(permission: Grant | Permission | string, options: DescribeOptions = {}): string {
  const { id, scope } = asGrant(permission);
  return PERMISSION_TABLE[id].text(scope, options);
}

/**
 * A coarse risk level for the UI: low (contained), medium (reaches outside the workspace or holds a
 * secret), high (broad network, writing outside the workspace, running programs, credential folders).
 */
export function riskLevel(permission: Grant | Permission | string): RiskLevel {
  const { id, scope } = asGrant(permission);
  return PERMISSION_TABLE[id].risk(scope);
}
