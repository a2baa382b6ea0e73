/**
 * The Discover screen's search worker: holds the index (engine.ts) off the page's thread, so a
 * keystroke never waits for a search of 100,000 capabilities behind rendering, nor the reverse.
 * Messages in protocol.ts; the order of an answer is transferred, not copied.
 */
import { createHandler } from './handler.js';
import type { ToWorker } from './protocol.js';

const handle = createHandler((message, transfer) => self.postMessage(message, { transfer }));
self.onmessage = (event: MessageEvent<ToWorker>) => handle(event.data);
