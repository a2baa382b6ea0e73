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
 * browser, so the socket at /api requires the random token printed in the UI's URL, and refuses a
 * foreign Origin or Host header (DNS rebinding: a hostile page whose name resolves to 127.0.0.1).
 *
 * Nothing a client does may stop the server (issue 11 item 9): every socket has an error handler
 * (a reset during a refused upgrade, malformed HTTP, malformed frames), an oversized message
 * closes only that connection (1009), a client that stops reading is dropped once the replies it
 * has not read pass a cap, and connections and requests in flight are capped.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostService } from './host/service.js';
import { openStaticFile, staticRelativePath } from './host/static-files.js';
import { uiContentType } from './host/ui-content-types.js';

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
  /** Where problems with clients are reported (default: nowhere; the server keeps serving). */
  log?: (message: string) => void;
}

export interface WebHost {
  /** `http://127.0.0.1:<port>/#token=<token>`: the one line `arcotheon ui` prints. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Open API connections (for tests and diagnostics). */
  connections(): number;
  close(): Promise<void>;
}

/** Shown when the renderer has not been built: plain HTML, no script (the CSP forbids inline script anyway). */
export const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Arcotheon</title></head><body>' +
  '<h1>Arcotheon</h1><p>The user interface has not been built yet. Run <code>npm run build</code> ' +
  '(or <code>npm run build:renderer</code>) in the Arcotheon folder, then reload this page.</p></body></html>';

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = randomBytes(24).toString('base64url');
  const maxPayload = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const maxBuffered = options.maxBufferedBytes ?? 32 * 1024 * 1024;
  const maxConnections = options.maxConnections ?? 32;
  const maxInFlight = options.maxInFlight ?? 64;
  const log = options.log ?? (() => undefined);
  const staticRoot = options.staticDir === undefined ? undefined : await realpath(options.staticDir).catch(() => undefined);

  const server = createServer((req, res) => {
    res.on('error', () => undefined);
    void serveStatic(req, res, staticRoot, port()).catch(() => {
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
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
  const port = (): number => (server.address() as { port: number }).port;

  server.on('upgrade', (req, socket, head) => {
    // Before anything is written: a reset during a refused upgrade must not become an unhandled 'error'.
    socket.on('error', () => undefined);
    const refusal = checkUpgrade(req, token, port()) ?? (sockets.clients.size >= maxConnections ? '503 Service Unavailable' : null);
    if (refusal !== null) {
      if (socket.writable) socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => attach(ws, options.service, { maxBuffered, maxInFlight, log }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${port()}/#token=${token}`;
  return {
    url,
    port: port(),
    token,
    connections: () => sockets.clients.size,
    close: () => closeAll(server, sockets),
  };
}

/** The reasons an upgrade to /api is refused, as an HTTP status line; null when it is allowed. */
export function checkUpgrade(req: Pick<IncomingMessage, 'url' | 'headers'>, token: string, port: number): string | null {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return '400 Bad Request';
  }
  if (url.pathname !== '/api') return '404 Not Found';
  const given = url.searchParams.get('token') ?? '';
  if (!sameSecret(given, token)) return '401 Unauthorized';
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? '')) return '403 Forbidden';
  const origin = req.headers.origin;
  // Browsers always send Origin on WebSocket requests; only the UI's own origin may connect.
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) return '403 Forbidden';
  return null;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
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
      `connect-src ws://127.0.0.1:${port} ws://localhost:${port}; ` +
      "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  };
}

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
  // The one static-file rule of both UI servers (host/static-files.ts): path checks, then
  // containment after resolving links, so a symlink inside the build that points elsewhere is refused.
  const relativePath = staticRelativePath(path);
  if (relativePath === null) return reply(res, 403, 'forbidden');
  const found = await openStaticFile(root, relativePath);
  if (found.status !== 200) return found.status === 403 ? reply(res, 403, 'forbidden') : reply(res, 404, 'not found');
  const { file } = found;
  res.writeHead(200, { ...securityHeaders(port), 'Content-Type': uiContentType(file), 'Content-Length': found.size });
  if (req.method === 'HEAD') return void res.end();
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
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
