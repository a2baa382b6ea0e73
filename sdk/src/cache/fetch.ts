/**
 * The one place the SDK talks to the network or reads a `file://` source.
 *
 * - Only https, file and loopback http URLs are accepted (spec §9: sources are HTTPS mirrors;
 *   plain http is kept for local registries and tests on 127.0.0.0/8, ::1 and localhost).
 * - Redirects are followed by hand so that every hop passes the same URL check, and caller headers
 *   (possibly entitlement secrets, spec §12) are not forwarded to another origin.
 * - Bodies are streamed and capped: metadata through `fetchCapped` (DESIGN §10 caps every metadata
 *   download), blobs through `openSource` by the content cache (spec §9: read at most the pinned size).
 *   A missing or lying Content-Length never makes the reader take more than its cap.
 * - HTTPS uses the global fetch (undici), which honours NODE_EXTRA_CA_CERTS; hosts and tests inject
 *   another `fetch`.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AdcapError } from '../errors.js';

/** The fetch the SDK downloads with (the global fetch by default; a host may pass its own). */
export type FetchLike = typeof globalThis.fetch;

/** How long a download may go without receiving a byte before it is given up (ms). */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** True for localhost, 127.0.0.0/8 and ::1 (the only hosts plain http may reach). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  // WHATWG URL parsing already normalised IPv4 forms (0x7f.1, 2130706433) to dotted decimal.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Parses a source URL and refuses any scheme the SDK does not fetch from. Returns the parsed URL.
 * spec §9: sources are HTTPS mirrors; file:// serves local registries; http only on loopback.
 */
export function checkUrlAllowed(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch (error) {
    throw new AdcapError('E_DOWNLOAD', `"${String(url)}" is not a valid URL; use an absolute https:// or file:// URL.`, {
      cause: error,
    });
  }
  if (parsed.protocol === 'https:' || parsed.protocol === 'file:') return parsed;
  if (parsed.protocol === 'http:') {
    if (isLoopbackHost(parsed.hostname)) return parsed;
    throw new AdcapError(
      'E_DOWNLOAD',
      `Refusing to download ${redactUrl(parsed)}: plain http is allowed only ` +
        'for loopback addresses (127.0.0.0/8, ::1, localhost); use an https:// URL.',
      { details: { url: redactUrl(parsed) } },
    );
  }
  throw new AdcapError(
    'E_DOWNLOAD',
    `Refusing to download ${redactUrl(parsed)}: the ${parsed.protocol.replace(/:$/, '')} ` +
      'scheme is not supported; use an https:// or file:// URL.',
    { details: { url: redactUrl(parsed) } },
  );
}

/** Resolves `relative` against `base` (RFC 3986), as a shard path is resolved beside its map (spec §9). */
export function resolveUrl(base: string, relative: string): string {
  try {
    return new URL(relative, base).href;
  } catch (error) {
    throw new AdcapError('E_DOWNLOAD', `Cannot resolve "${relative}" against "${redactUrl(base)}"; the base must be an absolute URL.`, {
      cause: error,
    });
  }
}

/** A URL fit for messages and logs: user info is dropped. */
export function redactUrl(url: string | URL): string {
  try {
    const parsed = new URL(typeof url === 'string' ? url : url.href);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return String(url);
  }
}

export interface ContentRange {
  start: number;
  end: number;
  /** null when the server sent `*`. */
  total: number | null;
}

