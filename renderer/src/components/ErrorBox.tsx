import type { HostError } from '../../../electron/common/index.js';
import { nextStep } from '../lib/errors.js';

/** A failure: the host's sentence, the code small beneath it, one next step, and a retry when given. */
export function ErrorBox({ error, onRetry, title }: { error: HostError; onRetry?: () => void; title?: string }) {
  return (
    <div className="error-box" role="alert">
      {title !== undefined && <strong>{title}</strong>}
      <div>{error.message}</div>
      <span className="code mono">{error.code}</span>
      <div className="next">{nextStep(error)}</div>
      {onRetry !== undefined && (
        <div className="row" style={{ marginTop: 8 }}>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </div>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="empty" role="status" aria-live="polite">
      Loading {what}…
    </div>
  );
}
