/**
 * A modal dialog (WAI-ARIA dialog pattern): role="dialog", aria-modal, labelled by its title,
 * focus moved inside on open (to `initialFocus`, else the first button), trapped with Tab and
 * Shift+Tab, Escape cancels, and focus goes back where it was on close.
 */
import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface DialogProps {
  title: string;
  onCancel: () => void;
  children: ReactNode;
  footer: ReactNode;
  /** The element to focus first (UI.md: "Cancel (default focus)"). */
  initialFocus?: RefObject<HTMLElement | null>;
  /** While true, Escape does nothing (e.g. while an install switches versions). */
  busy?: boolean;
  describedBy?: string;
  wide?: boolean;
}

export function Dialog({ title, onCancel, children, footer, initialFocus, busy = false, describedBy, wide = false }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const cancelRef = useRef(onCancel);
  cancelRef.current = onCancel;
  const busyRef = useRef(busy);
  busyRef.current = busy;

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const node = ref.current;
    const first =
      initialFocus?.current ?? node?.querySelector<HTMLElement>('footer button') ?? node?.querySelector<HTMLElement>(FOCUSABLE) ?? node;
    first?.focus();
    return () => previous?.focus();
    // Focus once, on open: initialFocus is a ref and does not change.
  }, [initialFocus]);

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>): void => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      if (!busyRef.current) cancelRef.current();
      return;
    }
    if (event.key !== 'Tab' || ref.current === null) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (el) => el.offsetParent !== null || el === document.activeElement,
    );
    if (items.length === 0) {
      event.preventDefault();
      return;
    }
    const first = items[0] as HTMLElement;
    const last = items[items.length - 1] as HTMLElement;
    if (event.shiftKey && (document.activeElement === first || !ref.current.contains(document.activeElement))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !ref.current.contains(document.activeElement))) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="scrim" onMouseDown={(e) => e.target === e.currentTarget && !busy && onCancel()}>
      <div
        ref={ref}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
        onKeyDown={onKeyDown}
        style={wide ? { width: 'min(760px, 100%)' } : undefined}
      >
        <header>
          <h2 id={titleId}>{title}</h2>
        </header>
        <div className="body">{children}</div>
        <footer>{footer}</footer>
      </div>
    </div>
  );
}
