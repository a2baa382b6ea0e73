/**
 * The browser side of the `arcotheon ui` WebSocket protocol (electron/web.ts):
 *
 *   client -> host   { "id": 1, "method": "installs.plan", "args": ["acme/pdf"] }
 *   host -> client   { "id": 1, "result": { "ok": true, "value": { ... } } }
 *   host -> client   { "event": { "type": "progress", ... } }
 *
 * The socket is at `ws://<host>/api`. The browser sends the session cookie the one-time sign-in
 * address set (docs/host-api.md); `GET /api/session` says whether this browser is signed in.
 * Works with the browser's WebSocket and with the `ws` package (tests): only the small
 * `WebSocketLike` surface below is used.
 *
 * `connectReconnecting` keeps one client across dropped sockets and server restarts: it
 * reconnects with a backoff, resends `operations.wait` calls the drop cut off, and stops only when
 * the server says this browser is not signed in, so the page can say what to do.
 */
import type { CallFn, SubscribeFn } from './client.js';
import type { HostEvent } from './events.js';
import type { Result } from './types.js';

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
  /** Whether the socket is open now. */
  isOpen(): boolean;
  close(): void;
}

const OPEN = 1;

const NOT_CONNECTED = {
  code: 'E_IO',
  message: 'Arcotheon is not connected right now. It reconnects by itself; try again in a moment.',
} as const;

/** The API socket URL for a page served by `arcotheon ui` at `origin` (`http://127.0.0.1:port`). */
export function apiUrl(origin: string): string {
  return `${origin.replace(/^http/, 'ws')}/api`;
}

/** The address that answers whether this browser is signed in (200) or not (401). */
export function sessionUrl(origin: string): string {
  return `${origin}/api/session`;
}

/**
 * Where `GET ?limit=N` answers `catalogue.index({ limit: N })` over plain HTTP, with the same session
 * as the socket: the page's first script asks Discover's first page there (a fetch leaves at once;
 * a socket's first message waits for its open event, which the browser delivers only once the
 * page's larger script has run). Same JSON as the socket's `result`.
 */
export const FIRST_PAGE_PATH = '/api/catalogue-index';

/** The address of the first `limit` rows of Discover's index (FIRST_PAGE_PATH). */
export function firstPageUrl(origin: string, limit: number): string {
  return `${origin}${FIRST_PAGE_PATH}?limit=${limit}`;
}

/** Why a socket could not be had: the browser is not signed in, or the server did not answer. */
export type SessionStatus = 'signed-in' | 'signed-out' | 'unreachable';

/** Asks `GET /api/session` with `fetchFn` (the browser's fetch sends the session cookie itself). */
export async function sessionStatus(origin: string, fetchFn: (url: string) => Promise<{ status: number }>): Promise<SessionStatus> {
  try {
    const { status } = await fetchFn(sessionUrl(origin));
    return status === 200 ? 'signed-in' : status === 401 ? 'signed-out' : 'unreachable';
  } catch {
    return 'unreachable';
  }
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
        error: {
          code: 'E_IO',
          message: 'The connection to Arcotheon was lost before it answered. It reconnects by itself; try again then.',
        },
      });
    pending.clear();
    resolveClosed();
  });

  const socket: HostSocket = {
    call(method, args) {
      if (ws.readyState !== OPEN) return Promise.resolve({ ok: false, error: NOT_CONNECTED });
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
    isOpen: () => ws.readyState === OPEN,
    close: () => ws.close(1000, 'bye'),
  };

  return new Promise((resolve, reject) => {
    if (ws.readyState === OPEN) return resolve(socket);
    ws.addEventListener('open', () => resolve(socket));
    ws.addEventListener('error', () => reject(new Error('Could not connect to Arcotheon.')));
    void closed.then(() => reject(new Error('The connection closed before it opened.')));
  });
}

/** Where a reconnecting client stands (the page shows it: a banner, or a screen saying what to do). */
export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'connected'; reconnected: boolean }
  /** Waiting `retryInMs` before the next try; `serverAnswers`: the server is up (the socket was refused or dropped). */
  | { kind: 'reconnecting'; attempt: number; retryInMs: number; serverAnswers: boolean }
  /** The server answers but this browser's session is not valid: no retry helps, the user must sign in again. */
  | { kind: 'signed-out' }
  | { kind: 'closed' };

