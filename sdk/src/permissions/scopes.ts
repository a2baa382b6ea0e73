import { isIPv4, isIPv6 } from 'node:net';
import { AdcapError } from '../errors.js';
import type { PermissionId } from '../format/manifest-types.js';

/**
 * Scopes of the permission ids (DESIGN §5). Each function returns a sentence describing what is
 * wrong, or undefined when the scope is valid. Whether a scope is *enforced* on a platform is the
 * sandbox's business, not this module's.
 */

const MAX_SCOPE = 1024;

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
    return `the file scope ${JSON.stringify(scope)} must be "workspace", a path under your home folder such as "~/Documents", or an absolute path such as "/data"`;
  }
  if (rest === '') return `the file scope ${JSON.stringify(scope)} must name a folder, not the whole ${kind === 'home' ? 'home folder' : 'file system'}`;
  // Control characters and backslashes have no place in a path a person reads and approves.
  if ([...rest].some((c) => c < ' ' || c === '\u007f' || c === '\\')) return `the file scope ${JSON.stringify(scope)} contains a control character or a backslash`;
  const segments = rest.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    return `the file scope ${JSON.stringify(scope)} has an empty, "." or ".." segment or a trailing slash; write the plain path`;
  }
  return { kind, segments };
}

/** A parsed net:connect scope: `host`, `*.host`, `host:port`, `*.host:port` (DESIGN §5). */
export interface NetScope {
  host: string;
  wildcard: boolean;
  port?: number;
}

/** DESIGN §5: parses a net:connect scope, or returns a problem sentence. */
export function parseNetScope(scope: string): NetScope | string {
  const bad = `the network scope ${JSON.stringify(scope)} must be a host name such as "api.example.com", optionally with "*." in front or ":port" at the end (leave the scope out to mean any server)`;
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
  if (!/^[1-9][0-9]*$/.test(portText) || port > 65535) return `the port in the network scope ${JSON.stringify(scope)} must be a number from 1 to 65535`;
  return { host, wildcard, port };
}

const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The problem with `scope` for permission `id`, or undefined when it is valid (DESIGN §5). */
export function scopeProblem(id: PermissionId, scope: string | undefined): string | undefined {
  if (scope !== undefined && (scope.length === 0 || scope.length > MAX_SCOPE)) {
    return `the scope of ${id} must be 1 to ${MAX_SCOPE} characters long`;
  }
  switch (id) {
    case 'fs:read':
    case 'fs:write': {
      if (scope === undefined) return `${id} needs a scope: "workspace", "~/path" or "/absolute/path"`;
      const parsed = parseFsScope(scope);
      return typeof parsed === 'string' ? parsed : undefined;
    }
    case 'net:connect': {
      if (scope === undefined) return undefined; // no scope = any server
      const parsed = parseNetScope(scope);
      return typeof parsed === 'string' ? parsed : undefined;
    }
    case 'process:exec':
      if (scope === undefined) return 'process:exec needs a scope naming one program, such as "git"';
      return PROGRAM_NAME.test(scope) ? undefined : `the program scope ${JSON.stringify(scope)} must be a program name such as "git" (letters, digits, ".", "_", "+", "-"; no path)`;
    case 'env:read':
      if (scope === undefined) return 'env:read needs a scope naming one environment variable, such as "GITHUB_TOKEN"';
      return ENV_NAME.test(scope) ? undefined : `the environment scope ${JSON.stringify(scope)} must be a variable name such as "GITHUB_TOKEN"`;
    case 'storage:data':
      return scope === undefined ? undefined : 'storage:data takes no scope; remove it';
  }
}

/** Throws E_SEMANTIC (rule `permission-scope`) when `scope` is not valid for `id`. */
export function validateScope(id: PermissionId, scope: string | undefined): void {
  const problem = scopeProblem(id, scope);
  if (problem !== undefined) {
    throw new AdcapError('E_SEMANTIC', `Invalid permission: ${problem}.`, { details: { rule: 'permission-scope', id, scope } });
  }
}

/**
 * Folders that hold, or contain, an Arcotheon home in its default places (DESIGN §6: installs live in
 * home/packages). Relative to the user's home folder, compared case-insensitively (macOS, Windows).
 */
const HOME_ANCESTORS_OF_DATA_DIRS = ['.local', '.local/share', '.config', 'library', 'library/application support', 'appdata', 'appdata/roaming', 'appdata/local'];
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
