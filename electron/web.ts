/**
 * The host service over a WebSocket on 127.0.0.1 (DESIGN §8): what `arcotheon ui` serves to a
 * browser, and what the e2e suite drives. The same API as the Electron preload, over one small
 * protocol (electron/common/ws-transport.ts is the browser side):
 *
 *   client -> host   { "id": 1, "method": "installs.plan", "args": ["acme/pdf"] }
 *   host -> client   { "id": 1, "result": { "ok": true, "value": { ... } } }
 *   host -> client   { "event": { "type": "progress", ... } }
 *
 * Anything on this machine can connect to a loopback port, and any web page can try through the
 * browser, so the socket at /api and GET /api/session require a session cookie, which a one-time
 * sign-in address (/signin?code=…) starts (web-sessions.ts), and refuse a foreign Origin or Host
 * header (DNS rebinding: a hostile page whose name resolves to 127.0.0.1). The pages themselves
 * (the built renderer) hold no secret and need no session.
 *
 * Nothing a client does may stop the server: every socket has an error handler
 * (a reset during a refused upgrade, malformed HTTP, malformed frames), an oversized message
 * closes only that connection (1009), a client that stops reading is dropped once the replies it
 * has not read pass a cap, and connections and requests in flight are capped. Connections that are
 * not (yet) a signed-in WebSocket are capped and timed out on their own (SECURITY.md, the local UI
 * server), so idle TCP connections cannot use up the descriptors a signed-in user's socket needs.
 */
import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostService } from './host/service.js';
import { preloadLinkHeader } from './shared/preload-links.js';
import { openStaticFile, staticRelativePath } from './shared/static-files.js';
import { uiContentType } from './shared/ui-content-types.js';
import { FIRST_PAGE_PATH } from './common/ws-transport.js';
import { cookieValue, sessionCookieName, UiSessions, type SignInOutcome } from './web-sessions.js';

export interface WebHostOptions {
  service: HostService;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The built renderer to serve at / (index.html and its assets); absent or unbuilt serves a page saying how to build it. */
  staticDir?: string;
  /** Largest message accepted from the browser (default 4 MiB; a sideload chunk is 1.4 MiB). */
  maxMessageBytes?: number;
  /** Replies and events a client has not read yet, in bytes, before it is dropped (default 32 MiB). */
  maxBufferedBytes?: number;
  /** Open API connections at once (default 32). */
  maxConnections?: number;
  /** Requests one connection may have in flight (default 64). */
  maxInFlight?: number;
  /**
   * Connections that are not a signed-in WebSocket (a page or asset request, a handshake under way,
   * an idle or hostile TCP connection) at once (default 64): past it the oldest idle one is closed.
   */
  maxUnauthenticated?: number;
  /** How long such a connection may sit without a request in progress (default 10 s). */
  unauthenticatedTimeoutMs?: number;
  /** Where sessions are kept so a restart on the same home honours them (`<home>/ui/sessions.json`); absent: memory only. */
  sessionFile?: string;
  /** How long a sign-in address works (default 5 minutes). */
  signInCodeTtlMs?: number;
  /** Where problems with clients are reported (default: nowhere; the server keeps serving). */
  log?: (message: string) => void;
}

export interface WebHost {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The session cookie's name on this port (`arcotheon_session_<port>`). */
  readonly cookieName: string;
  /** A new one-time sign-in address, `http://127.0.0.1:<port>/signin?code=…`. */
  signInUrl(): string;
  /** Open signed-in API connections (for tests and diagnostics). */
  connections(): number;
  /** Open connections that are not a signed-in WebSocket. */
  unauthenticated(): number;
  close(): Promise<void>;
}

