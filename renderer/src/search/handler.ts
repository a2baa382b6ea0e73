/**
 * What the search worker does with each message (protocol.ts), apart from the worker itself so the
 * page can run the same code on its own thread where a worker cannot start (client.ts).
 */
import { SearchEngine, buildIndexData } from './engine.js';
import type { FromWorker, ToWorker } from './protocol.js';

export type Post = (message: FromWorker, transfer: Transferable[]) => void;

/**
 * `later` runs the order of an answer's other rows after the first rows are posted, as a task of its
 * own, so a query that arrives meanwhile is answered first (and that order is then dropped).
 */
export function createHandler(post: Post, later: (task: () => void) => void = (task) => setTimeout(task, 0)): (message: ToWorker) => void {
  let engine: SearchEngine | null = null;
  let known: Extract<ToWorker, { type: 'known' }> | null = null;
  let latest = 0;
  return (message) => {
    try {
      if (message.type === 'load') {
        const started = performance.now();
        engine = new SearchEngine(message.revision, message.rows, message.publishers, message.data);
        if (known !== null) engine.setKnown(known);
        post({ type: 'ready', revision: engine.revision, categories: engine.categories, buildMs: performance.now() - started }, []);
      } else if (message.type === 'build') {
        const started = performance.now();
        const { data, transfer } = buildIndexData(message.rows, message.publishers);
        post({ type: 'built', revision: message.revision, data, buildMs: performance.now() - started }, transfer);
      } else if (message.type === 'known') {
        known = message;
        engine?.setKnown(message);
      } else if (engine === null) {
        // The page sends queries only once the index is ready.
      } else if (message.type === 'query') {
        const { result, rest } = engine.search(message);
        latest = message.seq;
        post(result, [result.order.buffer]);
        if (rest !== null) {
          const current = engine;
          later(() => {
            if (latest !== message.seq || current !== engine) return;
            try {
              const order = rest();
              post({ type: 'rest', seq: message.seq, revision: current.revision, order }, [order.buffer]);
            } catch (error) {
              post({ type: 'failed', message: error instanceof Error ? error.message : String(error) }, []);
            }
          });
        }
      } else {
        const order = engine.recentlyUpdated(message.limit);
        post({ type: 'recent', seq: message.seq, revision: engine.revision, order }, [order.buffer]);
      }
    } catch (error) {
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) }, []);
    }
  };
}
