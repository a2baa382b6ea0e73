/**
 * The permission table (DESIGN §5, spec §6): for each id of version 1.0, its scope grammar, when a
 * grant covers a requirement, the plain-language text, the UI's risk level and what each sandbox
 * enforces. It is the only place those rules live: the manifest validator, grants, the permission
 * dialog, the sandbox and the network proxy all read them from here (the grammar
 * used to be parsed in several places, and the enforcing copy was the lenient one).
 *
 * The ids themselves are this table's keys (`PermissionId`). Adding one touches
 * this module and sdk/schema/capability-1.json (test/sdk/permissions/wildcard-grants-match.test.ts holds them
 * equal); every `switch` over `PermissionId` that misses it fails the lint rule
 * `@typescript-eslint/switch-exhaustiveness-check` (sandbox/sandbox.ts `interpretGrants`).
 */
import { netScopeCovers, parseFsPatternScope, parseFsScope, parseNetScope, FS_ROOT_PATTERNS, type FsScope } from './scopes.js';

/** Options of `describePermission()`: how the text names the workspace and the tool's data folder. */
export interface DescribeOptions {
  /** How the UI names the workspace folder once chosen (e.g. "~/projects/site"). */
  workspaceLabel?: string;
}

/** How much a permission lets a tool do, as shown beside it: low, medium or high. */
export type RiskLevel = 'low' | 'medium' | 'high';

/** The sandboxes of sdk/src/sandbox, by name. */
export type SandboxKind = 'bubblewrap' | 'sandbox-exec' | 'none';

/** Whether a scope must be given (and what to say when it is missing), may be given (none = any), or must be absent. */
export type ScopeRule = { scope: 'required'; missingScope: string } | { scope: 'optional' | 'none' };

/** One row of the permission catalogue: its id, scope grammar, risk and plain-language text. */
export type PermissionKind<Id extends string = string> = ScopeRule & {
  id: Id;
  /** The scope grammar: a sentence saying what is wrong with `scope`, or undefined when valid. */
  scopeProblem(scope: string): string | undefined;
  /**
   * Scopes an organisation policy's `deniedPermissions` pattern may use beyond the grammar (docs/admin.md),
   * each standing for a whole family of scopes: `~/` every path under the home, `/` every absolute path.
   */
  patternScopes: readonly string[];
  /**
   * Whether a grant with scope `granted` allows everything a requirement with scope `needed` asks
   * for (undefined = no scope). `needed` is valid for this id, `granted` valid or one of
   * `patternScopes`; fails closed otherwise. Revocations and policy patterns match by overlap:
   * either covers the other (grants.ts `grantsOverlap`, `patternMatches`).
   */
  covers(granted: string | undefined, needed: string | undefined): boolean;
  /** The sentence the permission dialog shows (DESIGN §5 "plain language"). */
  text(scope: string | undefined, options: DescribeOptions): string;
  risk(scope: string | undefined): RiskLevel;
  /** Whether `sandbox` enforces this grant's scope (the dialog says so when it does not). */
  enforced(scope: string | undefined, sandbox: SandboxKind): boolean;
  /** How bubblewrap enforces it, in words (DESIGN §5's last column; SECURITY.md has the detail). */
  enforcement: string;
};

const MAX_SCOPE = 1024;
const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Home folders that hold credentials or configuration worth more than ordinary documents. */
const SENSITIVE_HOME_DIRS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.password-store',
  'library/keychains',
];

function fsProblem(scope: string): string | undefined {
  const parsed = parseFsScope(scope);
  return typeof parsed === 'string' ? parsed : undefined;
}

/**
 * `workspace` covers only `workspace`; a folder covers itself and everything below it; the pattern
 * scopes `~/` and `/` cover every home path and every absolute path.
 */
function fsCovers(granted: string | undefined, needed: string | undefined): boolean {
  if (granted === undefined || needed === undefined) return false;
  const g = parseFsPatternScope(granted);
  const n = parseFsScope(needed);
  if (typeof g === 'string' || typeof n === 'string' || g.kind !== n.kind) return false;
  if (g.kind === 'workspace' || n.kind === 'workspace') return true;
  return (
    g.segments.length <= n.segments.length && g.segments.every((s, i) => s === (n as Exclude<FsScope, { kind: 'workspace' }>).segments[i])
  );
}

function fsPlace(scope: string | undefined, options: DescribeOptions, workspaceText: string): string {
  if (scope === 'workspace' || scope === undefined) return options.workspaceLabel ?? workspaceText;
  return scope;
}

function fsRisk(write: boolean, scope: string | undefined): RiskLevel {
  if (scope === undefined || scope === 'workspace') return write ? 'medium' : 'low';
  if (write) return 'high';
  const fs = parseFsScope(scope);
  if (typeof fs === 'string' || fs.kind !== 'home') return 'medium';
  const path = fs.segments.join('/').toLowerCase();
  return SENSITIVE_HOME_DIRS.some((d) => path === d || path.startsWith(`${d}/`)) ? 'high' : 'medium';
}

/** Exactly the same scope (programs, variables). */
const sameScope = (granted: string | undefined, needed: string | undefined): boolean => granted !== undefined && granted === needed;
const anySandbox = (_scope: string | undefined, sandbox: SandboxKind): boolean => sandbox !== 'none';
const FS_PATTERN_SCOPES = Object.keys(FS_ROOT_PATTERNS);

