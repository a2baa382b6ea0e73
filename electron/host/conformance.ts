/**
 * Compile-time checks that the host API contract (electron/common/types.ts) lists exactly what the
 * SDK's tables hold. The contract may import nothing from the SDK (DESIGN §2), so it keeps its own
 * copies of the permission ids, the interpreter runtimes, the error codes (DESIGN §9) and the
 * progress phases (DESIGN §7); these lines stop `tsc` when the permission table
 * (sdk/src/permissions/table.ts), the runtime table (sdk/src/format/runtime-table.ts),
 * ERROR_CODES (sdk/src/errors.ts) or PROGRESS_PHASES (sdk/src/util/progress.ts) gains an entry the
 * contract does not name, or the other way round: the compiler points at every place a new id must reach.
 */
import type { Compat, ErrorCode, PermissionId, Plan, PlanItem, ProgressPhase } from '@arcotheon/sdk';
import type {
  CompatData,
  ErrorCode as ContractErrorCode,
  PermissionId as ContractPermissionId,
  PlanData,
  PlanItemData,
  ProgressPhase as ContractProgressPhase,
} from '../common/types.js';

/** `true` exactly when A and B are the same set of types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The host service's own steps of a long operation (doctor, policy.apply, cache.gc, remotes.refresh). */
type HostPhase = 'check' | 'policy' | 'gc' | 'refresh';

export const permissionIdsMatch: Same<PermissionId, ContractPermissionId> = true;
export const interpreterRuntimesMatch: Same<keyof NonNullable<Compat['runtimes']>, keyof NonNullable<CompatData['runtimes']>> = true;
export const errorCodesMatch: Same<ErrorCode, ContractErrorCode> = true;
export const progressPhasesMatch: Same<ProgressPhase | HostPhase, ContractProgressPhase> = true;

// The plan the install dialog shows (types.ts PlanData, PlanItemData) is the SDK's Plan as
// views.ts planView passes it on: every field the SDK gives a plan or an item reaches the contract
// (a new one stops tsc here until the contract names it), and planView's return type checks each
// field's type.
export const planFieldsReachTheContract: Same<Exclude<keyof Plan, keyof PlanData>, never> = true;
export const planItemFieldsReachTheContract: Same<Exclude<keyof PlanItem, keyof PlanItemData>, never> = true;
