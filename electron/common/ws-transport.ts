/**
 * The browser side of the `arcotheon ui` WebSocket protocol (electron/web.ts):
 *
 *   client -> host   { "id": 1, "method": "installs.plan", "args": ["acme/pdf"] }
 *   host -> client   { "id": 1, "result": { "ok": true, "value": { ... } } }
 *   host -> client   { "event": { "type": "progress", ... } }
 *
 * The socket is at `ws://<host>/api?token=<token>`; the token is the `#token=` fragment of the
 * page's URL (`tokenFromLocation`). Works with the browser's WebSocket and with the `ws` package
 * (tests): only the small `WebSocketLike` surface below is used.
 */
import type { CallFn, SubscribeFn } from './client.js';
import type { HostEvent, Result } from './types.js';

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

export interface HostSocket {
  call: CallFn;
  subscribe: SubscribeFn;
  /** Resolves when the socket closes (the host stopped, the network dropped). */
  readonly closed: Promise<void>;
  close(): void;
}

const OPEN = 1;

/** The token in a page URL's fragment (`#token=...`), or null. */
export function tokenFromLocation(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  return params.get('token');
}

/** The API socket URL for a page served by `arcotheon ui` at `origin` (`http://127.0.0.1:port`). */
export function apiUrl(origin: string, token: string): string {
  return `${origin.replace(/^http/, 'ws')}/api?token=${encodeURIComponent(token)}`;
}

/** Opens the socket and resolves once it is open (rejects if it closes first). */
export function connectHostSocket(url: string, create: WebSocketFactory): Promise<HostSocket> {
  const ws = create(url);
  let nextId = 1;
  const pending = new Map<number, (result: Result<unknown>) => void>();
  const listeners = new Set<(event: HostEvent) => void>();
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  ws.addEventListener('message', (message) => {
    if (typeof message.data !== 'string') return;
    let parsed: { id?: unknown; result?: Result<unknown>; event?: HostEvent };
    try {
      parsed = JSON.parse(message.data) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.event !== undefined) {
      for (const listener of [...listeners]) listener(parsed.event);
      return;
    }
    if (typeof parsed.id === 'number' && parsed.result !== undefined) {
      const done = pending.get(parsed.id);
      pending.delete(parsed.id);
      done?.(parsed.result);
    }
  });
  ws.addEventListener('close', () => {
    for (const done of pending.values())
      done({
        ok: false,
        error: { code: 'E_IO', message: 'The connection to Arcotheon closed; reload the page (is "arcotheon ui" still running?).' },
      });
    pending.clear();
    resolveClosed();
  });

  const socket: HostSocket = {
    call(method, args) {
      if (ws.readyState !== OPEN)
        return Promise.resolve({ ok: false, error: { code: 'E_IO', message: 'Not connected to Arcotheon; reload the page.' } });
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, args }));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    closed,
    close: () => ws.close(1000, 'bye'),
  };

  return new Promise((resolve, reject) => {
    if (ws.readyState === OPEN) return resolve(socket);
    ws.addEventListener('open', () => resolve(socket));
    ws.addEventListener('error', () => reject(new Error(`Could not connect to ${url.replace(/token=[^&]*/, 'token=…')}.`)));
    void closed.then(() => reject(new Error('The connection closed before it opened.')));
  });
}