const TABLE = {
  'fs:read': {
    id: 'fs:read',
    scope: 'required',
    missingScope: 'fs:read needs a scope: "workspace", "~/path" or "/absolute/path"',
    scopeProblem: fsProblem,
    patternScopes: FS_PATTERN_SCOPES,
    covers: fsCovers,
    text: (scope, options) => `Read files in ${fsPlace(scope, options, 'the folder you choose for each run')}`,
    risk: (scope) => fsRisk(false, scope),
    enforced: anySandbox,
    enforcement: 'read-only bind of that path',
  },
  'fs:write': {
    id: 'fs:write',
    scope: 'required',
    missingScope: 'fs:write needs a scope: "workspace", "~/path" or "/absolute/path"',
    scopeProblem: fsProblem,
    patternScopes: FS_PATTERN_SCOPES,
    covers: fsCovers,
    text: (scope, options) => `Create, change and delete files in ${fsPlace(scope, options, 'the folder you choose')}`,
    risk: (scope) => fsRisk(true, scope),
    enforced: anySandbox,
    enforcement: "read-write bind; never the capability's own or any installed directory",
  },
  'net:connect': {
    id: 'net:connect',
    scope: 'optional',
    patternScopes: [],
    scopeProblem: (scope) => {
      const parsed = parseNetScope(scope);
      return typeof parsed === 'string' ? parsed : undefined;
    },
    covers: (granted, needed) => {
      // No scope means any server: it covers every requirement and only it covers "any".
      if (granted === undefined) return true;
      if (needed === undefined) return false;
      const g = parseNetScope(granted);
      const n = parseNetScope(needed);
      return typeof g !== 'string' && typeof n !== 'string' && netScopeCovers(g, n);
    },
    text: (scope) => {
      if (scope === undefined) return 'Connect to any server on the internet';
      const net = parseNetScope(scope);
      if (typeof net === 'string') return `Connect to ${scope}`;
      const where = net.wildcard ? `any server under ${net.host}` : net.host;
      return net.port === undefined ? `Connect to ${where}` : `Connect to ${where} on port ${net.port}`;
    },
    risk: (scope) => (scope === undefined ? 'high' : 'medium'),
    // Scoped connects go through the host-side filtering proxy (net-proxy.ts) on both platforms:
    // bubblewrap leaves the tool no network but a unix socket to the proxy; the sandbox-exec
    // profile allows outbound TCP only to the proxy's loopback port.
    enforced: anySandbox,
    enforcement:
      'no network without it; unscoped shares the network; scoped goes through a host-side proxy that allows only the named hosts',
  },
  'process:exec': {
    id: 'process:exec',
    scope: 'required',
    missingScope: 'process:exec needs a scope naming one program, such as "git"',
    patternScopes: [],
    scopeProblem: (scope) =>
      PROGRAM_NAME.test(scope)
        ? undefined
        : `the program scope ${JSON.stringify(scope)} must be a program name such as "git" (letters, digits, ".", "_", "+", "-"; no path)`,
    covers: sameScope,
    // Say what the program can read (it runs in the tool's sandbox; only its executable is added).
    text: (scope) =>
      `Run the program ${scope ?? '(unnamed)'} on your computer; it runs in this tool's ` +
      'sandbox and can read only what the tool can, not the folder it is installed in',
    risk: () => 'high',
    // bubblewrap: system programs under /usr stay visible (read-only, no new privileges) and a tool
    // can run executables it ships, so "only this program" is not a boundary there. The
    // sandbox-exec profile allows process-exec of the interpreter and granted programs only.
    enforced: (_scope, sandbox) => sandbox === 'sandbox-exec',
    enforcement: 'that program made available read-only (not a boundary: see SECURITY.md)',
  },
  'env:read': {
    id: 'env:read',
    scope: 'required',
    missingScope: 'env:read needs a scope naming one environment variable, such as "GITHUB_TOKEN"',
    patternScopes: [],
    scopeProblem: (scope) =>
      ENV_NAME.test(scope) ? undefined : `the environment scope ${JSON.stringify(scope)} must be a variable name such as "GITHUB_TOKEN"`,
    covers: sameScope,
    text: (scope) => `Read the environment variable ${scope ?? '(unnamed)'} (the app asks you for its value)`,
    risk: () => 'medium',
    enforced: anySandbox,
    enforcement: 'the environment is cleared; only granted variables are passed',
  },
  'storage:data': {
    id: 'storage:data',
    scope: 'none',
    patternScopes: [],
    scopeProblem: () => 'storage:data takes no scope; remove it',
    covers: (granted, needed) => granted === undefined && needed === undefined,
    text: () => 'Keep its own data between runs',
    risk: () => 'low',
    enforced: anySandbox,
    enforcement: "read-write bind of the tool's data dir",
  },
} as const satisfies { [id: string]: PermissionKind };

/** DESIGN §5: a permission id of version 1.0 (`namespace:verb`): a key of the table. */
export type PermissionId = keyof typeof TABLE;

/** The table, each entry's `id` its own key. */
export const PERMISSION_TABLE: { readonly [K in PermissionId]: PermissionKind<K> } = TABLE;

/** DESIGN §5: the permission ids version 1.0 knows; any other id is rejected. */
export const PERMISSION_IDS = Object.keys(PERMISSION_TABLE) as PermissionId[];

/** The problem with `scope` for permission `id`, or undefined when it is valid (DESIGN §5). */
export function scopeProblem(id: PermissionId, scope: string | undefined): string | undefined {
  if (scope !== undefined && (scope.length === 0 || scope.length > MAX_SCOPE)) {
    return `the scope of ${id} must be 1 to ${MAX_SCOPE} characters long`;
  }
  const kind: PermissionKind = PERMISSION_TABLE[id];
  if (scope === undefined) return kind.scope === 'required' ? kind.missingScope : undefined;
  return kind.scopeProblem(scope);
}
