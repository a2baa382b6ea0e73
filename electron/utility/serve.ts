/**
 * The utility process's side of the main <-> utility channel (utility-protocol.ts): calls from
 * the main process are dispatched to the host service (which checks the method and arguments
 * again), its events go back to main, and a tool run's env:read values are asked of main (which
 * holds safeStorage and the window). No Electron import: utility.ts passes `process.parentPort`.
 */
import type { SecretSource } from '@arcotheon/sdk';
import type { Result } from '../common/types.js';
import type { HostEvent } from '../common/events.js';
import { parseToUtility, type FromUtility } from '../shared/utility-protocol.js';

/** What the utility needs of the host service (electron/host/service.ts). */
export interface DispatchingService {
  dispatch(method: unknown, args: unknown): Promise<Result<unknown>>;
  subscribe(listener: (event: HostEvent) => void): () => void;
}

/** `process.parentPort` narrowed: messages arrive as `{ data }`. */
export interface ParentPortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}

/** Asks main for secrets over the port; answers come back through `receive`. */
export class SecretChannel {
  readonly #post: (message: FromUtility) => void;
  readonly #waiting = new Map<number, (value: string | null) => void>();
  #next = 0;

  constructor(post: (message: FromUtility) => void) {
    this.#post = post;
  }

  /** The SecretSource handed to the host service's tool runs. */
  readonly source: SecretSource = ({ capability, tool, variable }) =>
    new Promise<string | null>((resolve) => {
      const id = ++this.#next;
      this.#waiting.set(id, resolve);
      this.#post({ kind: 'secret', id, capability, tool, variable });
    });

  answer(id: number, value: string | null): void {
    const resolve = this.#waiting.get(id);
    this.#waiting.delete(id);
    resolve?.(value);
  }

  readonly #storing = new Map<number, () => void>();

  /**
   * Where the host keeps the values a user gave at install (an MCP Bundle's settings;
   * docs/spec/mcp-runtime.md): main's store, encrypted with the OS keychain, the one tool runs
   * are answered from. Without a keychain main keeps nothing and asks at the first run instead.
   */
  readonly store = {
    set: (capability: string, variable: string, value: string): Promise<void> =>
      new Promise<void>((resolve) => {
        const id = ++this.#next;
        this.#storing.set(id, resolve);
        this.#post({ kind: 'secret-store', id, capability, variable, value });
      }),
  };

  stored(id: number): void {
    const resolve = this.#storing.get(id);
    this.#storing.delete(id);
    resolve?.();
  }
}

/**
 * Connects `service` to the main process over `port`. Returns the function that stops forwarding
 * events. Sends `ready` once listening.
 */
export function serveOverPort(service: DispatchingService, port: ParentPortLike, secrets: SecretChannel): () => void {
  const post = (message: FromUtility): void => port.postMessage(message);
  const unsubscribe = service.subscribe((event) => post({ kind: 'event', event }));
  port.on('message', ({ data }) => {
    const message = parseToUtility(data);
    if (message === null) return;
    if (message.kind === 'secret-answer') {
      secrets.answer(message.id, message.value);
      return;
    }
    if (message.kind === 'secret-stored') {
      secrets.stored(message.id);
      return;
    }
    const { id, method, args } = message;
    void service
      .dispatch(method, args)
      .catch((error: unknown): Result<unknown> => ({
        ok: false,
        error: { code: 'E_IO', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` },
      }))
      .then((result) => post({ kind: 'result', id, result }));
  });
  post({ kind: 'ready' });
  return unsubscribe;
}
