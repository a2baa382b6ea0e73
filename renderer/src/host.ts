/**
 * Transport selection: the one place that knows whether the renderer runs inside the Electron
 * window (a preload bridge at `window.arcotheon`) or in a browser opened by `arcotheon ui` (the
 * WebSocket at /api, authenticated by the `#token=` of the page URL). Everything else talks to the
 * typed client from electron/common and never knows which (STYLE: "every host call goes through
 * the typed client").
 */
import {
  apiUrl,
  connectHostSocket,
  createHostClient,
  tokenFromLocation,
  type CallFn,
  type HostClient,
  type SubscribeFn,
} from '../../electron/common/index.js';

/** What the Electron preload exposes (contextBridge): the two primitives the typed client needs. */
interface PreloadBridge {
  call: CallFn;
  subscribe: SubscribeFn;
}

declare global {
  interface Window {
    arcotheon?: PreloadBridge;
  }
}

const TOKEN_KEY = 'arcotheon.token';

let client: HostClient | null = null;

/** The connected client; only valid after `connectHost()` resolved (main.tsx waits for it). */
export function host(): HostClient {
  if (client === null) throw new Error('The host client is used before connectHost() finished.');
  return client;
}

type Connection = { kind: 'electron' | 'websocket'; client: HostClient; closed: Promise<void> };

export async function connectHost(): Promise<Connection> {
  const bridge = window.arcotheon;
  if (bridge !== undefined && typeof bridge.call === 'function') {
    client = createHostClient(bridge.call, bridge.subscribe);
    return { kind: 'electron', client, closed: new Promise<void>(() => undefined) };
  }
  // The token arrives once in the URL fragment; keep it for reloads of this tab, and take it out
  // of the address bar so it does not end up in screenshots, bookmarks or the history.
  const fromUrl = tokenFromLocation(location.hash);
  if (fromUrl !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  }
  const token = fromUrl ?? sessionStorage.getItem(TOKEN_KEY);
  if (token === null)
    throw new Error('This page needs the address that "arcotheon ui" printed (it ends with #token=…). Open that address instead.');
  const socket = await connectHostSocket(apiUrl(location.origin, token), (url) => new WebSocket(url));
  client = createHostClient(socket.call, socket.subscribe);
  return { kind: 'websocket', client, closed: socket.closed };
}
