/**
 * Focus never falls to <body> on the page (docs/ui.md "every action reachable by keyboard"): when the
 * focused element is removed because of what it did (Install becomes "Open in Run" once the
 * install ends, a row leaves a list), the browser drops the focus to <body> and the next Tab starts
 * again at the top of the window. Here the focus goes to the nearest place still on screen: the
 * first focusable element of the closest container the removed one was in, else the screen's
 * heading (or <main> while the screen's code loads). Dialogs keep their own focus (components/Dialog.tsx).
 */
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary';

export function keepFocusOnScreen(main: HTMLElement): () => void {
  /** The ancestors of the element that last had the focus, nearest first. */
  let ancestors: Element[] = [];
  let focused: Element | null = null;
  const onFocusIn = (event: FocusEvent): void => {
    if (!(event.target instanceof Element) || !main.contains(event.target)) return;
    focused = event.target;
    ancestors = [];
    for (let el = event.target.parentElement; el !== null && el !== main; el = el.parentElement) ancestors.push(el);
  };
  const observer = new MutationObserver(() => {
    if (focused === null || focused.isConnected) return;
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    if (document.querySelector('[role="dialog"]') !== null) return;
    const heading = focused.tagName === 'H1';
    focused = null;
    // The screen's heading drawn again (a page that loaded its data) keeps the focus on the heading.
    const screenHeading = main.querySelector<HTMLElement>('.screen h1');
    if (heading && screenHeading !== null && screenHeading.getClientRects().length > 0) {
      screenHeading.focus();
      return;
    }
    for (const container of ancestors) {
      if (!container.isConnected) continue;
      const target = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].find((el) => el.getClientRects().length > 0);
      if (target !== undefined) {
        target.focus();
        return;
      }
    }
    // A screen whose code is still loading has no heading yet: the focus waits on <main> (App.tsx
    // moves it to the heading once the screen is drawn).
    (screenHeading ?? main).focus();
  });
  observer.observe(main, { childList: true, subtree: true });
  document.addEventListener('focusin', onFocusIn);
  return () => {
    observer.disconnect();
    document.removeEventListener('focusin', onFocusIn);
  };
}
