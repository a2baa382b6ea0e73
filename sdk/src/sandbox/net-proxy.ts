/**
 * The host-side filtering proxy behind scoped `net:connect` (DESIGN §5: "with a scope, traffic
 * goes through a host-side filtering proxy that allows only the named hosts").
 *
 * It speaks the two forms of HTTP proxying every client library knows: `CONNECT host:port` (any
 * TLS or raw TCP stream) and absolute-form plain HTTP requests (`GET http://host/…`). The check
 * happens here, on the host, so it does not matter what the sandboxed code sends: the tool can
 * reach nothing but this proxy, and the proxy opens only connections the grants name.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { netScopeAllows, parseNetScope as parsePermissionNetScope } from '../permissions/index.js';

export interface NetScope {
  /** Lower-case host name or IP literal, without brackets; for `*.example.com` the suffix `example.com`. */
  host: string;
  wildcard: boolean;
  /** null: any port. */
  port: number | null;
}

/**
 * Parses a net:connect scope with the permission table's grammar (DESIGN §5; issue 11, item 12: the
 * proxy accepts exactly what the validator accepts, nothing more lenient). Throws when invalid.
 */
export function parseNetScope(scope: string): NetScope {
  const parsed = parsePermissionNetScope(scope);
  if (typeof parsed === 'string') throw new Error(parsed);
  const host = parsed.host.startsWith('[') ? parsed.host.slice(1, -1) : parsed.host;
  return { host, wildcard: parsed.wildcard, port: parsed.port ?? null };
}

/** The scope that allows `host:port` (the permission table's matching), or null. `*.example.com` matches sub-domains, not example.com itself. */
export function matchingScope(scopes: readonly NetScope[], host: string, port: number): NetScope | null {
  for (const scope of scopes) {
    const host6 = net.isIPv6(scope.host) ? `[${scope.host}]` : scope.host;
    if (netScopeAllows({ host: host6, wildcard: scope.wildcard, ...(scope.port === null ? {} : { port: scope.port }) }, host, port)) return scope;
  }
  return null;
}

/**
 * Addresses a host *name* must not resolve to unless the scope names them literally: loopback,
 * link-local (cloud metadata at 169.254.169.254), unspecified and multicast. This stops a granted
 * name whose DNS points at 127.0.0.1 from reaching services on the user's machine.
 */
export function isInternalAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return a === 127 || a === 0 || (a === 169 && b === 254) || a >= 224;
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isInternalAddress(v6.slice(7));
  return v6 === '::1' || v6 === '::' || v6.startsWith('fe8') || v6.startsWith('fe9') || v6.startsWith('fea') || v6.startsWith('feb') || v6.startsWith('ff');
}

export type LookupFn = (host: string) => Promise<string[]>;

const defaultLookup: LookupFn = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((r) => r.address);

/** Decides where a request for `host:port` may go: the IP to dial, or why not (shown in the 403 body). */
export async function resolveDestination(
  scopes: readonly NetScope[],
  host: string,
  port: number,
  lookup: LookupFn = defaultLookup,
): Promise<{ ok: true; address: string } | { ok: false; reason: string }> {
  const scope = matchingScope(scopes, host, port);
  if (scope === null) return { ok: false, reason: `net:connect does not grant ${host}:${port}` };
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare) !== 0) return { ok: true, address: bare };
  let addresses: string[];
  try {
    addresses = await lookup(bare);
  } catch {
    return { ok: false, reason: `cannot resolve ${bare}` };
  }
  const namesLoopback = scope.host === 'localhost' && !scope.wildcard;
  const usable = addresses.filter((a) => namesLoopback || !isInternalAddress(a));
  const first = usable[0];
  if (first === undefined) return { ok: false, reason: `${bare} resolves only to internal addresses` };
  return { ok: true, address: first };
}

export interface NetProxyOptions {
  /** Granted net:connect scopes (the part after `net:connect:`). */
  scopes: readonly string[];
  /** A unix socket path (bubblewrap) or a loopback TCP port, 0 for any (sandbox-exec). */
  listen: { path: string } | { port: number };
  lookup?: LookupFn;
  /** Called for every decision (for audit and tests). */
  onDecision?: (d: { host: string; port: number; allowed: boolean; reason?: string }) => void;
}

export interface NetProxy {
  /** The unix socket path, or `127.0.0.1:<port>`. */
  readonly address: string;
  readonly port: number | null;
  close(): Promise<void>;
}

const MAX_HEAD = 16 * 1024;

export async function startNetProxy(options: NetProxyOptions): Promise<NetProxy> {
  const scopes = options.scopes.map(parseNetScope);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD) refuse(client, 431, 'request head too large');
        return;
      }
      client.off('data', onData);
      client.pause();
      void handle(client, head.subarray(0, end + 4), head.subarray(end + 4));
    };
    client.on('data', onData);
  });

  const handle = async (client: net.Socket, head: Buffer, rest: Buffer): Promise<void> => {
    const text = head.toString('latin1');
    const lineEnd = text.indexOf('\r\n');
    const [method = '', target = '', version = ''] = text.slice(0, lineEnd).split(' ');
    let host: string;
    let port: number;
    let forward: Buffer | null = null;
    if (method === 'CONNECT') {
      const m = /^(\[[^\]]+\]|[^:]+):([0-9]{1,5})$/.exec(target);
      if (m === null) return refuse(client, 400, 'CONNECT needs host:port');
      host = m[1] ?? '';
      port = Number(m[2]);
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return refuse(client, 400, 'only CONNECT and absolute-form http:// requests are proxied');
      }
      if (url.protocol !== 'http:') return refuse(client, 400, 'only http:// requests are proxied; use CONNECT for TLS');
      host = url.hostname;
      port = url.port === '' ? 80 : Number(url.port);
      // Origin-form request line for the server; the other header lines pass unchanged.
      forward = Buffer.concat([Buffer.from(`${method} ${url.pathname}${url.search} ${version}`, 'latin1'), head.subarray(lineEnd)]);
    }
    const decision = await resolveDestination(scopes, host, port, options.lookup);
    options.onDecision?.(decision.ok ? { host, port, allowed: true } : { host, port, allowed: false, reason: decision.reason });
    if (!decision.ok) return refuse(client, 403, decision.reason);
    const upstream = net.connect({ host: decision.address, port });
    let connected = false;
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (connected) client.destroy();
    });
    upstream.on('error', () => {
      if (!connected) refuse(client, 502, `cannot connect to ${host}:${port}`);
    });
    upstream.on('connect', () => {
      connected = true;
      if (forward === null) client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      else upstream.write(forward);
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    client.on('close', () => upstream.destroy());
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in options.listen) server.listen(options.listen.path, resolve);
    else server.listen(options.listen.port, '127.0.0.1', resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : null;
  return {
    address: typeof addr === 'string' ? addr : `127.0.0.1:${port ?? 0}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function refuse(client: net.Socket, status: number, reason: string): void {
  const body = `arcotheon sandbox proxy: ${reason}\n`;
  const phrase = status === 403 ? 'Forbidden' : status === 502 ? 'Bad Gateway' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  // The client may be paused mid-handshake; destroy once flushed so the socket never lingers.
  client.end(`HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => client.destroy());
}
