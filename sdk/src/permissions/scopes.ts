import { isIPv4, isIPv6 } from 'node:net';

/**
 * The scope grammars of the permission ids (DESIGN §5) that more than a pattern: file scopes and
 * network scopes, parsed into values, and how network scopes match. table.ts puts them together
 * with the other ids; each parser returns the value, or a sentence describing what is wrong.
 */

/** The forms of an fs:read / fs:write scope: `workspace`, `~/path`, `/abs/path`. */
export type FsScope = { kind: 'workspace' } | { kind: 'home'; segments: string[] } | { kind: 'absolute'; segments: string[] };

/** DESIGN §5: parses an fs scope, or returns a problem sentence. */
export function parseFsScope(scope: string): FsScope | string {
  if (scope === 'workspace') return { kind: 'workspace' };
  let kind: 'home' | 'absolute';
  let rest: string;
  if (scope.startsWith('~/')) {
    kind = 'home';
    rest = scope.slice(2);
  } else if (scope.startsWith('/')) {
    kind = 'absolute';
    rest = scope.slice(1);
  } else {
    return (
      `the file scope ${JSON.stringify(scope)} must be "workspace", ` +
      'a path under your home folder such as "~/Documents", or an absolute path such as "/data"'
    );
  }
  if (rest === '')
    return `the file scope ${JSON.stringify(scope)} must name a folder, not the whole ${kind === 'home' ? 'home folder' : 'file system'}`;
  // Control characters and backslashes have no place in a path a person reads and approves.
  if ([...rest].some((c) => c < ' ' || c === '\u007f' || c === '\\'))
    return `the file scope ${JSON.stringify(scope)} contains a control character or a backslash`;
  const segments = rest.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    return `the file scope ${JSON.stringify(scope)} has an empty, "." or ".." segment or a trailing slash; write the plain path`;
  }
  return { kind, segments };
}

/**
 * The scopes an organisation policy's `deniedPermissions` pattern may use for fs ids beyond the
 * grammar (docs/admin.md): `~/` stands for every path under the home, `/` for every absolute path.
 */
export const FS_ROOT_PATTERNS: Readonly<Record<string, 'home' | 'absolute'>> = { '~/': 'home', '/': 'absolute' };

/** An fs scope, or one of FS_ROOT_PATTERNS (a folder with no segments: the root of its kind). */
export function parseFsPatternScope(scope: string): FsScope | string {
  const root = Object.hasOwn(FS_ROOT_PATTERNS, scope) ? FS_ROOT_PATTERNS[scope] : undefined;
  return root === undefined ? parseFsScope(scope) : { kind: root, segments: [] };
}

/** A parsed net:connect scope: `host`, `*.host`, `host:port`, `*.host:port` (DESIGN §5). */
export interface NetScope {
  /** The host name (lowercase) or IP address (IPv6 in brackets), without the `*.` of a wildcard. */
  host: string;
  /** True for `*.host`: any subdomain of `host`, not `host` itself. */
  wildcard: boolean;
  /** The one port allowed; absent: any port. */
  port?: number;
}

/** DESIGN §5: parses a net:connect scope, or returns a problem sentence. */
export function parseNetScope(scope: string): NetScope | string {
  const bad =
    `the network scope ${JSON.stringify(scope)} must be a host name such as "api.example.com", ` +
    'optionally with "*." in front or ":port" at the end (leave the scope out to mean any server)';
  const match = /^(\*\.)?(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/.exec(scope);
  if (match === null) return bad;
  const wildcard = match[1] !== undefined;
  const host = match[2] ?? '';
  const portText = match[3];
  if (host.startsWith('[')) {
    if (wildcard || !isIPv6(host.slice(1, -1))) return bad;
  } else if (!isIPv4(host)) {
    if (host.length > 253 || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(host)) return bad;
  } else if (wildcard) {
    return bad;
  }
  if (portText === undefined) return { host, wildcard };
  const port = Number(portText);
  if (!/^[1-9][0-9]*$/.test(portText) || port > 65535)
    return `the port in the network scope ${JSON.stringify(scope)} must be a number from 1 to 65535`;
  return { host, wildcard, port };
}

/**
 * Whether the network scope `granted` allows every connection `needed` allows (DESIGN §5):
 * `*.example.com` covers `*.example.com` itself and any name under example.com, never
 * example.com; no port means any port, so only a port-less grant covers a port-less requirement.
 */
export function netScopeCovers(granted: NetScope, needed: NetScope): boolean {
  if (granted.port !== undefined && granted.port !== needed.port) return false;
  if (!granted.wildcard) return !needed.wildcard && granted.host === needed.host;
  return (needed.wildcard && needed.host === granted.host) || needed.host.endsWith(`.${granted.host}`);
}

/**
 * Whether a connection to `host:port` is allowed by the network scope `scope`: the check the
 * sandbox's filtering proxy makes for every request. `host` is what a client sent (any case, an
 * optional trailing dot, IPv6 in brackets or not). The scope's host may be bracketed or bare, and a
 * null port, as undefined, means any port (the proxy's form, sandbox/net-proxy.ts).
 */
export function netScopeAllows(scope: { host: string; wildcard: boolean; port?: number | null }, host: string, port: number): boolean {
  if (scope.port !== undefined && scope.port !== null && scope.port !== port) return false;
  const h = bareHost(host.toLowerCase().replace(/\.$/, ''));
  const s = bareHost(scope.host);
  return scope.wildcard ? h.endsWith(`.${s}`) : h === s;
}

/** A host without the brackets of an IPv6 literal (`[::1]` becomes `::1`); other hosts unchanged. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Folders that hold, or contain, an Arcotheon home in its default places (DESIGN §6: installs live in
 * home/packages). Relative to the user's home folder, compared case-insensitively (macOS, Windows).
 */
const HOME_ANCESTORS_OF_DATA_DIRS = [
  '.local',
  '.local/share',
  '.config',
  'library',
  'library/application support',
  'appdata',
  'appdata/roaming',
  'appdata/local',
];
const ABSOLUTE_HOME_PARENTS = ['home', 'users', 'root'];

/**
 * spec §3.2: fs:write never targets the capability's own directory. The install location is only
 * known at run time (the sandbox refuses it there); here we refuse every scope that necessarily or
 * in a default layout covers it: a folder named like Arcotheon's data, an ancestor of the default
 * data folders, or a user's whole home folder.
 */
export function fsWriteTargetsOwnDir(scope: FsScope): boolean {
  if (scope.kind === 'workspace') return false;
  const lower = scope.segments.map((s) => s.toLowerCase());
  if (lower.some((s) => s.includes('arcotheon'))) return true;
  if (scope.kind === 'home') return HOME_ANCESTORS_OF_DATA_DIRS.includes(lower.join('/'));
  const [top] = lower;
  return top !== undefined && ABSOLUTE_HOME_PARENTS.includes(top) && lower.length <= (top === 'root' ? 1 : 2);
}
