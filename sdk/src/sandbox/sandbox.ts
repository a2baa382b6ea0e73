/**
 * The Sandbox interface (host contract "Sandbox expectations": `wrap(spec) → command`; DESIGN §5;
 * spec §6-§7): a sandbox turns "run this interpreter with these arguments under these grants" into
 * the command the SDK spawns. Implementations: bubblewrap (Linux), sandbox-exec (macOS), none
 * (host opt-out only), and any a host writes itself: all it needs is a name and
 * `wrap(spec)` returning `{ command, args, env, cleanup? }`, with `env` the complete environment.
 */
import path from 'node:path';
import { AdcapError } from '../errors.js';
import { isPermissionId, PERMISSION_TABLE, splitGrantText, type SandboxKind } from '../permissions/index.js';

/** The names of the SDK's own sandboxes (the permission table's SandboxKind); a host's sandbox may use any other name. */
export type SandboxName = SandboxKind;

/** One tool run as a sandbox is asked to wrap it: the command, its folders, grants and limits. */
export interface SandboxSpec {
  /** The program to run: an absolute path (the node or python interpreter, or a binary entry). */
  command: string;
  /** The program's arguments (the entry script for an interpreter). */
  args: string[];
  /**
   * The host environment that granted `env:read:<NAME>` variables are taken from. Nothing else of
   * it reaches the tool: the sandbox builds a minimal environment (DESIGN §5, env:read).
   */
  env: Record<string, string>;
  /** Working directory inside the sandbox; defaults to the capability directory. */
  cwd?: string;
  /** Granted permissions of this tool as `id[:scope]` strings (DESIGN §5). */
  grants: string[];
  /** spec §6: always readable, never writable. */
  capabilityDir: string;
  /** The installed folders of the capability's dependencies (read-only). */
  dependencyDirs: string[];
  /** Declared resources' cached files (read-only; DESIGN §5 "always available"). */
  readOnlyFiles: string[];
  /** The folder chosen for this run, or null. Exposed only with fs:read:workspace / fs:write:workspace. */
  workspace: string | null;
  /** home/tooldata/<pub>/<name>/<tool>/, bound read-write only with storage:data. */
  toolDataDir: string | null;
  /**
   * A host directory of this run where the sandbox may create its files (a private HOME or TMPDIR):
   * runTool creates it before calling wrap() and removes it after the run (sdk/README.md "Sandbox hook").
   * For a sandbox whose `needsTmpDir` is false, the system's temporary folder instead.
   */
  tmpDir: string;
  /**
   * The user's home directory: `~/` in fs scopes expands against it, and it is hidden (replaced by
   * an empty private dir) inside the sandbox.
   */
  home: string;
  /**
   * Extension (not in the first contract draft): directories that stay read-only even inside a
   * writable grant, e.g. the Arcotheon home's packages/ (DESIGN §5: fs:write is "never the
   * capability's own or any installed directory").
   */
  protectedDirs?: string[];
  /**
   * Extension: directories that must not be visible inside the sandbox at all,
   * whatever the workspace and grants expose (runTool passes the Arcotheon home, which holds
   * secrets.json, grants and the audit log). An empty folder takes their place; the capability's
   * own directory, its dependencies, its resources and its tool data folder are still exposed
   * inside them as above. A host's own sandbox should honour it too.
   */
  hiddenDirs?: string[];
}

/** What a sandbox returns for a tool run: the command to spawn, its arguments and environment. */
export interface WrappedCommand {
  /** The program to spawn (a path, or a name looked up on the PATH of `env`). */
  command: string;
  /** Its arguments. */
  args: string[];
  /**
   * The complete environment to spawn `command` with. Required: the SDK never merges or falls
   * back to its own process environment (a wrap() without it is refused with E_HOST_CALLBACK).
   */
  env: Record<string, string>;
  /** Working directory for `command`; default: the capability directory. */
  cwd?: string;
  /**
   * Extension of the contract: open file descriptors the caller MUST pass to the child as fds 3,
   * 4, … in this order, e.g. `spawn(w.command, w.args, { env: w.env, stdio: ['pipe', 'pipe', 'pipe', ...w.stdioExtra] })`
   * (see `stdioFor`). bubblewrap reads its argument list and its seccomp filter from them, which
   * keeps granted secrets out of the world-readable command line; further entries overwrite
   * descriptors the host inherited without close-on-exec, so bwrap closes them before the tool
   * starts ('ignore' leaves a number alone). The descriptors are read once: a WrappedCommand is
   * single-use. cleanup() closes them.
   */
  stdioExtra?: Array<number | 'ignore'>;
  /** Releases per-run resources (temp files, descriptors, the network proxy), after the run. Optional. */
  cleanup?(): void | Promise<void>;
}

/** What the SDK's own sandboxes return: cleanup() is always there, and idempotent. */
export interface OwnedWrappedCommand extends WrappedCommand {
  /** Releases the run's resources; calling it again does nothing. */
  cleanup(): Promise<void>;
}

/** Confines a tool run (host contract "Sandbox"): wraps the command with what the grants allow. */
export interface Sandbox {
  /** Shown as `sandbox` in tool results; any string. The SDK's own are the SandboxName values. */
  readonly name: string;
  /** Whether this sandbox works on this machine; absent means it always does. */
  available?(): boolean | Promise<boolean>;
  /**
   * Whether wrap() needs a folder of its own for each run in `spec.tmpDir` (sdk/README.md "Sandbox
   * hook"). Absent or true: runTool creates one before wrap() and removes it after the run. False:
   * none is made, and `spec.tmpDir` is the system's temporary folder, shared with other programs
   * (a sandbox that writes no file for a run, or makes its own private folder there, as the SDK's
   * bubblewrap does for a scoped network's socket).
   */
  readonly needsTmpDir?: boolean;
  /** The command for one run. May return the value or a promise of it; called once per run. */
  wrap(spec: SandboxSpec): WrappedCommand | Promise<WrappedCommand>;
}