/** Parses `bytes start-end/total` (RFC 9110 §14.4); null when malformed. */
export function parseContentRange(value: string | null): ContentRange | null {
  if (value === null) return null;
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value.trim());
  if (match === null) return null;
  const start = Number(match[1]);
  const end = Number(match[2]);
  const total = match[3] === '*' ? null : Number(match[3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return null;
  if (total !== null && (!Number.isSafeInteger(total) || end >= total)) return null;
  return { start, end, total };
}

export interface OpenSourceOptions {
  fetch?: FetchLike;
  /** Extra request headers (never logged or put in messages). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Ask for the body from this byte offset on (HTTP Range). The server may still answer 200. */
  start?: number;
  /** Give up when no byte arrives for this long. */
  idleTimeoutMs?: number;
  /** How to name the source in messages, instead of the URL (used for authorised URLs). */
  label?: string;
  /**
   * Called for every redirect target after the scheme check; throwing refuses the redirect
   * (publisher-chosen sources: a public mirror may not bounce the host to loopback).
   */
  checkRedirect?: (next: URL, from: URL) => void;
}

export interface OpenedSource {
  /** 200 for the whole body, 206 for a partial one (its range is in `contentRange`). */
  status: 200 | 206;
  /** The declared length of this body, or null when not declared. Informational only: it may lie. */
  contentLength: number | null;
  contentRange: ContentRange | null;
  /** The body, chunk by chunk; errors are E_DOWNLOAD naming the source. Iterate once. */
  chunks(): AsyncIterable<Uint8Array>;
  /** Stops the transfer (closes the connection or the file). Safe to call more than once. */
  cancel(): Promise<void>;
}

/**
 * Opens a source for streaming. Throws E_DOWNLOAD for refused URLs, network errors and non-2xx
 * answers (`details.status` carries the HTTP status, e.g. 416 for an unsatisfiable range).
 */
export async function openSource(url: string, options: OpenSourceOptions = {}): Promise<OpenedSource> {
  const parsed = checkUrlAllowed(url);
  const label = options.label ?? redactUrl(parsed);
  options.signal?.throwIfAborted();
  if (parsed.protocol === 'file:') return openFileSource(parsed, label, options);
  return openHttpSource(parsed, label, options);
}

async function openFileSource(url: URL, label: string, options: OpenSourceOptions): Promise<OpenedSource> {
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch (error) {
    throw new AdcapError('E_DOWNLOAD', `${label} is not a usable file URL on this system.`, { cause: error });
  }
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a regular file');
    size = info.size;
  } catch (error) {
    throw new AdcapError('E_DOWNLOAD', `${label} cannot be read (${errorText(error)}); check that the file exists.`, {
      cause: error,
      details: { status: 404 },
    });
  }
  const start = options.start ?? 0;
  if (start > 0 && start >= size) {
    throw new AdcapError('E_DOWNLOAD', `${label} is shorter than the requested offset ${start}.`, { details: { status: 416 } });
  }
  // Open now so that a missing file fails here rather than in the middle of iteration.
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw new AdcapError('E_DOWNLOAD', `${label} cannot be opened (${errorText(error)}).`, { cause: error });
  });
  const stream = createReadStream('', { fd: handle, start, highWaterMark: 1 << 16, signal: options.signal });
  return {
    status: start > 0 ? 206 : 200,
    contentLength: size - start,
    contentRange: start > 0 ? { start, end: size - 1, total: size } : null,
    async *chunks() {
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } catch (error) {
        throw downloadError(label, 'reading the file failed', error);
      } finally {
        stream.destroy();
      }
    },
    async cancel() {
      stream.destroy();
    },
  };
}

