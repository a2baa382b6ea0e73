/**
 * The page's side of the search worker: starts it (a module worker bundled by Vite, same origin,
 * so the strict CSP's script-src 'self' allows it) and, where a worker cannot start or fails to
 * load, runs the same handler on the page's thread instead, replaying what the worker was sent.
 */
import { createHandler } from './handler.js';
import type { FromWorker, ToWorker } from './protocol.js';

export interface Searcher {
  send(message: ToWorker): void;
  /** Where the search runs (the bench and the tests read it). */
  readonly where: () => 'worker' | 'page';
}

export function startSearcher(receive: (message: FromWorker) => void): Searcher {
  // What a replacement needs to answer as the worker would: the index, what is known, the last query.
  let load: ToWorker | null = null;
  let known: ToWorker | null = null;
  let last: ToWorker | null = null;
  let send: (message: ToWorker) => void;
  let where: 'worker' | 'page' = 'worker';
  const onPage = (): void => {
    where = 'page';
    const handle = createHandler((message) => setTimeout(() => receive(message), 0));
    send = (message) => handle(message);
    for (const message of [load, known, last]) if (message !== null) send(message);
  };
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
