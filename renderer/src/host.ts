/**
 * Transport selection: the one place that knows whether the renderer runs inside the Electron
 * window (a preload bridge at `window.arcotheon`) or in a browser opened by `arcotheon ui` (the
 * WebSocket at /api, authenticated by the session cookie that the one-time sign-in address set;
 * docs/host-api.md). Everything else talks to the typed client from electron/common and never
 * knows which (STYLE: "every host call goes through the typed client").
 *
 * In the browser the client outlives its socket: when the socket drops (the network, a restart
 * of `arcotheon ui` on the same home, which keeps its port and honours the session), it
 * reconnects by itself with a backoff, and `onConnection` tells the page (a banner; the stores
 * reload once connected again). When the server answers that this browser is not signed in, no
 * retry helps: the state is `signed-out` and the page says what to do.
 */
import {
  apiUrl,
  connectReconnecting,
  createHostClient,
  sessionStatus,
  type ConnectionState,
  type HostClient,
} from '../../electron/common/index.js';
import type { PreloadBridge } from '../../electron/common/desktop.js';
import { firstSocket, withEarlyCalls } from './start.js';

export type { ConnectionState };

// The one declaration of `window.arcotheon`: what the Electron preload exposes (contextBridge,
// electron/preload/bridge.ts builds it); absent in a browser opened by `arcotheon ui`.
declare global {
  interface Window {
    arcotheon?: PreloadBridge;
  }
}

let client: HostClient | null = null;

/** The connected client; only valid after `connectHost()` resolved (main.tsx waits for it). */
export function host(): HostClient {
  if (client === null) throw new Error('The host client is used before connectHost() finished.');
  return client;
}

export interface Connection {
  kind: 'electron' | 'websocket';
  client: HostClient;
  /** The state once the first attempt settled: `connected`, or `signed-out` when this browser must sign in. */
  state(): ConnectionState;
  /** Every later change: reconnecting, connected again, signed out. */
  onChange(listener: (state: ConnectionState) => void): () => void;
  /** Skips the wait before the next reconnection attempt. */
  retryNow(): void;
}

export async function connectHost(): Promise<Connection> {
  const bridge = window.arcotheon;
  if (bridge !== undefined && typeof bridge.call === 'function') {
    client = createHostClient(withEarlyCalls(bridge.call), bridge.subscribe);
    const connected: ConnectionState = { kind: 'connected', reconnected: false };
    return { kind: 'electron', client, state: () => connected, onChange: () => () => undefined, retryNow: () => undefined };
  }
  // An address from before the one-time sign-in (`#token=…`, bookmarked) carries nothing usable now.
  if (location.hash.startsWith('#token=')) history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  const origin = location.origin;
  const socket = connectReconnecting({
    url: apiUrl(origin),
    create: (url) => new WebSocket(url),
    session: () => sessionStatus(origin, (url) => fetch(url, { credentials: 'same-origin', cache: 'no-store' })),
    // The socket the page's first script opened (start.ts), with Discover's first page asked on it.
    ...(firstSocket === null ? {} : { first: firstSocket }),
  });
  client = createHostClient(withEarlyCalls(socket.call), socket.subscribe);
  // The first attempt settles as connected, signed out, or (the server did not answer) reconnecting.
  await new Promise<void>((resolve) => {
    if (socket.state().kind !== 'connecting') return resolve();
    const stop = socket.onState(() => {
      stop();
      resolve();
    });
  });
  return { kind: 'websocket', client, state: socket.state, onChange: socket.onState, retryNow: socket.retryNow };
}