type StdioEntry = 'pipe' | 'ignore' | 'inherit' | number;

/** The `stdio` array for child_process.spawn that hands `w.stdioExtra` over as fds 3, 4, … */
export function stdioFor(w: WrappedCommand, base: [StdioEntry, StdioEntry, StdioEntry] = ['pipe', 'pipe', 'pipe']): StdioEntry[] {
  return [...base, ...(w.stdioExtra ?? [])];
}

/** What the grants of one tool mean for a sandbox (DESIGN §5 table). */
export interface SandboxGrants {
  /** 'none': no network; 'any': unscoped net:connect; 'scoped': only `netScopes`, through the filtering proxy. */
  net: 'none' | 'any' | 'scoped';
  /** The net:connect scopes allowed when `net` is `scoped`, e.g. `api.example.com:443`. */
  netScopes: string[];
  /** What the tool may do in the run's workspace folder. */
  workspace: 'none' | 'read' | 'write';
  /** Absolute, normalised paths from fs:read / fs:write scopes other than `workspace`. */
  readPaths: string[];
  /** Absolute, normalised paths from fs:write scopes other than `workspace`. */
  writePaths: string[];
  /** The environment variables granted with env:read, passed in from the host's environment. */
  envNames: string[];
  /** The programs granted with process:exec, which the tool may start. */
  programs: string[];
  /** Whether storage:data is granted: the tool's data folder is mounted read-write. */
  storageData: boolean;
}

/** DESIGN §5: a grant is `id` or `id:scope`; ids are `namespace:verb`, the rest is the scope. */
export function splitGrant(grant: string): { id: string; scope?: string } {
  if (grant.indexOf(':') <= 0)
    throw new AdcapError(
      'E_NOT_GRANTED',
      `The grant "${grant}" is not of the form namespace:verb[:scope]; grant the tool's declared permissions again.`,
    );
  return splitGrantText(grant);
}

/** Expands an fs scope (`~/path`, `/abs/path`) to a normalised absolute path (DESIGN §5). */
function fsScopePath(scope: string, home: string): string {
  let p: string;
  if (scope === '~') p = home;
  else if (scope.startsWith('~/')) p = path.join(home, scope.slice(2));
  else if (path.isAbsolute(scope)) p = scope;
  else {
    throw new AdcapError(
      'E_NOT_GRANTED',
      `The file-system scope "${scope}" is neither "workspace", "~/path" nor "/absolute/path"; ask the publisher to fix the permission.`,
    );
  }
  if (scope.split('/').includes('..')) {
    throw new AdcapError(
      'E_NOT_GRANTED',
      `The file-system scope "${scope}" contains "..", which the sandbox refuses; grant the real folder instead.`,
    );
  }
  return path.resolve(p);
}

/** Reads the grants a sandbox acts on; unknown ids are ignored here (the permission validator rejects them earlier). */
export function interpretGrants(grants: readonly string[], home: string): SandboxGrants {
  const out: SandboxGrants = {
    net: 'none',
    netScopes: [],
    workspace: 'none',
    readPaths: [],
    writePaths: [],
    envNames: [],
    programs: [],
    storageData: false,
  };
  for (const grant of grants) {
    const { id, scope } = splitGrant(grant);
    if (!isPermissionId(id)) continue;
    // Exhaustive over the permission table's ids (lint: switch-exhaustiveness-check): a new id
    // must say here what the sandbox does with it.
    switch (id) {
      case 'net:connect':
        // Only the bare grant means any server (DESIGN §5); every scope, "*" included, goes to the
        // filtering proxy, which accepts exactly the permission table's grammar.
        if (scope === undefined) out.net = 'any';
        else {
          if (out.net !== 'any') out.net = 'scoped';
          out.netScopes.push(scope);
        }
        break;
      case 'fs:read':
      case 'fs:write': {
        if (scope === undefined) {
          throw new AdcapError(
            'E_NOT_GRANTED',
            `The grant "${grant}" has no scope; file access needs "workspace", "~/path" or "/absolute/path".`,
          );
        }
        const write = id === 'fs:write';
        if (scope === 'workspace') {
          if (write) out.workspace = 'write';
          else if (out.workspace === 'none') out.workspace = 'read';
        } else (write ? out.writePaths : out.readPaths).push(fsScopePath(scope, home));
        break;
      }
      case 'env:read':
        // A bare env:read names no variable, so it passes none (DESIGN §5: only granted variables).
        if (scope !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(scope)) out.envNames.push(scope);
        break;
      case 'process:exec':
        if (scope !== undefined && scope !== '') out.programs.push(scope);
        break;
      case 'storage:data':
        out.storageData = true;
        break;
    }
  }
  return out;
}

/**
 * Whether `sandboxName` enforces the scope of `grant` (for the permission dialog: a scope that
 * is not enforced must be shown as such). Unscoped grants are "enforced" when the
 * sandbox applies them at all.
 */
export function isScopeEnforced(grant: string, sandboxName: string): boolean {
  // A host's own sandbox is not known to enforce any scope; only the SDK's are described here.
  if (sandboxName !== 'bubblewrap' && sandboxName !== 'sandbox-exec') return false;
  const { id, scope } = splitGrant(grant);
  return isPermissionId(id) && PERMISSION_TABLE[id].enforced(scope, sandboxName);
}
