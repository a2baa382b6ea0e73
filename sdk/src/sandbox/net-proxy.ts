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
import os from 'node:os';
import { bareHost, netScopeAllows, parseNetScope as parsePermissionNetScope } from '../permissions/index.js';
import { ipv6Words, isInternalAddress, v4FromWords } from '../util/ip-ranges.js';

export { isInternalAddress };

interface NetScope {
  /** Lower-case host name or IP literal, without brackets; for `*.example.com` the suffix `example.com`. */
  host: string;
  wildcard: boolean;
  /** null: any port. */
  port: number | null;
}

/**
 * A net:connect scope in the proxy's form, parsed by the permission table's parser (DESIGN §5;
 * the proxy accepts exactly what the validator accepts, nothing more lenient;
 * there is one parser, permissions/scopes.ts, and this only reshapes its result). Throws
 * when invalid.
 */
export function parseNetScope(scope: string): NetScope {
  const parsed = parsePermissionNetScope(scope);
  if (typeof parsed === 'string') throw new Error(parsed);
  return { host: bareHost(parsed.host), wildcard: parsed.wildcard, port: parsed.port ?? null };
}

/**
 * The scope that allows `host:port` (the permission table's matching), or null. `*.example.com`
 * matches sub-domains, not example.com itself.
 */
export function matchingScope(scopes: readonly NetScope[], host: string, port: number): NetScope | null {
  return scopes.find((scope) => netScopeAllows(scope, host, port)) ?? null;
}

/** Whether `ip` is one of this machine's own interface addresses (a LAN or public address reaches local services too). */
export function isOwnAddress(ip: string): boolean {
  const target = net.isIPv4(ip) ? ip : ipv6Words(ip)?.join(':');
  if (target === undefined) return false;
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) {
      const own = info.family === 'IPv4' ? info.address : ipv6Words(info.address)?.join(':');
      if (own === target) return true;
      // ::ffff:a.b.c.d reaches the IPv4 address a.b.c.d
      const mapped = ipv6Words(ip);
      if (
        info.family === 'IPv4' &&
        mapped !== null &&
        mapped.slice(0, 5).every((x) => x === 0) &&
        mapped[5] === 0xffff &&
        v4FromWords(mapped[6] ?? 0, mapped[7] ?? 0) === info.address
      )
        return true;
    }
  }
  return false;
}

/** What a resolved address of a granted *name* may not be: internal ranges or this machine. */
export function isForbiddenForName(ip: string): boolean {
  return isInternalAddress(ip) || isOwnAddress(ip);
}

/** `localhost` is reserved for the loopback interface (RFC 6761 §6.3): a scope naming it names loopback as plainly as `127.0.0.1`. */
function isLoopback(ip: string): boolean {
  if (net.isIPv4(ip)) return ip.startsWith('127.');
  const w = ipv6Words(ip);
  if (w === null) return false;
  if (w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff) return (w[6] ?? 0) >> 8 === 127;
  return w.slice(0, 7).every((x) => x === 0) && w[7] === 1;
}

export type LookupFn = (host: string) => Promise<string[]>;

const defaultLookup: LookupFn = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((r) => r.address);

/**
 * Decides where a request for `host:port` may go: the IP to dial, or why not (shown in the 403
 * body). A name is resolved once here and the proxy dials the address it checked, so a DNS answer
 * that changes between check and connect (rebinding) cannot slip past.
 */
export async function resolveDestination(
  scopes: readonly NetScope[],
  host: string,
  port: number,
  lookup: LookupFn = defaultLookup,
): Promise<{ ok: true; address: string } | { ok: false; reason: string }> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, reason: `port ${String(port)} is not between 1 and 65535` };
  const scope = matchingScope(scopes, host, port);
  if (scope === null) return { ok: false, reason: `net:connect does not grant ${host}:${port}` };
  const bare = bareHost(host);
  // An address the scope names literally is what the user granted: it may be internal. A
  // wildcard scope (`*.1`) never names an address.
  if (net.isIP(bare) !== 0) {
    if (scope.wildcard) return { ok: false, reason: `net:connect grants no address ${bare} by a wildcard; name the address itself` };
    return { ok: true, address: bare };
  }
  let addresses: string[];
  try {
    addresses = await lookup(bare);
  } catch {
    return { ok: false, reason: `cannot resolve ${bare}` };
  }
  const namesLoopback = scope.host === 'localhost' && !scope.wildcard;
  const usable = addresses.filter((a) => net.isIP(a) !== 0 && (namesLoopback ? isLoopback(a) : !isForbiddenForName(a)));
  const first = usable[0];
  if (first === undefined) {
    return {
      ok: false,
      reason:
        `${bare} resolves only to addresses of this computer or its local network, ` +
        'which a host name may not reach; a scope that names the address ' +
        `itself (net:connect:<address>:${port}) is needed for that`,
    };
  }
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
/** Connections one proxy serves at once; more are dropped, so a tool cannot exhaust the host's descriptors. */
export const MAX_PROXY_CONNECTIONS = 256;
/** How long a client may take to send its request head. */
const HEAD_TIMEOUT_MS = 30_000;
/** A reg-name host (letters, digits, `-`, `_`, `.`) or a bracketed IPv6 literal, then `:port`. */
const CONNECT_TARGET = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$/;

