/** The permission catalogue of DESIGN §5 / spec §6: ids, scopes, grants and plain-language text. */
export { PERMISSION_IDS, isPermissionId, parseGrant, grantString, grantCovers, type Grant } from './grants.js';
export { validateScope, scopeProblem, parseFsScope, parseNetScope, fsWriteTargetsOwnDir, type FsScope, type NetScope } from './scopes.js';
export { describePermission, riskLevel, type DescribeOptions, type RiskLevel } from './describe.js';
