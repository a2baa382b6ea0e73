/**
 * The macOS sandbox (DESIGN §5, spec §6): `sandbox-exec -f <profile>` with a profile generated
 * per run from the template in sandbox-profiles/tool.sb.tmpl (embedded below, kept identical by a
 * test, because the template must ship inside the SDK).
 *
 * NOT RUN on the Linux machine where it was written: the generated profile text is unit-tested,
 * the profile itself has never been executed by a macOS kernel. SECURITY.md says so.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { removeTree } from '../util/fs-tree.js';
import path from 'node:path';
import { AdcapError } from '../errors.js';
import { executableExposure, findProgram, programExposure, safeRealpath, sandboxEnv, SAFE_PATH } from './common.js';
import { startNetProxy, type NetProxy } from './net-proxy.js';
import { interpretGrants, type Sandbox, type SandboxSpec, type OwnedWrappedCommand } from './sandbox.js';

const SANDBOX_EXEC_PATH = '/usr/bin/sandbox-exec';

/** sandbox-profiles/tool.sb.tmpl, verbatim. */
export const TOOL_PROFILE_TEMPLATE = `;; Arcotheon tool profile for macOS sandbox-exec (DESIGN §5, spec §6-§7).
;; sdk/src/sandbox/sandbox-exec.ts fills the @@…@@ lines per run from the tool's grants; every
;; path is the real (symlink-resolved) path, escaped for SBPL strings. Later rules win over
;; earlier ones, so the read-only protections come after the writable grants.
(version 1)
(deny default)
(import "system.sb")

;; The tool may start and signal its own child processes and read system settings and metadata.
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow file-read-metadata)

;; System software, read-only: libraries, frameworks, the dyld cache, name resolution, certificates.
(allow file-read*
  (subpath "/usr/lib")
  (subpath "/usr/share")
  (subpath "/System")
  (subpath "/Library/Apple")
  (subpath "/private/var/db/dyld")
  (subpath "/private/var/db/timezone")
  (subpath "/private/etc/ssl")
  (literal "/private/etc/hosts")
  (literal "/private/etc/resolv.conf")
  (literal "/private/etc/services")
  (literal "/private/etc/protocols")
  (literal "/private/etc/localtime")
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/random")
  (literal "/dev/urandom"))
(allow file-write-data (literal "/dev/null"))

;; Interpreter, capability directory, dependencies, resources and fs:read grants (read-only).
@@READ@@

;; Private HOME and TMPDIR, the workspace with fs:write:workspace, fs:write scopes, storage:data.
@@WRITE@@

;; Never writable: the capability's own directory, its dependencies, installed packages (DESIGN §5).
@@PROTECT@@

;; Never visible: the Arcotheon home (secrets, grants, audit log), whatever the workspace and grants
;; expose; then the run's own folders in it are readable again.
@@HIDE@@
@@UNHIDE@@

;; storage:data: the tool's own data folder stays writable inside the protected Arcotheon home.
@@OWNDATA@@

;; Programs: the interpreter (or the tool's binary) and process:exec grants only.
@@EXEC@@

;; Network: nothing without net:connect, anything with an unscoped grant, only the host-side
;; filtering proxy on loopback with scoped grants.
@@NETWORK@@
`;

/** An SBPL string literal. Control characters cannot be expressed safely, so they are refused. */
export function sbplString(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new AdcapError(
      'E_USAGE',
      `The path ${JSON.stringify(value)} contains a control character, which a macOS sandbox profile cannot express; rename it.`,
    );
  }
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const real = (p: string): string => safeRealpath(p) ?? path.resolve(p);
const subpath = (p: string): string => `(subpath ${sbplString(real(p))})`;
const literal = (p: string): string => `(literal ${sbplString(real(p))})`;
/** The path as called, without resolving symlinks (process-exec of `/usr/bin/sh` next to its target). */
const literalAsCalled = (p: string): string => `(literal ${sbplString(path.resolve(p))})`;

function rule(head: string, filters: string[], none: string): string {
  const unique = [...new Set(filters)];
  return unique.length === 0 ? `;; ${none}` : `(${head}\n  ${unique.join('\n  ')})`;
}

