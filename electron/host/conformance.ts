/**
 * Compile-time checks that the host API contract (electron/common/types.ts) lists exactly what the
 * SDK's tables hold. The contract may import nothing from the SDK (DESIGN §2), so it keeps its own
 * copies of the permission ids and the interpreter runtimes; these lines stop `tsc` when the
 * permission table (sdk/src/permissions/table.ts) or the runtime table
 * (sdk/src/format/runtime-table.ts) gains an entry the contract does not name, or the other way
 * round (issue 15, item 2: the compiler points at every place a new id must reach).
 */
import type { Compat, PermissionId } from '@arcotheon/sdk';
import type { CompatData, PermissionId as ContractPermissionId } from '../common/types.js';

/** `true` exactly when A and B are the same set of types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const permissionIdsMatch: Same<PermissionId, ContractPermissionId> = true;
export const interpreterRuntimesMatch: Same<keyof NonNullable<Compat['runtimes']>, keyof NonNullable<CompatData['runtimes']>> = true;
