/**
 * What `Arcotheon.doctor()` reports: the kinds of problem and one problem.
 * Its own module so the checks doctor runs (agent-links/check-links.ts, policy-enforce.ts) use the
 * type without importing doctor.ts, which imports them.
 */

/** The kinds of problem `Arcotheon.doctor()` reports. */
export type ProblemKind =
  | 'half-finished-operation'
  | 'damaged-state'
  | 'damaged-install'
  | 'leftover-files'
  | 'revoked'
  | 'missing-dependency'
  | 'missing-interpreter'
  | 'missing-sandbox'
  | 'corrupt-cache-entry'
  // Skill links in agents' folders (agent-links/check-links.ts)
  | 'dangling-link'
  | 'stale-link'
  | 'missing-link'
  /** The organisation policy is invalid, or this home is out of line with it. */
  | 'policy'
  /** A remote's stored catalogue is older than the minimum this app shipped with (DESIGN §10). */
  | 'stale-remote';

/** One problem `Arcotheon.doctor()` found: its kind, the capability, what is wrong and what a repair does. */
export interface Problem {
  /** What kind of problem it is. */
  kind: ProblemKind;
  /** The capability it concerns, when one does. */
  id?: string;
  /** The version it concerns, when one does. */
  version?: string;
  /** What is wrong, in a sentence. */
  message: string;
  /** Whether `doctor --fix` can repair it. */
  fixable: boolean;
  /**
   * What a repair does, said before it is done (a check and a dry run alike), for a fixable
   * problem: "Reinstall tools/summarize_csv.py from the signed package of acme/csv-summary 1.0.0".
   */
  repair?: string;
  /** Set by a fix run: what was done. */
  fixed?: string;
}
