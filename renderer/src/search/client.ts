/**
 * Where the Discover screen's search runs (docs/ui.md "Fast: search results update within a frame
 * or two of typing"). The same handler (handler.ts) runs in one of two places:
 * - on the page's thread, for catalogues up to PAGE_ROWS: a keystroke is answered in its own input
 *   event, so the list and the text typed reach the screen in the same frame. A round trip to a
 *   worker wakes two threads, which on a busy computer often misses that frame (the bench measured
 *   a median of 61 ms through the worker against 24 ms here, at load 12 on two cores);
 * - in a worker (a module worker bundled by Vite, same origin, so the strict CSP's script-src
 *   'self' allows it) for larger catalogues, whose index takes too long to build on the page's
 *   thread and whose one-letter searches would hold up typing. Where the worker cannot start or
 *   fails to load, the page's thread takes over, replaying what the worker was sent.
 */
import { createHandler } from './handler.js';
import type { FromWorker, ToWorker } from './protocol.js';

/** Catalogues up to this size are searched on the page's thread. */
export const PAGE_ROWS = 30_000;

export interface Searcher {
  send(message: ToWorker): void;
  /** Where the search runs (the bench and the tests read it). */
  readonly where: () => 'worker' | 'page';
}

/** `rows`: the catalogue's size, which decides where the search runs. */
export function startSearcher(receive: (message: FromWorker) => void, rows: number): Searcher {
  // What a replacement needs to answer as the worker would: the index, what is known, the last query.
  let load: ToWorker | null = null;
  let known: ToWorker | null = null;
  let last: ToWorker | null = null;
  let send: (message: ToWorker) => void;
  let where: 'worker' | 'page' = 'worker';
  const onPage = (): void => {
    where = 'page';
    // Answers arrive within the call that asked; the order of an answer's other rows waits until
    // the frame showing its first rows is drawn.
    const handle = createHandler(
      (message) => receive(message),
      (task) => requestAnimationFrame(() => setTimeout(task, 0)),
    );
    send = (message) => handle(message);
    for (const message of [load, known, last]) if (message !== null) send(message);
  };
  if (rows <= PAGE_ROWS) onPage();
  else
    try {
      const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'catalogue-search' });
      worker.onmessage = (event: MessageEvent<FromWorker>) => receive(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        worker.terminate();
        onPage();
      };
      send = (message) => worker.postMessage(message);
    } catch {
      onPage();
    }
  return {
    send(message) {
      if (message.type === 'load') load = message;
      else if (message.type === 'known') known = message;
      else if (message.type === 'query') last = message;
      send(message);
    },
    where: () => where,
  };
}