interface SandboxExecContext {
  /** Private HOME and TMPDIR for this run (host paths). */
  home: string;
  tmp: string;
  /** Port of the host-side filtering proxy on 127.0.0.1 (scoped net:connect). */
  proxyPort?: number;
}

/** The profile for `spec` (exported for tests: it cannot run on Linux). */
export function buildSandboxExecProfile(spec: SandboxSpec, ctx: SandboxExecContext): string {
  const grants = interpretGrants(spec.grants, spec.home);
  const interpreter = executableExposure(spec.command, spec.home);
  const programs = grants.programs
    .map((p) => findProgram(p, spec.env.PATH ?? SAFE_PATH))
    .filter((p): p is string => p !== null)
    .map((p) => programExposure(p, spec.home));

  const read: string[] = [];
  read.push(interpreter.prefix !== null ? subpath(interpreter.prefix) : literal(interpreter.real));
  // A granted program's executable and chosen library folders, not its folder.
  for (const program of programs) read.push(literalAsCalled(program.command), literal(program.real), ...program.libraryDirs.map(subpath));
  for (const dir of [spec.capabilityDir, ...spec.dependencyDirs]) read.push(subpath(dir)); // spec §6: always readable
  for (const file of spec.readOnlyFiles) read.push(literal(file));
  if (spec.workspace !== null && grants.workspace === 'read') read.push(subpath(spec.workspace));
  for (const p of grants.readPaths) read.push(subpath(p));

  const write: string[] = [subpath(ctx.home), subpath(ctx.tmp)];
  if (spec.workspace !== null && grants.workspace === 'write') write.push(subpath(spec.workspace));
  for (const p of grants.writePaths) write.push(subpath(p));
  if (grants.storageData && spec.toolDataDir !== null) write.push(subpath(spec.toolDataDir));

  const protect = [spec.capabilityDir, ...spec.dependencyDirs, ...(spec.protectedDirs ?? [])].map(subpath);
  // SandboxSpec.hiddenDirs: denied for reading and writing after every allow above; the capability's
  // own and dependency directories and its resource files are readable again after that (still
  // not writable: the deny stands for writes), and its data folder writable (OWNDATA comes last).
  const hidden = (spec.hiddenDirs ?? []).map(subpath);
  const unhide =
    hidden.length === 0 ? [] : [...[spec.capabilityDir, ...spec.dependencyDirs].map(subpath), ...spec.readOnlyFiles.map(literal)];

  const exec: string[] = [
    literalAsCalled(spec.command),
    literal(interpreter.real),
    ...programs.flatMap((p) => [literalAsCalled(p.command), literal(p.real)]),
  ];

  let network: string;
  if (grants.net === 'any') {
    network = [
      '(allow network-outbound)',
      '(allow system-socket)',
      '(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.trustd") (global-name "com.apple.trustd.agent"))',
    ].join('\n');
  } else if (grants.net === 'scoped') {
    if (ctx.proxyPort === undefined) throw new Error('buildSandboxExecProfile: scoped net:connect needs ctx.proxyPort');
    network = `(allow network-outbound (remote tcp ${sbplString(`localhost:${ctx.proxyPort}`)}))`;
  } else network = ';; no network';

  const blocks: Record<string, string> = {
    READ: rule('allow file-read*', read, 'nothing else readable'),
    WRITE: rule('allow file-read* file-write*', write, 'nothing writable'),
    PROTECT: rule('deny file-write*', protect, 'nothing to protect'),
    HIDE: rule('deny file-read* file-write*', hidden, 'nothing hidden'),
    UNHIDE: rule('allow file-read*', unhide, 'nothing to show again'),
    OWNDATA: rule(
      'allow file-read* file-write*',
      grants.storageData && spec.toolDataDir !== null ? [subpath(spec.toolDataDir)] : [],
      'no data folder',
    ),
    EXEC: rule('allow process-exec', exec, 'no programs'),
    NETWORK: network,
  };
  return TOOL_PROFILE_TEMPLATE.replace(/^@@([A-Z]+)@@$/gm, (_m, name: string) => {
    const block = blocks[name];
    if (block === undefined) throw new Error(`tool.sb.tmpl: unknown placeholder ${name}`);
    return block;
  });
}

