/**
 * A programmable HTTPS (test CA, see tls.ts) or HTTP server on 127.0.0.1 for download tests.
 * It counts requests and body bytes per path, and its helpers can serve exact bytes (honouring
 * Range), wrong bytes, endless bodies, lying Content-Length, dropped connections and
 * header-guarded (entitled) content. Only loopback is ever listened on or contacted.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testTls } from './tls.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RequestRecord {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface PathStats {
  requests: number;
  /** Body bytes written to the socket for this path (all requests together). */
  bytes: number;
  /** The Range headers received, in order. */
  ranges: string[];
}

export interface ServeBytesOptions {
  /** Honour `Range: bytes=N-` / `bytes=N-M` with 206 + Content-Range (default true). */
  range?: boolean;
  /** Destroy the connection after this many body bytes, for the first `dropTimes` requests. */
  dropAfterBytes?: number;
  dropTimes?: number;
  /** How long to wait after the cut bytes were written before dropping (default 20 ms). */
  dropDelayMs?: number;
  /** Answer 403 unless every header here is present with this exact value. */
  requireHeaders?: Record<string, string>;
  /** Send this Content-Length instead of the real one (a lie), or null to send none (chunked). */
  contentLength?: number | null;
  headers?: Record<string, string>;
}

export interface EndlessOptions {
  /** Send this Content-Length (a lie); default: none. */
  contentLength?: number;
  /** Safety bound: stop after this many bytes even if the client keeps reading (default 256 MiB). */
  maxBytes?: number;
}

export class TestServer {
  readonly requests: RequestRecord[] = [];
  private readonly routes = new Map<string, RouteHandler>();
  private readonly stats = new Map<string, PathStats>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(options: { protocol?: 'https' | 'http'; host?: string } = {}): Promise<TestServer> {
    const protocol = options.protocol ?? 'https';
    const host = options.host ?? '127.0.0.1';
    const holder: { self?: TestServer } = {};
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      if (holder.self === undefined) {
        res.statusCode = 503;
        res.end();
        return;
      }
      holder.self.handle(req, res);
    };
    const server: Server =
      protocol === 'https'
        ? (createHttpsServer({ key: testTls().keyPem, cert: testTls().certPem }, listener) as unknown as Server)
        : createHttpServer(listener);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const self = new TestServer(server, `${protocol}://${hostPart}:${port}`);
    holder.self = self;
    const sockets = self.sockets;
    server.on(protocol === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    return self;
  }

  url(path: string): string {
    return `${this.origin}${path.startsWith('/') ? path : `/${path}`}`;
  }

  route(path: string, handler: RouteHandler): void {
    this.routes.set(path, handler);
  }

  /** Serve exact bytes at `path`. */
  serveBytes(path: string, data: Uint8Array, options: ServeBytesOptions = {}): void {
    let drops = 0;
    this.route(path, async (req, res) => {
      for (const [name, value] of Object.entries(options.requireHeaders ?? {})) {
        if (req.headers[name.toLowerCase()] !== value) {
          res.statusCode = 403;
          res.end('forbidden');
          return;
        }
      }
      let start = 0;
      let end = data.length - 1;
      const rangeHeader = req.headers.range;
      if ((options.range ?? true) && typeof rangeHeader === 'string') {
        const match = /^bytes=(\d+)-(\d*)$/.exec(rangeHeader);
        const from = match === null ? Number.NaN : Number(match[1]);
        if (match === null || from >= data.length) {
          res.statusCode = 416;
          res.setHeader('content-range', `bytes */${data.length}`);
          res.end();
          return;
        }
        start = from;
        if (match[2] !== undefined && match[2] !== '') end = Math.min(Number(match[2]), data.length - 1);
        res.statusCode = 206;
        res.setHeader('content-range', `bytes ${start}-${end}/${data.length}`);
      } else {
        res.statusCode = 200;
      }
      if (options.range ?? true) res.setHeader('accept-ranges', 'bytes');
      for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
      const body = data.subarray(start, end + 1);
      if (options.contentLength === undefined) res.setHeader('content-length', String(body.length));
      else if (options.contentLength !== null) res.setHeader('content-length', String(options.contentLength));
      if (options.dropAfterBytes !== undefined && drops < (options.dropTimes ?? 1)) {
        drops += 1;
        const cut = Math.min(options.dropAfterBytes, body.length);
        res.flushHeaders();
        // Wait until the bytes are handed to the socket, then a little, before tearing it down mid-body.
        await new Promise<void>((resolve) => res.write(body.subarray(0, cut), () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, options.dropDelayMs ?? 20));
        res.socket?.destroy();
        return;
      }
      await writeAll(res, body);
      res.end();
    });
  }

  /** Serve bytes that never end (until the client hangs up or `maxBytes` is reached). */
  serveEndless(path: string, options: EndlessOptions = {}): void {
    this.route(path, async (_req, res) => {
      res.statusCode = 200;
      if (options.contentLength !== undefined) res.setHeader('content-length', String(options.contentLength));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const limit = options.maxBytes ?? 256 * 1024 * 1024;
      let sent = 0;
      let closed = false;
      res.once('close', () => {
        closed = true;
      });
      while (!closed && sent < limit) {
        await writeAll(res, chunk);
        sent += chunk.length;
      }
      if (!closed) res.socket?.destroy();
    });
  }

  statsFor(path: string): PathStats {
    const found = this.stats.get(path);
    return found === undefined ? { requests: 0, bytes: 0, ranges: [] } : { ...found, ranges: [...found.ranges] };
  }

  get totalRequests(): number {
    return this.requests.length;
  }

  get totalBytes(): number {
    let total = 0;
    for (const s of this.stats.values()) total += s.bytes;
    return total;
  }

  resetStats(): void {
    this.requests.length = 0;
    this.stats.clear();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers });
    let stats = this.stats.get(path);
    if (stats === undefined) {
      stats = { requests: 0, bytes: 0, ranges: [] };
      this.stats.set(path, stats);
    }
    stats.requests += 1;
    if (typeof req.headers.range === 'string') stats.ranges.push(req.headers.range);
    const counted = stats;
    // Count body bytes as they are handed to the socket.
    const originalWrite = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
      counted.bytes += byteLength(chunk);
      return originalWrite(chunk, ...rest);
    }) as ServerResponse['write'];
    const originalEnd = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
    res.end = ((chunk?: unknown, ...rest: unknown[]): ServerResponse => {
      if (chunk !== undefined && typeof chunk !== 'function') counted.bytes += byteLength(chunk);
      return originalEnd(chunk, ...rest);
    }) as ServerResponse['end'];
    const handler = this.routes.get(path);
    if (handler === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    Promise.resolve(handler(req, res)).catch(() => {
      res.socket?.destroy();
    });
  }
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/** Writes with backpressure; resolves early if the client went away. */
async function writeAll(res: ServerResponse, data: Uint8Array): Promise<void> {
  const step = 64 * 1024;
  for (let offset = 0; offset < data.length; offset += step) {
    if (res.destroyed || res.writableEnded) return;
    const ok = res.write(data.subarray(offset, Math.min(offset + step, data.length)));
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
}