async function openHttpSource(initial: URL, label: string, options: OpenSourceOptions): Promise<OpenedSource> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // One controller for the whole transfer: the caller's signal and the idle timer both abort it.
  const controller = new AbortController();
  const onCallerAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const detach = (): void => options.signal?.removeEventListener('abort', onCallerAbort);

  let url = initial;
  let headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.start !== undefined && options.start > 0) headers['range'] = `bytes=${options.start}-`;
  let response: Response | undefined;
  try {
    for (let hop = 0; ; hop += 1) {
      const timer = setTimeout(() => controller.abort(new Error(`no answer within ${idleMs} ms`)), idleMs);
      try {
        response = await fetchImpl(url.href, { headers, signal: controller.signal, redirect: 'manual' });
      } finally {
        clearTimeout(timer);
      }
      if (!REDIRECT_STATUSES.has(response.status)) break;
      const location = response.headers.get('location');
      await response.body?.cancel().catch(() => undefined);
      if (location === null) throw new AdcapError('E_DOWNLOAD', `${label} answered a redirect without a Location header.`);
      if (hop + 1 >= MAX_REDIRECTS)
        throw new AdcapError('E_DOWNLOAD', `${label} redirected more than ${MAX_REDIRECTS} times; the mirror is misconfigured.`);
      let next: URL;
      try {
        next = checkUrlAllowed(new URL(location, url));
        options.checkRedirect?.(next, url);
      } catch {
        // The target is not named: a redirect from an authorised URL may carry a signed query.
        throw new AdcapError('E_DOWNLOAD', `${label} redirected to a refused URL; only https, file and loopback http URLs are followed.`);
      }
      // Entitlement headers are for the origin the authoriser named, not for wherever it redirects.
      if (next.origin !== url.origin) {
        headers = options.start !== undefined && options.start > 0 ? { range: `bytes=${options.start}-` } : {};
      }
      url = next;
    }
  } catch (error) {
    detach();
    if (error instanceof AdcapError) throw error;
    throw downloadError(label, 'the request failed', controller.signal.aborted ? (controller.signal.reason ?? error) : error);
  }
  if (response.status !== 200 && response.status !== 206) {
    detach();
    await response.body?.cancel().catch(() => undefined);
    throw new AdcapError('E_DOWNLOAD', `${label} answered HTTP ${response.status}${statusHint(response.status)}.`, {
      details: { status: response.status },
    });
  }
  const lengthHeader = response.headers.get('content-length');
  const contentLength = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const body = response.body;
  const status = response.status;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const cancel = async (): Promise<void> => {
    detach();
    if (reader !== undefined) await reader.cancel().catch(() => undefined);
    else await body?.cancel().catch(() => undefined);
    controller.abort(new Error('cancelled'));
  };
  return {
    status,
    contentLength,
    contentRange: status === 206 ? parseContentRange(response.headers.get('content-range')) : null,
    async *chunks() {
      if (body === null) return;
      reader = body.getReader();
      let received = 0;
      try {
        for (;;) {
          const timer = setTimeout(() => controller.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
          let result: Awaited<ReturnType<typeof reader.read>>;
          try {
            result = await reader.read();
          } finally {
            clearTimeout(timer);
          }
          if (result.done) return;
          received += result.value.byteLength;
          yield result.value;
        }
      } catch (error) {
        const reason = controller.signal.aborted ? (controller.signal.reason ?? error) : error;
        throw downloadError(label, `the connection broke after ${received} bytes`, reason);
      } finally {
        await cancel();
      }
    },
    cancel,
  };
}

export interface FetchCappedOptions {
  /** Hard cap on the body size (DESIGN §10: catalogue 64 MiB, package document 4 MiB). */
  maxBytes: number;
  fetch?: FetchLike;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  idleTimeoutMs?: number;
}

/**
 * Downloads a small document (catalogue, package document, shard map) into memory, refusing it with
 * E_DOWNLOAD as soon as it exceeds `maxBytes`, whatever the Content-Length said (DESIGN §10).
 */
export async function fetchCapped(url: string, options: FetchCappedOptions): Promise<Buffer> {
  const label = redactUrl(url);
  const source = await openSource(url, {
    fetch: options.fetch,
    headers: options.headers,
    signal: options.signal,
    idleTimeoutMs: options.idleTimeoutMs,
  });
  const tooBig = (): AdcapError =>
    new AdcapError(
      'E_DOWNLOAD',
      `${label} is larger than the ${options.maxBytes}-byte limit for this download; the server is misconfigured or hostile.`,
      { details: { url: label, maxBytes: options.maxBytes } },
    );
  if (source.status !== 200) {
    await source.cancel();
    throw new AdcapError('E_DOWNLOAD', `${label} answered a partial response (206) to a plain request.`);
  }
  if (source.contentLength !== null && source.contentLength > options.maxBytes) {
    await source.cancel();
    throw tooBig();
  }
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of source.chunks()) {
    total += chunk.byteLength;
    if (total > options.maxBytes) {
      await source.cancel();
      throw tooBig();
    }
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(parts, total);
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return ' (access refused; an entitled download needs authorisation)';
  if (status === 404) return ' (not found on this mirror)';
  if (status === 416) return ' (requested range not satisfiable)';
  if (status >= 500) return ' (server error; try again later)';
  return '';
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function downloadError(label: string, what: string, error: unknown): AdcapError {
  if (error instanceof AdcapError) return error;
  return new AdcapError('E_DOWNLOAD', `Downloading ${label} failed: ${what} (${errorText(error)}).`, { cause: error });
}