const availability = new Map<string, Promise<boolean>>();

/** The macOS sandbox: tools run under sandbox-exec with a profile built from their grants. */
export class SandboxExecSandbox implements Sandbox {
  /** Always `'sandbox-exec'`, as tool results report it. */
  readonly name = 'sandbox-exec' as const;
  /** The sandbox-exec program used (the option, else /usr/bin/sandbox-exec). */
  readonly sandboxExecPath: string;

  constructor(options: { sandboxExecPath?: string } = {}) {
    this.sandboxExecPath = options.sandboxExecPath ?? SANDBOX_EXEC_PATH;
  }

  /** Runs a trivial profile once (sandbox-exec is deprecated by Apple and could disappear). */
  available(): Promise<boolean> {
    let cached = availability.get(this.sandboxExecPath);
    if (cached === undefined) {
      cached =
        process.platform !== 'darwin' || !fs.existsSync(this.sandboxExecPath)
          ? Promise.resolve(false)
          : new Promise((resolve) => {
              execFile(this.sandboxExecPath, ['-p', '(version 1)(allow default)', '/usr/bin/true'], { timeout: 10_000 }, (e) =>
                resolve(e === null),
              );
            });
      availability.set(this.sandboxExecPath, cached);
    }
    return cached;
  }

  /** The sandbox-exec command line, with a profile built from the grants, for one run; E_SANDBOX_UNAVAILABLE when it does not work here. */
  async wrap(spec: SandboxSpec): Promise<OwnedWrappedCommand> {
    if (!(await this.available())) {
      throw new AdcapError(
        'E_SANDBOX_UNAVAILABLE',
        `${this.sandboxExecPath} does not work on this Mac, so tools cannot be sandboxed; ` +
          'run them only if the host opts out for capabilities it ships.',
      );
    }
    return this.wrapUnchecked(spec);
  }

  /** wrap() without the availability check: builds the command and profile (used by tests on Linux). */
  async wrapUnchecked(spec: SandboxSpec): Promise<OwnedWrappedCommand> {
    await fsp.mkdir(spec.tmpDir, { recursive: true });
    const runDir = real(await fsp.mkdtemp(path.join(spec.tmpDir, 'adcap-sbx-')));
    let proxy: NetProxy | null = null;
    const cleanup = async (): Promise<void> => {
      await proxy?.close();
      proxy = null;
      // The tool may have left read-only folders in its home or tmp: the one removeTree copes.
      await removeTree(runDir);
    };
    try {
      const ctx: SandboxExecContext = { home: path.join(runDir, 'home'), tmp: path.join(runDir, 'tmp') };
      await fsp.mkdir(ctx.home);
      await fsp.mkdir(ctx.tmp);
      const grants = interpretGrants(spec.grants, spec.home);
      if (grants.net === 'scoped') {
        proxy = await startNetProxy({ scopes: grants.netScopes, listen: { port: 0 } });
        if (proxy.port !== null) ctx.proxyPort = proxy.port;
      }
      const profile = path.join(runDir, 'tool.sb');
      await fsp.writeFile(profile, buildSandboxExecProfile(spec, ctx), { mode: 0o600 });
      const env = sandboxEnv(spec, grants, { home: ctx.home, tmp: ctx.tmp });
      if (ctx.proxyPort !== undefined) {
        const url = `http://127.0.0.1:${ctx.proxyPort}`;
        Object.assign(env, {
          HTTPS_PROXY: url,
          HTTP_PROXY: url,
          https_proxy: url,
          http_proxy: url,
          ALL_PROXY: url,
          all_proxy: url,
          NODE_USE_ENV_PROXY: '1',
          NODE_OPTIONS: `${env['NODE_OPTIONS'] ?? ''} --disable-warning=UNDICI-EHPA`.trim(),
        });
      }
      return {
        command: this.sandboxExecPath,
        args: ['-f', profile, spec.command, ...spec.args],
        env,
        cwd: spec.cwd ?? spec.capabilityDir,
        cleanup,
      };
    } catch (error) {
      await cleanup();
      throw error;
    }
  }
}
