/**
 * The host service over a WebSocket on 127.0.0.1 (DESIGN §8): what `arcotheon ui` serves to a
 * browser on machines without a desktop session, and what the e2e suite drives. The same API as
 * the Electron preload, over one small protocol:
 *
 *   client -> host   { "id": 1, "method": "installs.plan", "args": ["acme/pdf"] }
 *   host -> client   { "id": 1, "result": { "ok": true, "value": { ... } } }
 *   host -> client   { "event": { "type": "progress", ... } }
 *
 * Anything on this machine can connect to a loopback port, and any web page can try through the
 * browser, so the socket at /api requires the random token printed in the UI's URL, and refuses a
 * foreign Origin or Host header (DNS rebinding: a hostile page whose name resolves to 127.0.0.1).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostService } from './host/service.js';

export interface WebHostOptions {
  service: HostService;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The built renderer to serve at / (index.html and its assets); absent serves only /api. */
  staticDir?: string;
  /** Largest request accepted from the browser (default 4 MiB). */
  maxMessageBytes?: number;
}

export interface WebHost {
  /** `http://127.0.0.1:<port>/#token=<token>`: the one line `arcotheon ui` prints. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = randomBytes(24).toString('base64url');
  const maxPayload = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const server = createServer((req, res) => {
    void serveStatic(req, res, options.staticDir, port()).catch(() => reply(res, 500, 'internal error'));
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload });
  const port = (): number => (server.address() as { port: number }).port;

  server.on('upgrade', (req, socket, head) => {
    const refusal = checkUpgrade(req, token, port());
    if (refusal !== null) {
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => attach(ws, options.service));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${port()}/#token=${token}`;
  return {
    url,
    port: port(),
    token,
    close: () => closeAll(server, sockets),
  };
}

/** The reasons an upgrade to /api is refused, as an HTTP status line; null when it is allowed. */
export function checkUpgrade(req: Pick<IncomingMessage, 'url' | 'headers'>, token: string, port: number): string | null {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
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

function attach(ws: WebSocket, service: HostService): void {
  const unsubscribe = service.subscribe((event) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event }));
  });
  ws.on('close', unsubscribe);
  ws.on('message', (data, isBinary) => {
    void (async () => {
      let request: { id?: unknown; method?: unknown; args?: unknown };
      try {
        if (isBinary) throw new Error('binary');
        request = JSON.parse(data.toString()) as typeof request;
      } catch {
        ws.send(JSON.stringify({ id: null, result: { ok: false, error: { code: 'E_PROTOCOL', message: 'Each message must be one JSON object { id, method, args }.' } } }));
        return;
      }
      const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
      const result = await service.dispatch(request.method, request.args ?? []);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, result }));
    })();
  });
}

async function serveStatic(req: IncomingMessage, res: ServerResponse, dir: string | undefined, port: number): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed');
  // DNS rebinding: a page served under another name must not read the UI either.
  if (![`127.0.0.1:${port}`, `localhost:${port}`].includes(req.headers.host ?? '')) return reply(res, 403, 'forbidden');
  if (dir === undefined) return reply(res, 404, 'not found');
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
  const relative = normalize(path === '/' ? '/index.html' : path).replace(/^([/\\])+/, '');
  const file = join(dir, relative);
  if (relative.split(/[/\\]/).includes('..') || !(file === dir || file.startsWith(dir.endsWith(sep) ? dir : dir + sep))) return reply(res, 403, 'forbidden');
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) return reply(res, 404, 'not found');
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'self'; connect-src 'self' ws://127.0.0.1:* ws://localhost:*; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function closeAll(server: Server, sockets: WebSocketServer): Promise<void> {
  for (const client of sockets.clients) client.terminate();
  await new Promise<void>((resolve) => sockets.close(() => resolve()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