/** A port as the request names it: digits only, 1-65535 (`CONNECT host:99999` crashed the host). */
export function parseProxyPort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/**
 * Starts the proxy. Every error a client can cause (malformed or oversized requests, bad ports,
 * resets, half-closed sockets, unreachable upstreams) ends that client's connection only: a tool
 * can fail its own run, never the host process.
 */
export async function startNetProxy(options: NetProxyOptions): Promise<NetProxy> {
  const scopes = options.scopes.map(parseNetScope);
  const sockets = new Set<net.Socket>();
  const decide = (d: { host: string; port: number; allowed: boolean; reason?: string }): void => {
    try {
      options.onDecision?.(d);
    } catch {
      // an observer's failure must not take the proxy down
    }
  };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 && head.length <= MAX_HEAD) return;
      client.off('data', onData);
      client.pause();
      if (end < 0 || end + 4 > MAX_HEAD) {
        refuse(client, 431, 'request head too large');
        return;
      }
      client.setTimeout(0);
      handle(client, head.subarray(0, end + 4), head.subarray(end + 4)).catch(() => client.destroy());
    };
    client.on('data', onData);
  });
  server.maxConnections = MAX_PROXY_CONNECTIONS;
  // Accept failures (EMFILE and the like) are reported on the server; they end nothing but that accept.
  server.on('error', () => undefined);

  const handle = async (client: net.Socket, head: Buffer, rest: Buffer): Promise<void> => {
    const text = head.toString('latin1');
    const lineEnd = text.indexOf('\r\n');
    const parts = text.slice(0, lineEnd).split(' ');
    const [method = '', target = '', version = ''] = parts;
    if (parts.length !== 3 || !/^HTTP\/1\.[01]$/.test(version) || !/^[A-Z][A-Z-]{0,15}$/.test(method)) {
      return refuse(client, 400, 'not an HTTP/1.x request line');
    }
    let host: string;
    let port: number | null;
    let forward: Buffer | null = null;
    if (method === 'CONNECT') {
      const m = CONNECT_TARGET.exec(target);
      if (m === null) return refuse(client, 400, 'CONNECT needs host:port');
      host = m[1] ?? '';
      port = parseProxyPort(m[2] ?? '');
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return refuse(client, 400, 'only CONNECT and absolute-form http:// requests are proxied');
      }
      if (url.protocol !== 'http:') return refuse(client, 400, 'only http:// requests are proxied; use CONNECT for TLS');
      if (url.username !== '' || url.password !== '' || url.hostname === '')
        return refuse(client, 400, 'the request URL needs a plain host');
      host = url.hostname;
      port = url.port === '' ? 80 : parseProxyPort(url.port);
      // Origin-form request line for the server; the other header lines pass unchanged.
      forward = Buffer.concat([Buffer.from(`${method} ${url.pathname}${url.search} ${version}`, 'latin1'), head.subarray(lineEnd)]);
    }
    if (port === null) return refuse(client, 400, 'the port must be a number from 1 to 65535');
    const decision = await resolveDestination(scopes, host, port, options.lookup);
    decide(decision.ok ? { host, port, allowed: true } : { host, port, allowed: false, reason: decision.reason });
    if (!decision.ok) return refuse(client, 403, decision.reason);
    if (client.destroyed) return; // the tool gave up while the name was being resolved
    const upstream = net.connect({ host: decision.address, port });
    let connected = false;
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (connected || client.destroyed) client.destroy();
    });
    upstream.on('error', () => {
      if (!connected) refuse(client, 502, `cannot connect to ${host}:${port}`);
      upstream.destroy();
    });
    upstream.on('connect', () => {
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
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
  if (client.destroyed || client.writableEnded) return;
  const body = `arcotheon sandbox proxy: ${reason}\n`;
  const phrase =
    status === 403 ? 'Forbidden' : status === 502 ? 'Bad Gateway' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  // The client may be paused mid-handshake; destroy once flushed so the socket never lingers.
  client.end(
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => client.destroy(),
  );
}