/** Shown when the renderer has not been built: plain HTML, no script (the CSP forbids inline script anyway). */
export const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Arcotheon</title></head><body>' +
  '<h1>Arcotheon</h1><p>The user interface has not been built yet. Run <code>npm run build</code> ' +
  '(or <code>npm run build:renderer</code>) in the Arcotheon folder, then reload this page.</p></body></html>';

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const maxPayload = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const maxBuffered = options.maxBufferedBytes ?? 32 * 1024 * 1024;
  const maxConnections = options.maxConnections ?? 32;
  const maxInFlight = options.maxInFlight ?? 64;
  const maxUnauthenticated = options.maxUnauthenticated ?? 64;
  const unauthenticatedTimeoutMs = options.unauthenticatedTimeoutMs ?? 10_000;
  const log = options.log ?? (() => undefined);
  const staticRoot = options.staticDir === undefined ? undefined : await realpath(options.staticDir).catch(() => undefined);
  const sessions = await UiSessions.open({
    ...(options.sessionFile === undefined ? {} : { file: options.sessionFile }),
    ...(options.signInCodeTtlMs === undefined ? {} : { codeTtlMs: options.signInCodeTtlMs }),
    log,
  });
  const port = (): number => (server.address() as { port: number }).port;
  const cookieName = (): string => sessionCookieName(port());

  const server = createServer((req, res) => {
    res.on('error', () => undefined);
    void route(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    });
  });
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: a page served under another name must not read the UI, sign in or ask the API.
    if (!allowedHosts(port()).includes(req.headers.host ?? '')) return reply(res, 403, 'forbidden');
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    } catch {
      return reply(res, 400, 'bad request');
    }
    if (path === '/signin') return signIn(req, res, sessions, cookieName(), port());
    if (path === '/api/session') {
      if (!sameOrigin(req, port())) return reply(res, 403, 'forbidden');
      const signedIn = sessions.check(cookieValue(req.headers.cookie, cookieName()) ?? '');
      return replyJson(res, signedIn ? 200 : 401, { signedIn });
    }
    if (path === FIRST_PAGE_PATH) {
      // The same checks as the socket: this origin only, and a signed-in browser.
      if (!sameOrigin(req, port())) return reply(res, 403, 'forbidden');
      if (!sessions.check(cookieValue(req.headers.cookie, cookieName()) ?? '')) return replyJson(res, 401, { signedIn: false });
      return firstPage(req, res, options.service);
    }
    return serveStatic(req, res, staticRoot, port());
  };

  // Connections that are not a signed-in WebSocket: capped, and closed when idle too long.
  const unauthenticated = new Map<Socket, { busy: boolean; timer: NodeJS.Timeout | null }>();
  const idleTimer = (socket: Socket): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      log('closed a connection that stayed idle without signing in');
      socket.destroy();
    }, unauthenticatedTimeoutMs);
    timer.unref();
    return timer;
  };
  const forget = (socket: Socket): void => {
    const entry = unauthenticated.get(socket);
    if (entry?.timer) clearTimeout(entry.timer);
    unauthenticated.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    socket.on('error', () => undefined);
    if (unauthenticated.size >= maxUnauthenticated) {
      // The oldest idle one goes (a flood's sockets are older than the user's); else the oldest.
      const victim = [...unauthenticated].find(([, e]) => !e.busy)?.[0] ?? unauthenticated.keys().next().value;
      if (victim !== undefined) {
        log(`closed a connection: more than ${maxUnauthenticated} are not signed in`);
        forget(victim);
        victim.destroy();
      }
    }
    unauthenticated.set(socket, { busy: false, timer: idleTimer(socket) });
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const entry = unauthenticated.get(socket);
    if (entry === undefined) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.busy = true;
    entry.timer = null;
    res.once('close', () => {
      const now = unauthenticated.get(socket);
      if (now === undefined || socket.destroyed) return;
      now.busy = false;
      now.timer = idleTimer(socket);
    });
  });

  // A client speaking broken HTTP (or resetting mid-request) loses its connection, nothing more.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    log(`dropped a client sending malformed HTTP (${error.code ?? error.message})`);
    if (socket.writable && error.code !== 'ECONNRESET')
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    socket.destroy();
  });
  server.on('error', (error) => log(`server error: ${error.message}`));
  const sockets = new WebSocketServer({ noServer: true, maxPayload, clientTracking: true, perMessageDeflate: false });
  sockets.on('error', (error) => log(`websocket server error: ${error.message}`));
  sockets.on('wsClientError', (error, socket) => {
    log(`refused a bad websocket handshake (${error.message})`);
    socket.on('error', () => undefined);
    socket.destroy();
  });
  /** The signed-in sockets of each session, closed when the session is ended. */
  const bySession = new Map<string, Set<WebSocket>>();
  sessions.onRevoke((session) => {
    for (const ws of bySession.get(session) ?? []) ws.close(4401, 'signed out');
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // Before anything is written: a reset during a refused upgrade must not become an unhandled 'error'.
    socket.on('error', () => undefined);
    const session = sessions.sessionOf(cookieValue(req.headers.cookie, cookieName()) ?? '');
    const refusal =
      checkUpgrade(req, port(), session !== null) ?? (sockets.clients.size >= maxConnections ? '503 Service Unavailable' : null);
    if (refusal !== null || session === null) {
      if (socket.writable) socket.end(`HTTP/1.1 ${refusal ?? '401 Unauthorized'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => {
      // Signed in: from now on the connection counts against maxConnections, not the unauthenticated cap.
      forget(socket);
      const mine = bySession.get(session) ?? new Set<WebSocket>();
      bySession.set(session, mine);
      mine.add(ws);
      ws.once('close', () => {
        mine.delete(ws);
        if (mine.size === 0) bySession.delete(session);
      });
      attach(ws, options.service, { maxBuffered, maxInFlight, log });
    });
  });

  await listen(server, options.port ?? 0, sessions.rememberedPort());
  await sessions.listening(port());
  const origin = `http://127.0.0.1:${port()}`;
  return {
    port: port(),
    origin,
    cookieName: cookieName(),
    signInUrl: () => `${origin}/signin?code=${sessions.issueCode()}`,
    connections: () => sockets.clients.size,
    unauthenticated: () => unauthenticated.size,
    close: async () => {
      await closeAll(server, sockets);
      await sessions.flush();
    },
  };
}

/**
 * Listens on 127.0.0.1. Port 0 means "any": then the port an earlier server on this home used is
 * tried first, so that a restart keeps the address open tabs reconnect to (a free port otherwise).
 */
async function listen(server: Server, port: number, remembered: number | null): Promise<void> {
  const attempt = (p: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (port === 0 && remembered !== null) {
    try {
      return await attempt(remembered);
    } catch {
      // Taken by something else: any free port will do.
    }
  }
  await attempt(port);
}

const allowedHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

/** No Origin (a same-origin GET), or this server's own. */
function sameOrigin(req: Pick<IncomingMessage, 'headers'>, port: number): boolean {
  const origin = req.headers.origin;
  return origin === undefined || allowedHosts(port).some((h) => origin === `http://${h}`);
}

/** The reasons an upgrade to /api is refused, as an HTTP status line; null when it is allowed. */
export function checkUpgrade(req: Pick<IncomingMessage, 'url' | 'headers'>, port: number, signedIn: boolean): string | null {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return '400 Bad Request';
  }
  if (url.pathname !== '/api') return '404 Not Found';
  if (!signedIn) return '401 Unauthorized';
  if (!allowedHosts(port).includes(req.headers.host ?? '')) return '403 Forbidden';
  // Browsers always send Origin on WebSocket requests; only the UI's own origin may connect.
  if (!sameOrigin(req, port)) return '403 Forbidden';
  return null;
}

/** What a refused sign-in address says, in words (the page carries no script and no secret). */
export const SIGN_IN_REFUSED: Record<Exclude<SignInOutcome['kind'], 'signed-in' | 'already-signed-in'>, { title: string; text: string }> = {
  used: {
    title: 'This sign-in address was already used',
    text:
      'Each address that arcotheon ui opens or prints works once. If you did not open it before, someone else ' +
      'on this computer may have: to be safe, the session it started has been ended.',
  },
  expired: {
    title: 'This sign-in address has expired',
    text: 'Each address that arcotheon ui opens or prints works once, for a few minutes.',
  },
  unknown: {
    title: 'This sign-in address is not valid',
    text: 'It was not made by the arcotheon ui that is running now (it may have been restarted).',
  },
};

const WHAT_TO_DO =
  'Open Arcotheon again from the terminal: run <code>arcotheon ui</code>, or, where it is already running, ' +
  'press Enter in its terminal for a new address and open that.';

async function signIn(req: IncomingMessage, res: ServerResponse, sessions: UiSessions, cookieName: string, port: number): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed');
  const code = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('code') ?? '';
  const outcome = await sessions.exchange(code, cookieValue(req.headers.cookie, cookieName));
  if (outcome.kind === 'signed-in' || outcome.kind === 'already-signed-in') {
    res.writeHead(303, {
      ...securityHeaders(port),
      Location: '/',
      'Content-Length': 0,
      // Not port-scoped by the browser, hence the port in the name; HttpOnly keeps it from page
      // script, SameSite=Strict from requests other sites start. No Max-Age: it ends with the browser.
      ...(outcome.kind === 'signed-in' ? { 'Set-Cookie': `${cookieName}=${outcome.cookie}; Path=/; HttpOnly; SameSite=Strict` } : {}),
    });
    return void res.end();
  }
  const { title, text } = SIGN_IN_REFUSED[outcome.kind];
  const body = Buffer.from(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Arcotheon: sign-in refused</title></head><body>' +
      `<main><h1>${title}</h1><p>${text}</p><p>${WHAT_TO_DO}</p></main></body></html>`,
  );
  res.writeHead(403, { ...securityHeaders(port), 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function attach(ws: WebSocket, service: HostService, limits: { maxBuffered: number; maxInFlight: number; log: (m: string) => void }): void {
  let inFlight = 0;
  /** Sends unless the client stopped reading: past the cap the connection is dropped. */
  const send = (message: unknown): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > limits.maxBuffered) {
      limits.log(`dropped a client that stopped reading (${ws.bufferedAmount} bytes unread)`);
      ws.terminate();
      return;
    }
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch {
      text = JSON.stringify({
        id: (message as { id?: unknown }).id ?? null,
        result: { ok: false, error: { code: 'E_PROTOCOL', message: 'The reply could not be encoded.' } },
      });
    }
    ws.send(text, (error) => {
      if (error !== undefined && error !== null) ws.terminate();
    });
  };
  // Oversized messages (1009), malformed frames (1002) and resets arrive here: that client only.
  // ws has already started the closing handshake with the right code; the socket is destroyed if
  // the client does not finish it within a second.
  ws.on('error', (error) => {
    limits.log(`closing a websocket client: ${error.message}`);
    const force = setTimeout(() => ws.terminate(), 1000);
    force.unref();
    ws.once('close', () => clearTimeout(force));
  });
  const unsubscribe = service.subscribe((event) => send({ event }));
  ws.on('close', unsubscribe);
  ws.on('message', (data, isBinary) => {
    let request: { id?: unknown; method?: unknown; args?: unknown };
    try {
      if (isBinary) throw new Error('binary');
      const parsed: unknown = JSON.parse(data.toString());
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      request = parsed as typeof request;
    } catch {
      send({
        id: null,
        result: { ok: false, error: { code: 'E_PROTOCOL', message: 'Each message must be one JSON object { id, method, args }.' } },
      });
      return;
    }
    const id = typeof request.id === 'number' || (typeof request.id === 'string' && request.id.length <= 64) ? request.id : null;
    if (inFlight >= limits.maxInFlight) {
      send({
        id,
        result: {
          ok: false,
          error: {
            code: 'E_LIMIT',
            message: `At most ${limits.maxInFlight} requests may wait at once; wait for answers before sending more.`,
          },
        },
      });
      return;
    }
    inFlight++;
    void service
      .dispatch(request.method, request.args ?? [])
      .catch((error: unknown) => ({
        ok: false as const,
        error: { code: 'E_IO' as const, message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` },
      }))
      .then((result) => {
        inFlight--;
        send({ id, result });
      });
  });
}

/** Headers of everything served: no script but our own files, sockets only to this origin. */
function securityHeaders(port: number): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy':
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; ` +
      `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; ` +
      "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  };
}

/** Files up to this size (the page's scripts are a few hundred KiB) are read whole; larger ones are streamed. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;

async function serveStatic(req: IncomingMessage, res: ServerResponse, root: string | undefined, port: number): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed');
  // DNS rebinding: a page served under another name must not read the UI either.
  if (![`127.0.0.1:${port}`, `localhost:${port}`].includes(req.headers.host ?? '')) return reply(res, 403, 'forbidden');
  let path: string;
  try {
    path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
  } catch {
    return reply(res, 400, 'bad request');
  }
  const wantsIndex = path === '/' || path === '/index.html';
  if (root === undefined || (wantsIndex && (await stat(join(root, 'index.html')).catch(() => null)) === null)) {
    if (!wantsIndex) return reply(res, 404, 'not found');
    const body = Buffer.from(NOT_BUILT_PAGE);
    res.writeHead(200, { ...securityHeaders(port), 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
    return void res.end(req.method === 'HEAD' ? undefined : body);
  }
  // The one static-file rule of both UI servers (shared/static-files.ts): path checks, then
  // containment after resolving links, so a symlink inside the build that points elsewhere is refused.
  const relativePath = staticRelativePath(path);
  if (relativePath === null) return reply(res, 403, 'forbidden');
  const found = await openStaticFile(root, relativePath);
  if (found.status !== 200) return found.status === 403 ? reply(res, 403, 'forbidden') : reply(res, 404, 'not found');
  const { file } = found;
  if (relativePath === 'index.html') {
    // The page itself (about 1 KiB), read whole: its own files go with it as preloads (shared/preload-links.ts).
    const body = await readFile(file);
    const links = preloadLinkHeader(body.toString('utf8'));
    res.writeHead(200, {
      ...securityHeaders(port),
      ...(links === null ? {} : { Link: links }),
      'Content-Type': uiContentType(file),
      'Content-Length': body.length,
    });
    return void res.end(req.method === 'HEAD' ? undefined : body);
  }
  if (req.method !== 'HEAD' && found.size <= WHOLE_READ_BYTES) {
    // One read and one write: a stream takes an event-loop turn per 64 KiB, and at start-up the
    // loop is shared with the catalogue's index being built, so the page's script waited on each.
    const body = await readFile(file);
    res.writeHead(200, { ...securityHeaders(port), 'Content-Type': uiContentType(file), 'Content-Length': body.length });
    return void res.end(body);
  }
  res.writeHead(200, { ...securityHeaders(port), 'Content-Type': uiContentType(file), 'Content-Length': found.size });
  if (req.method === 'HEAD') return void res.end();
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/**
 * GET FIRST_PAGE_PATH?limit=N (electron/common/ws-transport.ts): what the socket answers to
 * `catalogue.index({ limit: N })`, for the page's first script (renderer/src/start.ts). Read-only;
 * the host checks the arguments as for any call. JSON with nosniff: registry text in it is never HTML.
 */
async function firstPage(req: IncomingMessage, res: ServerResponse, service: HostService): Promise<void> {
  if (req.method !== 'GET') return reply(res, 405, 'method not allowed');
  const limit = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('limit') ?? '';
  if (!/^[1-9][0-9]{0,5}$/.test(limit)) return reply(res, 400, 'bad request: limit must be a whole number from 1');
  const result = await service.dispatch('catalogue.index', [{ limit: Number(limit) }]);
  if (!res.destroyed) replyJson(res, 200, result);
}

function replyJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
  res.end(body);
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

async function closeAll(server: Server, sockets: WebSocketServer): Promise<void> {
  for (const client of sockets.clients) client.terminate();
  await new Promise<void>((resolve) => sockets.close(() => resolve()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
