/**
 * What the host pushes to its subscribers (docs/host-api.md "Events"): operation progress and ends,
 * typed by the method of the operation like its calls, and what changed. Apart from types.ts because
 * the events are typed by the method table (methods.ts), which itself uses the data types.
 */
import type { OperationMethod, ValueMap } from './methods.js';
import type { OperationState, ProgressData, Result } from './types.js';

/** Progress of a running operation. */
export type ProgressEvent<M extends OperationMethod = OperationMethod> = {
  [K in M]: { type: 'progress'; operation: string; method: K } & ProgressData;
}[M];

/** An operation started (`running`) or ended; the final event carries its Result, typed by the method. */
export type OperationEvent<M extends OperationMethod = OperationMethod> = {
  [K in M]: { type: 'operation'; operation: string; method: K; state: OperationState; result?: Result<ValueMap[K]> };
}[M];

/** What the host pushes to every subscriber: operation progress and ends, and what changed. */
export type HostEvent =
  | ProgressEvent
  | OperationEvent
  /** What is installed changed (here or in another process on the same home): reload installs.overview. */
  | { type: 'installed-changed' }
  /** A remote was added, removed or refreshed: reload remotes.status. */
  | { type: 'remotes-changed' }
  /**
   * What the catalogue shows changed (a refresh, package documents read): ask catalogue.known again
   * (catalogue.index when its revision moved).
   */
  | { type: 'catalogue-changed' }
  /** A workspace was confirmed or forgotten: reload workspaces.list. */
  | { type: 'workspaces-changed' }
  /** The host applied the organisation policy (policy.show has the outcome). */
  | { type: 'policy-changed' };
