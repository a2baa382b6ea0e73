/**
 * Calls into code the host supplied (host contract: `approve`, `onProgress`, `checkTier`, a
 * `Sandbox`), so that whatever it does, the host sees an AdcapError: an
 * AdcapError it throws on purpose passes through unchanged; anything else it throws becomes
 * E_HOST_CALLBACK naming the callback, with the original as `cause`. Cancellation (an AbortSignal
 * that fired) is E_CANCELLED, whatever layer noticed it first.
 */
import { AdcapError, isAdcapError } from '../errors.js';

/** The AdcapError for a host callback that threw `error`. */
function hostCallbackError(callback: string, error: unknown): AdcapError {
  if (isAdcapError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new AdcapError(
    'E_HOST_CALLBACK',
    `The host's ${callback} callback failed (${detail}); this is a fault in the host application, not in the capability.`,
    {
      cause: error,
      details: { callback },
    },
  );
}

/** Awaits a host callback that may return a value or a promise; a throw becomes hostCallbackError. */
export async function callHost<T>(callback: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw hostCallbackError(callback, error);
  }
}

/**
 * Wraps a progress listener the host passed. Progress is reported from deep inside downloads and
 * extraction, where a throw would surface as some other failure (E_DOWNLOAD, E_IO); so the first
 * throw is remembered, the listener is not called again, and `rethrow(error)` turns whatever the
 * operation failed with into that E_HOST_CALLBACK.
 */
export class GuardedListener<P> {
  private failure: AdcapError | null = null;

  constructor(
    private readonly callback: string,
    private readonly listener: ((progress: P) => void) | undefined,
  ) {}

  /** The listener to hand to lower layers (undefined when the host passed none). */
  get fn(): ((progress: P) => void) | undefined {
    if (this.listener === undefined) return undefined;
    const listener = this.listener;
    return (progress: P) => {
      if (this.failure !== null) throw this.failure;
      try {
        listener(progress);
      } catch (error) {
        this.failure = hostCallbackError(this.callback, error);
        throw this.failure;
      }
    };
  }

  /** Throws if the listener has failed (call after an operation that may have swallowed it). */
  check(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** The error to report for `error`: the listener's own failure when there was one. */
  explain(error: unknown): unknown {
    return this.failure ?? error;
  }
}

/** E_CANCELLED when `signal` fired, for an operation named `what` ("the install"). */
export function cancelledError(what: string, cause?: unknown): AdcapError {
  return new AdcapError(
    'E_CANCELLED',
    `${what} was cancelled; nothing was changed by the part that did not finish.`,
    cause === undefined ? {} : { cause },
  );
}

/** Maps a failure of an operation whose signal fired to E_CANCELLED; other failures pass. */
export function explainCancel(error: unknown, signal: AbortSignal | undefined, what: string): unknown {
  if (signal?.aborted === true && !isAdcapError(error, 'E_CANCELLED')) return cancelledError(what, error);
  return error;
}
