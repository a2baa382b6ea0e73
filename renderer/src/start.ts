/**
 * The page's first script, loaded before the app's (renderer/vite.config.ts keeps it in a small file
 * of its own, which index.html loads first): when the window opens on Discover it asks the host for
 * the first page of the catalogue's index at once, so that the answer travels while the app's code
 * downloads and starts, and the first cards wait for the slower of the two rather than for both in
 * turn (docs/ui.md "Fast").
 *
 * In a browser opened by `arcotheon ui` the page is asked over HTTP (FIRST_PAGE_PATH), with the
 * session cookie as for everything else (a browser that is not signed in is refused, and the app then
 * says what to do); the API socket is opened here too, and the app takes it as its first one
 * (host.ts). In the Electron window the call goes through the preload bridge. Nothing here renders:
 * the answer is handed to the app's first identical call (`withEarlyCalls`), and only when it
 * succeeded (a failure is asked again the usual way).
 */
import type { CallFn } from '../../electron/common/client.js';
import type { Result } from '../../electron/common/types.js';
import { apiUrl, connectHostSocket, firstPageUrl, type HostSocket } from '../../electron/common/ws-transport.js';
import { parseRoute } from './route.js';

/** Discover's first page: a screenful and more, so the first cards come quickly (stores/catalogue.ts asks the rest). */
export const FIRST_PAGE = 200;

const bridge = window.arcotheon;
const inElectron = bridge !== undefined && typeof bridge.call === 'function';

/**
 * The API socket, opened as the page starts (null when it could not be had, and in the Electron
 * window, which has no socket). The app's connection uses it as its first socket.
 */
export const firstSocket: Promise<HostSocket | null> | null = inElectron
  ? null
  : connectHostSocket(apiUrl(location.origin), (url) => new WebSocket(url)).catch(() => null);

/** An early call that failed (not signed in, no answer): the app asks again the usual way, which says what to do. */
const NOT_ANSWERED: Result<never> = { ok: false, error: { code: 'E_IO', message: 'Arcotheon did not answer.' } };

/** Calls made before the app started, by method and arguments; each is handed out once. */
const early = new Map<string, Promise<Result<unknown>>>();
const keyOf = (method: string, args: readonly unknown[]): string => JSON.stringify([method, args]);

// Only the Discover screen shows the index at once; other screens ask for what they show.
if (parseRoute(location.hash).screen === 'discover') {
  const args = [{ limit: FIRST_PAGE }];
  // A fetch leaves at once; the socket's first message would wait for its open event, which the
  // browser delivers only after the page's larger script has run (FIRST_PAGE_PATH).
  const answer: Promise<Result<unknown>> =
    bridge !== undefined && inElectron
      ? bridge.call('catalogue.index', args)
      : fetch(firstPageUrl(location.origin, FIRST_PAGE), { credentials: 'same-origin', cache: 'no-store' }).then((response) =>
          response.ok ? (response.json() as Promise<Result<unknown>>) : NOT_ANSWERED,
        );
  early.set(
    keyOf('catalogue.index', args),
    answer.catch(() => NOT_ANSWERED),
  );
}

// ICU's number data: the process's first Intl.NumberFormat loads it (50-290 ms in a new page on a 2-core machine; a
// second one costs nothing). Made here, in a task of its own while the app's script downloads, it is no longer paid
// on the way to Discover's first cards, whose status line is the page's first count (lib/format.ts).
setTimeout(() => new Intl.NumberFormat().format(0), 0);

/**
 * `call`, except that the first call of a method with the same arguments as one made as the page
 * started takes that call's answer when it succeeded (else it is asked again through `call`).
 */
export function withEarlyCalls(call: CallFn): CallFn {
  return async (method, args) => {
    const key = keyOf(method, args);
    const answer = early.get(key);
    if (answer === undefined) return call(method, args);
    early.delete(key);
    const result = await answer;
    return result.ok ? result : call(method, args);
  };
}
