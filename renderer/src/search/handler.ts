/**
 * What the search worker does with each message (protocol.ts), apart from the worker itself so the
 * page can run the same code on its own thread where a worker cannot start (client.ts).
 */
import { SearchEngine, buildIndexData } from './engine.js';
import type { FromWorker, ToWorker } from './protocol.js';

export type Post = (message: FromWorker, transfer: Transferable[]) => void;

/**
 * The order of an answer's other rows is worked out only when the list asks for it ('rest': the
 * user scrolled towards the end of the first rows), and only for the latest query: typing never
 * pays for ordering thousands of matches no one scrolls to (docs/ui.md "Fast").
 */
export function createHandler(post: Post): (message: ToWorker) => void {
  let engine: SearchEngine | null = null;
  let known: Extract<ToWorker, { type: 'known' }> | null = null;
  /** The latest query's answer, whose other rows' order the list may ask for once. */
  let latest: { seq: number; engine: SearchEngine; rest: (() => Int32Array) | null } | null = null;
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
        latest = { seq: message.seq, engine, rest };
        post(result, [result.order.buffer]);
      } else if (message.type === 'rest') {
        // Only the latest answer's, once, and of the index it was answered from.
        if (latest === null || latest.seq !== message.seq || latest.engine !== engine || latest.rest === null) return;
        const order = latest.rest();
        latest.rest = null;
        post({ type: 'rest', seq: message.seq, revision: engine.revision, order }, [order.buffer]);
      } else {
        const order = engine.recentlyUpdated(message.limit);
        post({ type: 'recent', seq: message.seq, revision: engine.revision, order }, [order.buffer]);
      }
    } catch (error) {
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) }, []);
    }
  };
}
