import type { HostError } from '../../../electron/common/index.js';
import { detailEntries, isCancel, nextStep } from '../lib/errors.js';
import './feedback.css';

/**
 * A failure (docs/ui.md "Failure: the sentence from the error, the code small beneath it, and one next
 * step"): the host's sentence, the next step, then a "Details" disclosure with the code and the
 * error's plain details (addresses, hashes, a tool's last output), so the box says what happened
 * in one sentence and the long tokens wrap instead of running out of it. The user's own cancel is
 * not a failure: it is said as a status, without the danger colour. A retry when given.
 */
export function ErrorBox({
  error,
  onRetry,
  title,
  compact = false,
}: {
  error: HostError;
  onRetry?: () => void;
  title?: string;
  /** In the operations tray: no border of its own. */
  compact?: boolean;
}) {
  const cancelled = isCancel(error);
  const details = detailEntries(error);
  return (
    <div className={`error-box${cancelled ? ' cancelled' : ''}${compact ? ' compact' : ''}`} role={cancelled ? 'status' : 'alert'}>
      {title !== undefined && <strong className="error-title">{title}</strong>}
      <div className="error-message">{error.message}</div>
      <div className="next">{nextStep(error)}</div>
      <details className="error-details">
        <summary>Details</summary>
        <dl>
          <div className="error-detail-row">
            <dt>Code</dt>
            <dd className="code mono">{error.code}</dd>
          </div>
          {details.map(([key, value]) => (
            <div key={key} className="error-detail-row">
              <dt>{key}</dt>
              <dd className="mono">{value}</dd>
            </div>
          ))}
        </dl>
      </details>
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
