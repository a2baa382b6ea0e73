/**
 * The organisation policy as the host shows and applies it (docs/admin.md): `policy.show` (the
 * policy in force, or why it is refused, and what the last `policy.apply` did) and `policy.apply`
 * (run once at start-up by startup.ts, and on demand).
 */
import { describePolicy, isAdcapError, type Arcotheon, type PolicyApplyResult } from '@arcotheon/sdk';
import type { HostError, PolicyStatusData } from '../common/types.js';
import type { OperationContext } from './operations.js';
import { unexpected } from './results.js';

export class HostPolicy {
  /** The outcome of the last `policy.apply`, null before the first. */
  private lastApply: PolicyStatusData['lastApply'] = null;

  /** `applied` is told after every apply, done or failed (what is installed may have changed). */
  constructor(
    private readonly arc: Arcotheon,
    private readonly applied: () => void,
  ) {}

  /** `policy.show`. */
  async status(): Promise<PolicyStatusData> {
    let loaded: Awaited<ReturnType<Arcotheon['policyInForce']>> = null;
    let error: HostError | null = null;
    try {
      loaded = await this.arc.policyInForce();
    } catch (e) {
      if (!isAdcapError(e, 'E_POLICY')) throw e;
      error = { code: e.code, message: e.message };
    }
    const p = loaded?.policy;
    return {
      policy:
        loaded === null || p === undefined
          ? null
          : {
              path: loaded.path,
              source: loaded.source,
              organisation: p.organisation ?? null,
              contact: p.contact ?? null,
              lines: describePolicy(loaded),
              remotes: p.remotes === undefined ? null : p.remotes.map((r) => r.name),
              required: p.required ?? [],
              recommended: p.recommended ?? [],
              blocked: p.blocked ?? [],
              deniedPermissions: p.deniedPermissions ?? [],
            },
      error,
      lastApply: this.lastApply,
    };
  }

  /** `policy.apply`: brings the home in line with the policy and remembers the outcome for `policy.show`. */
  async apply(ctx: OperationContext): Promise<PolicyApplyResult> {
    ctx.progress({ phase: 'policy', done: 0 });
    const at = new Date().toISOString();
    try {
      const result = await this.arc.applyPolicy();
      this.lastApply = { at, result, error: null };
      return result;
    } catch (error) {
      this.lastApply = { at, result: null, error: isAdcapError(error) ? { code: error.code, message: error.message } : unexpected(error) };
      throw error;
    } finally {
      this.applied();
    }
  }
}