export interface ReconnectingHost {
  call: CallFn;
  subscribe: SubscribeFn;
  state(): ConnectionState;
  /** Calls `listener` on every change of state (not with the current one). */
  onState(listener: (state: ConnectionState) => void): () => void;
  /** Skips the wait before the next try. */
  retryNow(): void;
  close(): void;
}

export interface ReconnectOptions {
  url: string;
  create: WebSocketFactory;
  /** Asked after every failed or dropped socket (`sessionStatus`). */
  session: () => Promise<SessionStatus>;
  /** Waits between tries, in order; the last repeats (default 250 ms doubling to 8 s). */
  delays?: readonly number[];
  /**
   * A socket already being opened (the page's first script opens one as the page starts): the first
   * try takes it instead of opening another; null when it could not be had (then as any failed try).
   */
  first?: Promise<HostSocket | null>;
}

const DEFAULT_DELAYS = [250, 500, 1000, 2000, 4000, 8000] as const;

/**
 * One client over a socket that is replaced when it drops: calls go to the socket of the moment,
 * events come from whichever is open, and an `operations.wait` cut off by a drop is sent again
 * once connected (the operation keeps running in the host). Other calls made while disconnected
 * fail at once with E_IO; the page reloads its data when the state becomes `connected` again.
 */
export function connectReconnecting(options: ReconnectOptions): ReconnectingHost {
  const delays = options.delays ?? DEFAULT_DELAYS;
  const listeners = new Set<(event: HostEvent) => void>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  let state: ConnectionState = { kind: 'connecting' };
  let current: HostSocket | null = null;
  /** Counts the sockets opened so far: a call cut off by a drop waits for a later one. */
  let generation = 0;
  let stopped = false;
  let wake: () => void = () => undefined;
  const connectedWaiters = new Set<() => void>();

  const finished = (): boolean => state.kind === 'signed-out' || state.kind === 'closed';
  const setState = (next: ConnectionState): void => {
    state = next;
    if (next.kind === 'connected' || finished()) {
      for (const done of [...connectedWaiters]) done();
      connectedWaiters.clear();
    }
    for (const listener of [...stateListeners]) listener(next);
  };
  /** Resolves once a socket newer than `after` is open, or once no connection will come. */
  const connectionAfter = async (after: number): Promise<void> => {
    while (generation <= after && !finished()) await new Promise<void>((resolve) => connectedWaiters.add(resolve));
  };

  const loop = async (): Promise<void> => {
    let attempt = 0;
    let everConnected = false;
    let first = options.first;
    while (!stopped) {
      const socket = await (first ?? connectHostSocket(options.url, options.create)).catch(() => null);
      first = undefined;
      if (socket !== null) {
        if (stopped) return socket.close();
        current = socket;
        generation++;
        const unsubscribe = socket.subscribe((event) => {
          for (const listener of [...listeners]) listener(event);
        });
        attempt = 0;
        setState({ kind: 'connected', reconnected: everConnected });
        everConnected = true;
        await socket.closed;
        unsubscribe();
        current = null;
        if (stopped) return;
        setState({ kind: 'reconnecting', attempt: 0, retryInMs: 0, serverAnswers: true });
      }
      const status = await options.session();
      if (stopped) return;
      if (status === 'signed-out') return setState({ kind: 'signed-out' });
      const retryInMs = delays[Math.min(attempt, delays.length - 1)] ?? 1000;
      attempt++;
      setState({ kind: 'reconnecting', attempt, retryInMs, serverAnswers: status === 'signed-in' });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryInMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  void loop();

  const call: CallFn = async (method, args) => {
    for (;;) {
      const socket = current;
      const used = generation;
      if (socket === null || !socket.isOpen()) {
        // Only a wait is held until the next socket (the operation runs on in the host).
        if (method !== 'operations.wait' || finished()) return { ok: false, error: NOT_CONNECTED };
        await connectionAfter(used);
        if (generation === used) return { ok: false, error: NOT_CONNECTED };
        continue;
      }
      const result = await socket.call(method, args);
      // A wait cut off by a drop is asked again on the next socket; the operation kept running.
      if (!result.ok && !socket.isOpen() && method === 'operations.wait' && !stopped) {
        await connectionAfter(used);
        if (generation === used) return result;
        continue;
      }
      return result;
    }
  };

  return {
    call,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    state: () => state,
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    retryNow: () => wake(),
    close() {
      stopped = true;
      wake();
      current?.close();
      setState({ kind: 'closed' });
    },
  };
}
