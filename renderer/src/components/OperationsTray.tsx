/** The operations tray: long operations in the background, with their phase and Cancel. */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { phaseText } from '../lib/format.js';
import { cancelOperation, useOperations, visibleOperations } from '../stores/operations.js';

export function OperationsTray() {
  const operations = useOperations(useShallow(visibleOperations));
  const dismiss = useOperations((s) => s.dismiss);

  // Finished operations leave the tray after a few seconds; failures stay until dismissed.
  useEffect(() => {
    const done = operations.filter((o) => o.state === 'done' || o.state === 'cancelled');
    if (done.length === 0) return;
    const timer = setTimeout(() => done.forEach((o) => dismiss(o.id)), 4000);
    return () => clearTimeout(timer);
  }, [operations, dismiss]);

  if (operations.length === 0) return null;
  return (
    <section className="tray" aria-label="Operations" aria-live="polite">
      {operations.slice(0, 4).map((op) => (
        <div key={op.id} className="op" data-operation-state={op.state}>
          <div className="row" style={{ justifyContent: 'space-between', flexWrap: 'nowrap' }}>
            <strong style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{op.label}</strong>
            {op.state === 'running' ? (
              <button type="button" className="small" onClick={() => cancelOperation(op.id)}>
                Cancel
              </button>
            ) : (
              <button type="button" className="small" onClick={() => dismiss(op.id)} aria-label={`Dismiss ${op.label}`}>
                ✕
              </button>
            )}
          </div>
          <div className="small muted">
            {op.state === 'running'
              ? op.progress === null
                ? 'Starting'
                : phaseText(op.progress.phase)
              : op.state === 'done'
                ? 'Finished'
                : op.state === 'cancelled'
                  ? 'Cancelled'
                  : `Failed: ${op.error?.message ?? ''}`}
            {op.state === 'running' && op.progress?.item !== undefined ? ` · ${op.progress.item}` : ''}
          </div>
          {op.state === 'running' && (
            <progress
              value={op.progress?.total !== undefined ? op.progress.done : undefined}
              max={op.progress?.total ?? 1}
              aria-label={`${op.label} progress`}
            />
          )}
        </div>
      ))}
    </section>
  );
}
