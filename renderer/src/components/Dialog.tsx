/**
 * A modal dialog (WAI-ARIA APG "Dialog (Modal)" pattern): role="dialog", aria-modal, labelled by
 * its title. Focus moves inside on open (to `initialFocus`, else the first footer button), stays
 * inside while it is open, and goes back to the element that opened it on close.
 *
 * "Stays inside" holds even when the dialog's own content changes under the focus (a button that
 * is removed or disabled when a phase ends would otherwise drop the focus to <body>, from where Tab
 * walks the page behind the scrim): the page behind is `inert` while the dialog is open, Tab and
 * Escape are handled at the document (so they work wherever the focus is), and focus that lands
 * outside the dialog is brought back in. Escape cancels unless `busy`.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import './feedback.css';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

interface DialogProps {
  title: string;
  onCancel: () => void;
  children: ReactNode;
  footer: ReactNode;
  /** The element to focus first (docs/ui.md "Dialogs": Cancel has the default focus). */
  initialFocus?: RefObject<HTMLElement | null>;
  /** While true, Escape and a click on the scrim do nothing (e.g. while a change is being made). */
  busy?: boolean;
  describedBy?: string;
  wide?: boolean;
}

/** Open dialogs, oldest first: only the last one answers keys and holds the focus. */
const stack: HTMLElement[] = [];

/** The focusable elements of a dialog that a user can reach now (visible, enabled). */
function tabbables(node: HTMLElement): HTMLElement[] {
  return [...node.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0 && !el.closest('[inert]'));
}

/** The page behind the top dialog: the app root and every dialog below the top one. */
function setBackgroundInert(): void {
  const root = document.getElementById('root');
  if (root !== null) root.inert = stack.length > 0;
  stack.forEach((node, i) => {
    const scrim = node.parentElement;
    if (scrim !== null) scrim.inert = i < stack.length - 1;
  });
}

/** Where the focus goes back to: the opener if it is still usable, else the screen's heading. */
function restoreFocus(previous: HTMLElement | null): void {
  const usable =
    previous !== null && previous.isConnected && !(previous as HTMLButtonElement).disabled && previous.getClientRects().length > 0;
  if (usable) previous.focus();
  else document.querySelector<HTMLElement>('.screen h1')?.focus();
}

export function Dialog({ title, onCancel, children, footer, initialFocus, busy = false, describedBy, wide = false }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const cancelRef = useRef(onCancel);
  cancelRef.current = onCancel;
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const initialRef = useRef(initialFocus);
  initialRef.current = initialFocus;

  // As the dialog is put in the page, before it is drawn: a key pressed as soon as it shows is
  // already the dialog's (a passive effect runs after the paint, and Preact does not run it before
  // the next key as React does, so Tab would leave from the opener).
  useLayoutEffect(() => {
    const node = ref.current;
    if (node === null) return;
    const previous =
      document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    stack.push(node);
    setBackgroundInert();
    const isTop = (): boolean => stack[stack.length - 1] === node;
    /** The element focus belongs on when it is nowhere useful: the initial one, else the first button. */
    const home = (): HTMLElement => {
      const initial = initialRef.current?.current ?? null;
      if (initial !== null && node.contains(initial) && tabbables(node).includes(initial)) return initial;
      return node.querySelector<HTMLElement>('footer button:not([disabled])') ?? tabbables(node)[0] ?? node;
    };
    home().focus();

    const onKeyDown = (event: KeyboardEvent): void => {
      if (!isTop()) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        if (!busyRef.current) cancelRef.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = tabbables(node);
      event.preventDefault();
      if (items.length === 0) {
        node.focus();
        return;
      }
      const at = items.indexOf(document.activeElement as HTMLElement);
      // From outside the dialog (or from the dialog itself), Tab enters at the start, Shift+Tab at the end.
      const next = at < 0 ? (event.shiftKey ? items.length - 1 : 0) : (at + (event.shiftKey ? -1 : 1) + items.length) % items.length;
      items[next]?.focus();
    };
    const onFocusIn = (event: FocusEvent): void => {
      if (isTop() && event.target instanceof Node && !node.contains(event.target)) home().focus();
    };
    // A focused element that is removed or disabled leaves the focus on <body>: bring it back in.
    const observer = new MutationObserver(() => {
      if (!isTop()) return;
      const active = document.activeElement;
      if (active === null || active === document.body || !node.contains(active) || (active as HTMLButtonElement).disabled === true)
        home().focus();
    });
    observer.observe(node, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled', 'hidden'] });
    document.addEventListener('keydown', onKeyDown, true);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      observer.disconnect();
      document.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('focusin', onFocusIn);
      stack.splice(stack.indexOf(node), 1);
      setBackgroundInert();
      if (stack.length === 0) restoreFocus(previous);
      else stack[stack.length - 1]?.focus();
    };
  }, []);

  return createPortal(
    <div className="scrim" onMouseDown={(e) => e.target === e.currentTarget && !busy && onCancel()}>
      <div
        ref={ref}
        className={`dialog${wide ? ' wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
      >
        <header>
          <h2 id={titleId}>{title}</h2>
        </header>
        <DialogBody label={`${title}: details`}>{children}</DialogBody>
        <footer>{footer}</footer>
      </div>
    </div>,
    document.body,
  );
}

/**
 * The dialog's body. When it is taller than the window it scrolls, and then it is a focusable,
 * named region so keyboard users can scroll it too (WCAG 2.1.1; axe scrollable-region-focusable);
 * when everything fits it is not a Tab stop.
 */
function DialogBody({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const node = ref.current;
    if (node === null) return;
    const measure = (): void => setScrolls(node.scrollHeight > node.clientHeight + 1);
    measure();
    const resize = new ResizeObserver(measure);
    resize.observe(node);
    const content = new MutationObserver(measure);
    content.observe(node, { subtree: true, childList: true, characterData: true });
    return () => {
      resize.disconnect();
      content.disconnect();
    };
  }, []);
  return (
    <div ref={ref} className="body" {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-label': label } : {})}>
      {children}
    </div>
  );
}
