/**
 * Where the Discover screen's search runs (docs/ui.md "Fast: search results update within a frame
 * or two of typing"). The same handler (handler.ts) runs in one of two places:
 * - on the page's thread, for catalogues up to PAGE_ROWS: a keystroke is answered in its own input
 *   event, so the list and the text typed reach the screen in the same frame. A round trip to a
 *   worker wakes two threads, which on a busy computer often misses that frame (the bench measured
 *   a median of 61 ms through the worker against 24 ms here, at load 12 on two cores). Building
 *   the index (a second or more on a busy computer) is the worker's job even then: it sends the
 *   SDK's index data back ('build', 'built'), and the page only wraps it (RankIndex.fromData);
 * - in a worker (a module worker bundled by Vite, same origin, so the strict CSP's script-src
 *   'self' allows it) for larger catalogues, whose one-letter searches would hold up typing.
 * Where the worker cannot start or fails to load, the page's thread does it all, replaying what the
 * worker was sent.
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

type Load = Extract<ToWorker, { type: 'load' }>;

/** `rows`: the catalogue's size, which decides where the search runs. */
export function startSearcher(receive: (message: FromWorker) => void, rows: number): Searcher {
  // What a replacement needs to answer as the worker would: the index, what is known, the last query.
  let load: Load | null = null;
  let known: ToWorker | null = null;
  let last: ToWorker | null = null;
  const onPage = rows <= PAGE_ROWS;
  let where: 'worker' | 'page' = onPage ? 'page' : 'worker';
  // Answers on the page arrive within the call that asked.
  const handle = createHandler((message) => receive(message));
  let worker: Worker | null = null;
  /** The load whose index the worker is building for the page. */
  let building: Load | null = null;
  const workerFailed = (): void => {
    worker?.terminate();
    worker = null;
    where = 'page';
    // The page does what the worker was doing: build the index it was building, or everything.
    if (onPage) {
      const todo = building;
      building = null;
      if (todo !== null) handle(todo);
    } else for (const message of [load, known, last]) if (message !== null) handle(message);
  };
  try {
    worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'catalogue-search' });
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type !== 'built') receive(message);
      else if (building !== null && building.revision === message.revision) {
        const prepared: Load = { ...building, data: message.data };
        building = null;
        handle(prepared);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      workerFailed();
    };
  } catch {
    worker = null;
    where = 'page';
  }
  return {
    send(message) {
      if (message.type === 'load') load = message;
      else if (message.type === 'known') known = message;
      else if (message.type === 'query') last = message;
      if (worker === null) handle(message);
      else if (!onPage) worker.postMessage(message);
      else if (message.type === 'load') {
        building = message;
        worker.postMessage({ type: 'build', revision: message.revision, rows: message.rows, publishers: message.publishers });
      } else handle(message);
    },
    where: () => where,
  };
}
