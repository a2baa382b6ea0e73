/** The permission catalogue of DESIGN §5 / spec §6: ids, scopes, grants and plain-language text. */
export {
  PERMISSION_IDS,
  isPermissionId,
  parseGrant,
  grantString,
  grantCovers,
  grantsOverlap,
  patternMatches,
  patternProblem,
  splitGrantText,
  validateScope,
  type Grant,
} from './grants.js';
export {
  bareHost,
  parseFsScope,
  parseNetScope,
  netScopeCovers,
  netScopeAllows,
  fsWriteTargetsOwnDir,
  type FsScope,
  type NetScope,
} from './scopes.js';
export { PERMISSION_TABLE, scopeProblem, type PermissionKind, type SandboxKind, type ScopeRule } from './table.js';
export { describePermission, riskLevel, type DescribeOptions, type RiskLevel } from './describe.js';
