/**
 * `adcap registry serve <dir> [--port N]` (DESIGN §11): the registry tree, read-only, on
 * 127.0.0.1 for local work. GET and HEAD only; a request path is decoded, split into segments and
 * refused when a segment is empty, "." or "..", hidden (temp files and the lock start with "."),
 * or holds a separator, and the file it names must resolve (symlinks included) inside the tree.
 * Blobs honour single byte ranges, so the content cache can resume a download.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, sep } from 'node:path';
import { AdcapError, asAdcapError } from '../../errors.js';

/** A registry `serveRegistry()` serves on 127.0.0.1: its server and URL. */
export interface ServedRegistry {
  /** The underlying HTTP server. */
  server: Server;
  /** Base URL of the tree, e.g. http://127.0.0.1:8080/ */
  url: string;
  /** The URL to give `adcap remote add` (the v1/ folder). */
  remoteUrl: string;
  /** Stops serving and closes open connections. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.adcap': 'application/octet-stream',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function contentTypeFor(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot >= 0 ? CONTENT_TYPES[path.slice(dot).toLowerCase()] : undefined) ?? 'application/octet-stream';
}

/** Maps a request path to a file under root, or null when the path is not one the server serves. */
export function requestPathToSegments(rawPath: string): string[] | null {
  const pathOnly = rawPath.split('?')[0] ?? '';
  if (!pathOnly.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of pathOnly.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '' || segment === '.' || segment === '..' || segment.startsWith('.')) return null;
    if (segment.includes('/') || segment.includes('\\') || segment.includes('\0')) return null;
    segments.push(segment);
  }
  return segments.length === 0 ? null : segments;
}

/** Serves a registry folder on 127.0.0.1 for local use (`adcap registry serve`). */
export async function serveRegistry(root: string, options: { port?: number; host?: string } = {}): Promise<ServedRegistry> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    throw asAdcapError(error, `Cannot serve ${root}`);
  }
  // Loaded here, not at the top: importing node:http loads Node's fetch (undici), http2 and tls, which
  // every other adcap command would pay for at start-up (15-25 ms of each start).
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    handle(realRoot, request, response).catch(() => {
      if (!response.headersSent) send(response, 500, 'internal error\n');
      else response.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new AdcapError('E_IO', `Port ${options.port ?? 0} on ${host} is in use; choose another with --port.`, { cause: error })
          : asAdcapError(error, `Cannot listen on ${host}`),
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`;
  return {
    server,
    url,
    remoteUrl: `${url}v1/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(body);
}

async function handle(root: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, 405, 'read-only registry: GET and HEAD only\n', { allow: 'GET, HEAD' });
    return;
  }
  const segments = requestPathToSegments(request.url ?? '');
  if (segments === null) {
    send(response, 404, 'not found\n');
    return;
  }
  let file: string;
  let size: number;
  try {
    file = await realpath(join(root, ...segments));
    if (!file.startsWith(root + sep)) throw new Error('outside the tree');
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    size = info.size;
  } catch {
    send(response, 404, 'not found\n');
    return;
  }
  const headers: Record<string, string> = {
    'content-type': contentTypeFor(file),
    'accept-ranges': 'bytes',
    'cache-control': segments.at(-1) === 'catalog.json' ? 'no-cache' : 'public, max-age=60',
    'x-content-type-options': 'nosniff',
  };
  const range = parseRange(request.headers.range, size);
  if (range === 'invalid') {
    send(response, 416, 'range not satisfiable\n', { 'content-range': `bytes */${size}` });
    return;
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  if (range !== null) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  headers['content-length'] = String(size === 0 ? 0 : end - start + 1);
  response.writeHead(range === null ? 200 : 206, headers);
  if (request.method === 'HEAD' || size === 0) {
    response.end();
    return;
  }
  const stream = createReadStream(file, { start, end });
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

/** One `bytes=start-[end]` or `bytes=-suffix` range (RFC 9110 §14.1.2); several ranges are served whole. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'invalid' {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'invalid';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (start >= size || end < start) return 'invalid';
  return { start, end };
}
