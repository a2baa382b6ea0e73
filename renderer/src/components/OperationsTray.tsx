/**
 * The operations tray (docs/ui.md "Nothing blocks: long operations run in the background with their
 * progress in an operations tray"): each running operation with its phase, a progress bar and
 * Cancel. A success or a cancel says so and leaves after a few seconds (faded, unless the user
 * asked for reduced motion; never while the pointer or the focus is on it, WCAG 2.2.1); a failure
 * stays, with its sentence and the details behind a disclosure, until it is dismissed.
 */
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { phaseText } from '../lib/format.js';
import { cancelOperation, useOperations, visibleOperations, type OperationView } from '../stores/operations.js';
import { ErrorBox } from './ErrorBox.js';
import './feedback.css';

/** How long a finished operation stays before it leaves, and how long its fade takes. */
export const FINISHED_STAYS_MS = 5000;
const FADE_MS = 400;

const reducedMotion = (): boolean => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function OperationsTray() {
  const operations = useOperations(useShallow(visibleOperations));
  if (operations.length === 0) return null;
  return (
    <section className="tray" aria-label="Operations">
      {operations.slice(0, 4).map((op) => (
        <Operation key={op.id} op={op} />
      ))}
      {operations.length > 4 && <div className="small muted tray-more">{operations.length - 4} more</div>}
    </section>
  );
}

function Operation({ op }: { op: OperationView }) {
  const dismiss = useOperations((s) => s.dismiss);
  const ref = useRef<HTMLDivElement>(null);
  const dismissRef = useRef<HTMLButtonElement>(null);
  const hovered = useRef(false);
  const focused = useRef(false);
  const [held, setHeld] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const finished = op.state === 'done' || op.state === 'cancelled';
  const hold = (): void => setHeld(hovered.current || focused.current);

  // When it ends under the keyboard (Cancel pressed, then replaced by Dismiss), the focus stays in
  // the entry, on Dismiss, instead of falling to <body>.
  useEffect(() => {
    if (op.state === 'running') return;
    const active = document.activeElement;
    if (focused.current && (active === null || active === document.body)) dismissRef.current?.focus();
    else focused.current = ref.current?.contains(active) ?? false;
    setHeld(hovered.current || focused.current);
  }, [op.state]);

  // A finished entry leaves by itself, but not while it is hovered or holds the focus.
  useEffect(() => {
    if (!finished || held) {
      setLeaving(false);
      return;
    }
    const fade = reducedMotion() ? 0 : FADE_MS;
    const start = setTimeout(() => setLeaving(true), FINISHED_STAYS_MS - fade);
    const end = setTimeout(() => dismiss(op.id), FINISHED_STAYS_MS);
    return () => {
      clearTimeout(start);
      clearTimeout(end);
    };
  }, [finished, held, dismiss, op.id]);

  const title =
    op.state === 'done'
      ? (op.texts.done ?? `${op.label}: finished`)
      : op.state === 'cancelled'
        ? (op.texts.cancelled ?? `${op.label}: cancelled`)
        : op.state === 'failed'
          ? (op.texts.failed ?? `${op.label} failed`)
          : op.label;
  return (
    <div
      ref={ref}
      className={`op${leaving ? ' leaving' : ''}`}
      data-operation-state={op.state}
      onMouseEnter={() => {
        hovered.current = true;
        hold();
      }}
      onMouseLeave={() => {
        hovered.current = false;
        hold();
      }}
      onFocus={() => {
        focused.current = true;
        hold();
      }}
      onBlur={(e) => {
        focused.current = ref.current?.contains(e.relatedTarget as Node | null) ?? false;
        hold();
      }}
    >
      <div className="op-head">
        <strong className="op-title" role={op.state === 'running' ? undefined : 'status'}>
          {op.state === 'done' && <span aria-hidden="true">✓ </span>}
          {title}
          {op.repeats > 1 && <span className="small muted"> ({op.repeats} times)</span>}
        </strong>
        {op.state === 'running' ? (
          op.cancellable && (
            <button type="button" className="small" onClick={() => cancelOperation(op.id)} aria-label={`Cancel ${op.label}`}>
              Cancel
            </button>
          )
        ) : (
          <button ref={dismissRef} type="button" className="small" onClick={() => dismiss(op.id)} aria-label={`Dismiss ${title}`}>
            ✕
          </button>
        )}
      </div>
      {op.state === 'running' && (
        <>
          <div className="small muted">
            {op.progress === null ? (op.cancellable ? 'Starting' : 'In progress') : phaseText(op.progress.phase)}
            {op.progress?.item !== undefined ? ` · ${op.progress.item}` : ''}
          </div>
          <progress
            value={op.progress?.total !== undefined ? op.progress.done : undefined}
            max={op.progress?.total ?? 1}
            aria-label={`${op.label} progress`}
          />
        </>
      )}
      {op.state === 'failed' && op.error !== null && <ErrorBox error={op.error} compact />}
    </div>
  );
}
