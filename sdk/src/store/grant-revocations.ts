/**
 * The user's revocations: a grant withdrawn with `grants --revoke` stays
 * withdrawn until the user grants it again, including across a rollback, whose result is the old
 * version's grants minus what the user revoked since (anything more is asked for, spec §6).
 */
import { grantCovers, grantsOverlap } from '../permissions/index.js';

/** The revocations after the user revokes `grant`. */
export function addRevocation(revoked: readonly string[] | undefined, grant: string): string[] {
  return [...new Set([...(revoked ?? []), grant])].sort();
}

/**
 * The revocations after the user grants `granted` (by hand, or by approving a plan that lists
 * them): a revocation ends only when something granted covers all of it.
 */
export function clearRevocations(revoked: readonly string[] | undefined, granted: readonly string[]): string[] {
  return (revoked ?? []).filter((r) => !granted.some((g) => g === r || grantCovers(g, r)));
}

/**
 * The grants a rollback restores: the old version's, minus anything overlapping a revocation (one
 * covers the other, so keeping it would give back some of what was revoked).
 */
export function grantsAfterRollback(oldGrants: readonly string[], revoked: readonly string[] | undefined): string[] {
  return oldGrants.filter((g) => !(revoked ?? []).some((r) => grantsOverlap(g, r)));
}
