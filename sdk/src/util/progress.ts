/**
 * The SDK-wide progress shape (DESIGN §7): long operations report bytes `done` of an optional
 * `total` within a named `phase` through an `onProgress` option.
 */
export interface Progress {
  /** Which step of the operation this is (one of PROGRESS_PHASES). */
  phase: ProgressPhase;
  /** How much of the phase is done: bytes while data moves (download, hash, read, extract, write), else a count of steps. */
  done: number;
  /** The phase's size in the same unit, when known. */
  total?: number;
}

/** Receives progress of a long operation (DESIGN §7). */
export type ProgressListener = (progress: Progress) => void;

/**
 * The phases the SDK reports: `download` (archives, resources, shards; bytes), `hash`, `read`,
 * `verify` and `extract` (an archive being checked or unpacked; bytes), `write` (a package being
 * built), `switch` (an install or update switching versions in; items), `resource` (a tool's
 * resources being fetched before it runs; bytes) and `run` (the tool itself: 0, then 1 of 1).
 */
export const PROGRESS_PHASES = ['download', 'hash', 'read', 'verify', 'extract', 'write', 'switch', 'resource', 'run'] as const;

/** One of PROGRESS_PHASES. */
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];

/**
 * Wraps a listener so that a hot loop can call `report(done)` on every chunk while the listener
 * hears at most one update per `step` bytes (plus the final one from `finish`).
 */
export function progressReporter(
  phase: ProgressPhase,
  listener: ProgressListener | undefined,
  total?: number,
  step = 1 << 20,
): { report(done: number): void; finish(done: number): void } {
  if (listener === undefined) return { report: () => undefined, finish: () => undefined };
  let next = 0;
  const emit = (done: number): void => listener(total === undefined ? { phase, done } : { phase, done, total });
  return {
    report(done: number): void {
      if (done < next) return;
      next = done + step;
      emit(done);
    },
    finish(done: number): void {
      emit(done);
    },
  };
}
