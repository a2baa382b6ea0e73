/**
 * The Linux sandbox (DESIGN §5 "Linux enforcement (bubblewrap)", spec §6-§7): bubblewrap with
 * every namespace unshared, no capabilities, a curated read-only system, only the paths the
 * grants name, a private /tmp and HOME, a cleared environment and a seccomp filter — in the
 * spirit of flatpak's `flatpak run`.
 *
 * The options and the seccomp filter reach bwrap through inherited descriptors (`--args 3`,
 * `--add-seccomp-fd 4`): granted secrets passed with `--setenv` never appear in the command line other
 * users can read in /proc, and the lists can grow without hitting argv limits. Only the command
 * that runs inside (interpreter, script, its arguments) stays on bwrap's command line.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import { writeJsonAtomic } from '../util/fs-atomic.js';
import { removeTree } from '../util/fs-tree.js';
import path from 'node:path';
import { AdcapError } from '../errors.js';
import {
  executableExposure,
  existingRealPath,
  findProgram,
  isInside,
  programExposure,
  safeRealpath,
  sandboxEnv,
  SAFE_PATH,
} from './common.js';
import { FORWARDER_SOURCE } from './forwarder.js';
import { DEFAULT_RESOURCE_LIMITS, limitRun, type LimitedRun, type ResourceLimits } from './limits.js';
import { startNetProxy, type NetProxy } from './net-proxy.js';
import { interpretGrants, type Sandbox, type SandboxGrants, type SandboxSpec, type OwnedWrappedCommand } from './sandbox.js';
import { allowAllSeccompFilter, seccompFilterForHost } from './seccomp.js';

/**
 * The base profile (also in sandbox-profiles/bubblewrap-base.json, kept identical by a test):
 * top-level system directories bound read-only (or recreated as the same symlink on merged-/usr
 * systems), and the files of /etc a program needs for name resolution, TLS certificates, the
 * dynamic linker and time zones. Not /etc as a whole: it holds shadow, ssh host keys, ssl/private.
 */
export const BUBBLEWRAP_BASE_PROFILE = {
  systemDirs: ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'],
  etcFiles: [
    '/etc/resolv.conf',
    '/etc/hosts',
    '/etc/host.conf',
    '/etc/nsswitch.conf',
    '/etc/gai.conf',
    '/etc/services',
    '/etc/protocols',
    '/etc/ld.so.cache',
    '/etc/ld.so.conf',
    '/etc/ld.so.conf.d',
    '/etc/localtime',
    '/etc/timezone',
    '/etc/alternatives',
    '/etc/ssl/certs',
    '/etc/ssl/openssl.cnf',
    '/etc/ca-certificates',
    '/etc/ca-certificates.conf',
    '/etc/pki/ca-trust',
    '/etc/pki/tls/certs',
    '/etc/pki/tls/cert.pem',
    '/etc/pki/tls/openssl.cnf',
    '/etc/crypto-policies',
    '/etc/mime.types',
  ],
  /** Where per-run files appear inside the sandbox. */
  runDir: '/run/adcap',
  hostname: 'adcap-sandbox',
} as const;

/** One mount, in bwrap's vocabulary. `try` variants skip a missing source. */
type Mount =
  | { kind: 'ro-bind' | 'bind' | 'ro-bind-try' | 'bind-try'; src: string; dest: string }
  | { kind: 'tmpfs'; dest: string; readOnly?: true }
  | { kind: 'symlink'; target: string; dest: string }
  /** A read-only file whose bytes bwrap reads from its descriptor `fd` (mode 0644, as the host's). */
  | { kind: 'ro-bind-data'; fd: number; dest: string };

export interface BubblewrapPlan {
  /** bwrap options (namespaces, mounts, environment, cwd), passed through `--args 3`. */
  options: string[];
  /** What runs inside, after `--` on bwrap's command line (bwrap reads only options from `--args`). */
  command: string[];
  grants: SandboxGrants;
  /** The environment the tool sees. */
  env: Record<string, string>;
}

interface PlanContext {
  /**
   * The descriptors of bwrap that hold /etc/passwd and /etc/group of the sandbox (`--ro-bind-data`);
   * default 5 and 6. wrap() passes the data through them: no per-run file is written for either.
   */
  dataFds?: { passwd: number; group: number };
  /** Host path of the proxy's socket dir (scoped net only). */
  netDir?: string;
  /** The node binary that runs the forwarder (scoped net only). */
  nodePath?: string;
  /** Size cap of the private /tmp and HOME tmpfs mounts (bwrap --size), in bytes. */
  tmpfsSizeBytes?: number;
}

const depth = (p: string): number => p.split('/').filter(Boolean).length;
const PRIORITY: Record<Mount['kind'], number> = {
  tmpfs: 0,
  symlink: 0,
  bind: 1,
  'bind-try': 1,
  'ro-bind': 2,
  'ro-bind-try': 2,
  'ro-bind-data': 2,
};

function systemMounts(): Mount[] {
  const mounts: Mount[] = [];
  for (const dir of BUBBLEWRAP_BASE_PROFILE.systemDirs) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) mounts.push({ kind: 'symlink', target: fs.readlinkSync(dir), dest: dir });
    else if (stat.isDirectory()) mounts.push({ kind: 'ro-bind', src: dir, dest: dir });
  }
  for (const file of BUBBLEWRAP_BASE_PROFILE.etcFiles) mounts.push({ kind: 'ro-bind-try', src: file, dest: file });
  return mounts;
}

function exposeExecutable(command: string, home: string, out: Mount[]): string {
  const { real, prefix } = executableExposure(command, home);
  if (prefix !== null && !isInside(prefix, '/usr')) out.push({ kind: 'ro-bind', src: prefix, dest: prefix });
  if (prefix === null || !isInside(real, prefix)) out.push({ kind: 'ro-bind', src: real, dest: real });
  // The path as called (e.g. /opt/node22/bin/node, a symlink into the prefix) must exist too.
  if (command !== real && !isInside(command, '/usr') && (prefix === null || !isInside(command, prefix))) {
    out.push({ kind: 'ro-bind', src: real, dest: command });
  }
  return real;
}

/** A process:exec program: its executable only, plus library folders chosen on purpose (see programExposure). */
function exposeProgram(found: string, home: string, out: Mount[]): void {
  const { real, libraryDirs } = programExposure(found, home);
  if (!isInside(real, '/usr')) out.push({ kind: 'ro-bind', src: real, dest: real });
  if (found !== real && !isInside(found, '/usr')) out.push({ kind: 'ro-bind', src: real, dest: found });
  for (const dir of libraryDirs) out.push({ kind: 'ro-bind', src: dir, dest: dir });
}

/**
 * SandboxSpec.hiddenDirs (SECURITY.md, the Arcotheon home): a hidden directory is not visible, whatever exposes
 * it. A mount of a path inside it is dropped (compared on real paths: bwrap follows links in a
 * mount's source); a mount that contains it gets an empty tmpfs at its place, applied after the
 * mount (parents first). `exempt` (the capability's own and dependency directories, its resource
 * files and its data folder, by source path or mount) stay: they are bound on top of the tmpfs.
 */
function hideDirs(spec: SandboxSpec, user: Mount[], exempt: ReadonlySet<Mount | string>): void {
  const hidden = [...new Set((spec.hiddenDirs ?? []).map((d) => safeRealpath(d)).filter((d): d is string => d !== null))];
  if (hidden.length === 0) return;
  const tmpfs: Mount[] = [];
  for (let i = user.length - 1; i >= 0; i--) {
    const m = user[i] as Mount;
    if (m.kind === 'tmpfs' || m.kind === 'symlink' || m.kind === 'ro-bind-data' || exempt.has(m) || exempt.has(m.src)) continue;
    const real = safeRealpath(m.src);
    if (real === null) continue;
    if (hidden.some((h) => isInside(real, h))) {
      user.splice(i, 1);
      continue;
    }
    for (const h of hidden) {
      if (isInside(h, real)) tmpfs.push({ kind: 'tmpfs', dest: path.join(m.dest, path.relative(real, h)), readOnly: true });
    }
  }
  // The system folders are bound before the user's mounts: a home inside one is covered there too.
  for (const h of hidden) {
    if (BUBBLEWRAP_BASE_PROFILE.systemDirs.some((d) => isInside(h, d))) tmpfs.push({ kind: 'tmpfs', dest: h, readOnly: true });
  }
  user.push(...tmpfs);
}

/**
 * Builds the bwrap arguments for `spec` (pure apart from reading the file system to resolve
 * symlinks and programs). Exported for tests and for `adcap` diagnostics.
 */
export function planBubblewrap(spec: SandboxSpec, ctx: PlanContext): BubblewrapPlan {
  const grants = interpretGrants(spec.grants, spec.home);
  for (const [what, p] of [
    ['capability directory', spec.capabilityDir],
    ...spec.dependencyDirs.map((d) => ['dependency directory', d] as const),
  ] as const) {
    if (!path.isAbsolute(p) || !fs.existsSync(p)) {
      throw new AdcapError('E_IO', `The ${what} ${p} does not exist; run "adcap doctor" to repair the installation.`, {
        details: { path: p },
      });
    }
  }
  if (spec.workspace !== null && grants.workspace !== 'none' && !fs.existsSync(spec.workspace)) {
    throw new AdcapError('E_IO', `The workspace ${spec.workspace} does not exist; choose an existing folder for this run.`, {
      details: { path: spec.workspace },
    });
  }

  const user: Mount[] = [{ kind: 'tmpfs', dest: '/tmp' }];
  const home = path.resolve(spec.home);
  if (depth(home) >= 1) user.push({ kind: 'tmpfs', dest: home }); // private, empty HOME at the same path

  const pathDirs: string[] = [];
  exposeExecutable(spec.command, spec.home, user);
  if (grants.net === 'scoped') exposeExecutable(ctx.nodePath ?? process.execPath, spec.home, user);
  const searchPath = spec.env.PATH ?? process.env.PATH ?? SAFE_PATH;
  for (const program of grants.programs) {
    const found = findProgram(program, searchPath);
    if (found === null) continue; // not installed: the tool gets ENOENT, as it would outside
    exposeProgram(found, spec.home, user);
    pathDirs.push(path.dirname(found));
  }

  // spec §6: the capability's own directory and its dependencies' are always readable, never writable.
  const alwaysReadOnly = [spec.capabilityDir, ...spec.dependencyDirs];
  for (const dir of alwaysReadOnly) user.push({ kind: 'ro-bind', src: dir, dest: dir });
  for (const file of spec.readOnlyFiles) user.push({ kind: 'ro-bind', src: file, dest: file });
  if (spec.workspace !== null && grants.workspace !== 'none') {
    user.push({ kind: grants.workspace === 'write' ? 'bind' : 'ro-bind', src: spec.workspace, dest: spec.workspace });
  }
  for (const p of grants.readPaths) user.push({ kind: 'ro-bind-try', src: p, dest: p });
  for (const p of grants.writePaths) user.push({ kind: 'bind-try', src: p, dest: p });
  let ownData: Mount | null = null;
  if (grants.storageData && spec.toolDataDir !== null) {
    fs.mkdirSync(spec.toolDataDir, { recursive: true });
    ownData = { kind: 'bind', src: spec.toolDataDir, dest: spec.toolDataDir };
    user.push(ownData);
  }

  // DESIGN §5 fs:write: "never the capability's own or any installed directory". A writable
  // mount that contains a protected directory gets that directory re-bound read-only on top; a
  // writable mount inside one is downgraded to read-only. Compared on REAL
  // paths (bwrap follows links in a mount's source, so a home reached through a symlink is the
  // same directory), and a protected path that does not exist yet is protected through its
  // nearest existing ancestor, so a writable grant cannot create it. The tool's own data folder
  // (storage:data) is the one writable mount allowed inside a protected directory.
  const protectedDirs = [...new Set([...alwaysReadOnly, ...(spec.protectedDirs ?? [])].map(existingRealPath))];
  const writable = user.filter((m): m is Extract<Mount, { src: string }> => (m.kind === 'bind' || m.kind === 'bind-try') && m !== ownData);
  for (const m of writable) {
    const real = safeRealpath(m.src);
    if (real === null) continue; // a missing bind-try source mounts nothing
    if (protectedDirs.some((p) => isInside(real, p))) {
      m.kind = m.kind === 'bind' ? 'ro-bind' : 'ro-bind-try';
      continue;
    }
    for (const p of protectedDirs) {
      if (isInside(p, real) && p !== real) user.push({ kind: 'ro-bind-try', src: p, dest: path.join(m.dest, path.relative(real, p)) });
    }
  }
  hideDirs(spec, user, new Set<Mount | string>([...alwaysReadOnly, ...spec.readOnlyFiles, ...(ownData === null ? [] : [ownData])]));

  // Parents before children, and at one path: tmpfs, then writable, then read-only (the most
  // restrictive mount is applied last and wins).
  const ordered = user
    .map((m, i) => ({ m, i }))
    .sort((a, b) => depth(a.m.dest) - depth(b.m.dest) || PRIORITY[a.m.kind] - PRIORITY[b.m.kind] || a.i - b.i)
    .map(({ m }) => m);

  const runDir = BUBBLEWRAP_BASE_PROFILE.runDir;
  const data = ctx.dataFds ?? { passwd: 5, group: 6 };
  const mounts: Mount[] = [
    ...systemMounts(),
    { kind: 'ro-bind-data', fd: data.passwd, dest: '/etc/passwd' },
    { kind: 'ro-bind-data', fd: data.group, dest: '/etc/group' },
    ...ordered,
  ];
  if (grants.net === 'scoped') {
    if (ctx.netDir === undefined) throw new Error('planBubblewrap: scoped net:connect needs ctx.netDir');
    mounts.push({ kind: 'ro-bind', src: ctx.netDir, dest: `${runDir}/net` });
  }

  const env = sandboxEnv(spec, grants, { home, tmp: '/tmp', pathDirs });
  const options: string[] = [
    // DESIGN §5: all namespaces; the network only with an unscoped net:connect.
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    ...(grants.net === 'any' ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    BUBBLEWRAP_BASE_PROFILE.hostname,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  for (const m of mounts) {
    if (m.kind === 'tmpfs')
      options.push(...(ctx.tmpfsSizeBytes === undefined ? [] : ['--size', String(ctx.tmpfsSizeBytes)]), '--tmpfs', m.dest);
    else if (m.kind === 'symlink') options.push('--symlink', m.target, m.dest);
    else if (m.kind === 'ro-bind-data') options.push('--perms', '0644', '--ro-bind-data', String(m.fd), m.dest);
    else options.push(`--${m.kind}`, m.src, m.dest);
  }
  // The empty folders that hide directories are read-only once everything is mounted inside them
  // (bwrap --remount-ro acts on that mount only): a write there fails as it would on the real one.
  for (const m of mounts) if (m.kind === 'tmpfs' && m.readOnly === true) options.push('--remount-ro', m.dest);
  options.push('--clearenv');
  for (const [k, v] of Object.entries(env)) options.push('--setenv', k, v);
  options.push('--chdir', spec.cwd ?? spec.capabilityDir);
  const command: string[] = [];
  if (grants.net === 'scoped') {
    command.push(ctx.nodePath ?? process.execPath, '-e', FORWARDER_SOURCE, '--', `${runDir}/net/proxy.sock`);
  }
  command.push(spec.command, ...spec.args);
  return { options, command, grants, env };
}

/** NUL-separated, as `bwrap --args FD` reads them. */
function encodeBwrapArgs(args: readonly string[]): Buffer {
  for (const a of args) {
    if (a.includes('\0'))
      throw new AdcapError('E_USAGE', 'A sandbox argument contains a NUL byte, which cannot be passed to a program; remove it.');
  }
  return Buffer.from(args.map((a) => `${a}\0`).join(''), 'utf8');
}

/**
 * O_TMPFILE (Linux 3.11+): open a directory with it and get a file that has no name in it, never
 * had one, and goes away with its last descriptor. Not in fs.constants; the value of the common
 * architectures (__O_TMPFILE | O_DIRECTORY). Where it means something else or the file system
 * does not support it, the open fails and the data goes through a private folder instead.
 */
const O_TMPFILE = 0o20000000 | fs.constants.O_DIRECTORY;
/** statfs f_type of tmpfs (linux/magic.h TMPFS_MAGIC). */
const TMPFS_MAGIC = 0x01021994;
/** Whether O_TMPFILE worked in this process (undefined: not tried yet). */
let unnamedFilesWork: boolean | undefined;
/** The folder unnamed files are opened in, chosen once per process (see unnamedFileFolder). */
let unnamedFolder: string | undefined;

/**
 * Where a run's unnamed files go: /dev/shm when it is a tmpfs (memory: creating and dropping an
 * unnamed file there touches no disk journal, where on ext4 each one joins a journal transaction and
 * waits behind other processes' writes: measured 1-6 ms a run on a busy machine), else the
 * temporary folder. Either way the files have no name and mode 0600; only this process and bwrap
 * hold them.
 */
function unnamedFileFolder(): string {
  if (unnamedFolder === undefined) {
    let shm = false;
    try {
      shm = process.platform === 'linux' && fs.statfsSync('/dev/shm').type === TMPFS_MAGIC && fs.statSync('/dev/shm').isDirectory();
    } catch {
      // no /dev/shm here (a minimal container): the temporary folder
    }
    unnamedFolder = shm ? '/dev/shm' : os.tmpdir();
  }
  return unnamedFolder;
}

/**
 * The descriptors bwrap reads its data from (arguments, seccomp filters, passwd and group): each
 * a private file holding the bytes at offset 0. Unnamed files (O_TMPFILE) in /dev/shm or the
 * temporary folder (unnamedFileFolder) where the file system has them: nothing is created in or
 * removed from a folder for a run. Elsewhere, a file in a private folder (mode 0700, made once per
 * run) that is unlinked as soon as it is open. close() closes every descriptor and removes that folder.
 */
class DataDescriptors {
  readonly #fds: number[] = [];
  #dir: string | null = null;

  /** A read-only descriptor of a private file holding `data`, at offset 0. */
  open(data: Buffer): number {
    if (unnamedFilesWork !== false) {
      let fd: number | undefined;
      try {
        try {
          fd = fs.openSync(unnamedFileFolder(), O_TMPFILE | fs.constants.O_RDWR, 0o600);
        } catch (error) {
          // /dev/shm refused (full, read-only, no O_TMPFILE): the temporary folder from now on.
          if (unnamedFolder === os.tmpdir()) throw error;
          unnamedFolder = os.tmpdir();
          fd = fs.openSync(unnamedFolder, O_TMPFILE | fs.constants.O_RDWR, 0o600);
        }
        this.#fds.push(fd);
        // Written at position 0 (pwrite): the offset stays 0, where bwrap starts reading.
        if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error('O_TMPFILE opened no regular file'), { code: 'EOPNOTSUPP' });
        const written = fs.writeSync(fd, data, 0, data.length, 0);
        if (written !== data.length) {
          throw new AdcapError(
            'E_IO',
            `Writing the sandbox's settings for bwrap stopped after ${written} of ${data.length} bytes; try again.`,
          );
        }
        unnamedFilesWork = true;
        return fd;
      } catch (error) {
        // Only "not supported here" switches to the folder; anything else is this run's failure.
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (unnamedFilesWork === true || !['EOPNOTSUPP', 'ENOTSUP', 'EISDIR', 'EINVAL'].includes(code)) throw error;
        unnamedFilesWork = false;
      }
    }
    this.#dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'adcap-bwrap-'));
    const file = path.join(this.#dir, String(this.#fds.length));
    fs.writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
    const fd = fs.openSync(file, 'r');
    this.#fds.push(fd);
    fs.unlinkSync(file);
    return fd;
  }

  async close(): Promise<void> {
    for (const fd of this.#fds.splice(0)) {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
    }
    const dir = this.#dir;
    this.#dir = null;
    if (dir !== null) await removeTree(dir);
  }
}

/** O_CLOEXEC as /proc/<pid>/fdinfo prints it (octal flags). */
const O_CLOEXEC = 0o2000000;
/** What inheritedDescriptors reads each /proc/self/fdinfo file into. */
const fdinfoBuffer = Buffer.alloc(256);
/** More inherited descriptors than this and the run is refused (each one costs a stacked filter). */
const MAX_INHERITED_DESCRIPTORS = 512;

/**
 * Descriptors above stderr that this process holds without close-on-exec.
 * Node opens everything close-on-exec, so these came from whoever started the host (a shell's
 * `100<>file`, a parent's pipe, a native module): every child would inherit them, bwrap passes
 * them on, and a tool could read and write the files behind them through /proc/self/fd.
 */
export function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      // The flags line comes second, after "pos:" (at most 20 digits): the first bytes are enough,
      // read into one buffer (readFileSync would allocate 64 KiB for each, /proc reports no size).
      const file = fs.openSync(`/proc/self/fdinfo/${name}`, 'r');
      try {
        info = fdinfoBuffer.toString('latin1', 0, fs.readSync(file, fdinfoBuffer, 0, fdinfoBuffer.length, null));
      } finally {
        fs.closeSync(file);
      }
    } catch {
      continue; // closed meanwhile (e.g. the directory listing's own descriptor)
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags === undefined || (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

const availability = new Map<string, Promise<boolean>>();
/** The seccomp filter of this machine's architecture (the same bytes for every run). */
let hostFilter: Buffer | undefined;

/** Options of the bubblewrap sandbox (Linux). */
export interface BubblewrapOptions {
  /** Path of bwrap; default: found on PATH, else /usr/bin/bwrap. */
  bwrapPath?: string;
  /** The node binary that runs the scoped-network forwarder; default process.execPath. */
  nodePath?: string;
  /**
   * Resource limits of every run (limits.ts): DEFAULT_RESOURCE_LIMITS with these
   * values replaced, or false for none. The private /tmp and HOME are capped at memoryBytes too.
   */
  limits?: Partial<ResourceLimits> | false;
  /**
   * A file where a probe that succeeded is remembered with what it depended on (see
   * probeFacts): a later process on the same machine, kernel, bwrap and confinement skips the
   * probe. Default: none, every process probes once.
   */
  probeRecord?: string;
}

/**
 * What a successful probe depends on: the bwrap program (path, real path, inode, size, times,
 * mode), the kernel and this boot, the user, the user-namespace switches of the kernel and of
 * AppArmor, and this process's own confinement (its namespaces, seccomp mode, no_new_privs,
 * capabilities, LSM label), so a container or another session never reuses a host's result.
 * A digest of them, or null when bwrap cannot be read.
 */
export function probeFacts(bwrapPath: string): string | null {
  const text = (file: string): string => {
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      return '-';
    }
  };
  const link = (file: string): string => {
    try {
      return fs.readlinkSync(file);
    } catch {
      return '-';
    }
  };
  let program: string;
  try {
    const st = fs.statSync(bwrapPath, { bigint: true });
    program = [bwrapPath, fs.realpathSync(bwrapPath), st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, st.mode, st.uid].join(':');
  } catch {
    return null;
  }
  const status = text('/proc/self/status')
    .split('\n')
    .filter((line) => /^(Seccomp|NoNewPrivs|CapEff|CapBnd|CapPrm):/.test(line))
    .join(';');
  const facts = [
    program,
    os.release(),
    text('/proc/sys/kernel/random/boot_id'),
    `${process.getuid?.() ?? -1}:${process.getgid?.() ?? -1}`,
    text('/proc/sys/kernel/unprivileged_userns_clone'),
    text('/proc/sys/user/max_user_namespaces'),
    text('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    ...['user', 'mnt', 'pid', 'net', 'cgroup'].map((ns) => link(`/proc/self/ns/${ns}`)),
    status,
    text('/proc/self/attr/current'),
  ];
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

/** Whether `record` remembers a successful probe under exactly these facts. */
function probeRemembered(record: string, facts: string): boolean {
  try {
    const value = JSON.parse(fs.readFileSync(record, 'utf8')) as { ok?: unknown; facts?: unknown };
    return value.ok === true && value.facts === facts;
  } catch {
    return false;
  }
}

/** The Linux sandbox: tools run under bubblewrap with only what their grants allow (DESIGN §5). */
export class BubblewrapSandbox implements Sandbox {
  /** Always `'bubblewrap'`, as tool results report it. */
  readonly name = 'bubblewrap' as const;
  /**
   * No run folder: a run's data reaches bwrap through unnamed files, and the one folder a run may
   * need (a scoped network's socket) is made with mkdtemp in `spec.tmpDir` and removed by cleanup().
   */
  readonly needsTmpDir = false;
  /** The bwrap program used (the option, else `bwrap` on PATH, else /usr/bin/bwrap). */
  readonly bwrapPath: string;
  readonly #nodePath: string;
  readonly #limits: ResourceLimits | null;
  readonly #probeRecord: string | undefined;

  constructor(options: BubblewrapOptions = {}) {
    this.bwrapPath = options.bwrapPath ?? findProgram('bwrap', process.env.PATH ?? SAFE_PATH) ?? '/usr/bin/bwrap';
    this.#nodePath = options.nodePath ?? process.execPath;
    this.#limits = options.limits === false ? null : { ...DEFAULT_RESOURCE_LIMITS, ...options.limits };
    this.#probeRecord = options.probeRecord;
  }

  /** The limits every run gets, or null when the host turned them off. */
  get limits(): Readonly<ResourceLimits> | null {
    return this.#limits;
  }

  /** Runs a trivial sandboxed command once per bwrap path (user namespaces may be disabled by the kernel or an LSM). */
  available(): Promise<boolean> {
    let cached = availability.get(this.bwrapPath);
    if (cached === undefined) {
      cached = this.#probe();
      availability.set(this.bwrapPath, cached);
    }
    return cached;
  }

  async #probe(): Promise<boolean> {
    if (process.platform !== 'linux' || !fs.existsSync(this.bwrapPath)) return false;
    // Only a success is remembered, under everything it depended on; a failure is probed again.
    const record = this.#probeRecord;
    const facts = record === undefined ? null : probeFacts(this.bwrapPath);
    if (record !== undefined && facts !== null && probeRemembered(record, facts)) return true;
    const ok = await this.#runProbe();
    if (ok && record !== undefined && facts !== null) {
      await writeJsonAtomic(record, { ok: true, facts, bwrap: this.bwrapPath, at: new Date().toISOString() }).catch(() => undefined);
    }
    return ok;
  }

  #runProbe(): Promise<boolean> {
    const truePath = findProgram('true', SAFE_PATH);
    if (truePath === null) return Promise.resolve(false);
    const args = [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      truePath,
    ];
    return new Promise((resolve) => {
      execFile(this.bwrapPath, args, { timeout: 10_000 }, (error) => resolve(error === null));
    });
  }

  /** The bwrap command line for one run; E_SANDBOX_UNAVAILABLE when bubblewrap does not work here. */
  async wrap(spec: SandboxSpec): Promise<OwnedWrappedCommand> {
    if (!(await this.available())) {
      throw new AdcapError(
        'E_SANDBOX_UNAVAILABLE',
        `bubblewrap (${this.bwrapPath}) cannot create a sandbox on this machine; ` +
          'install bubblewrap 0.8 or newer and allow unprivileged user namespaces.',
      );
    }
    const seccomp = (hostFilter ??= seccompFilterForHost());
    const grants = interpretGrants(spec.grants, spec.home);
    const data = new DataDescriptors();
    // A folder only for the scoped network's proxy socket, bound into the sandbox.
    let netRunDir: string | null = null;
    let proxy: NetProxy | null = null;
    // Resource limits: a cgroup (or systemd scope) entered before bwrap starts, and rlimits set
    // by the entering shell or by prlimit inside the sandbox. Set up while the run is planned.
    const limiting: Promise<LimitedRun | null> = this.#limits === null ? Promise.resolve(null) : limitRun(this.#limits);
    limiting.catch(() => undefined); // its failure is this run's, reported where it is awaited
    let cleaned = false;
    const cleanup = async (): Promise<void> => {
      if (cleaned) return;
      cleaned = true;
      await data.close();
      await proxy?.close();
      // Whatever failed, the run's cgroups, once made, are removed.
      await (await limiting.catch(() => null))?.cleanup();
      if (netRunDir !== null) await removeTree(netRunDir);
    };
    try {
      const ctx: PlanContext = {
        nodePath: this.#nodePath,
        ...(this.#limits === null ? {} : { tmpfsSizeBytes: this.#limits.memoryBytes }),
      };
      if (grants.net === 'scoped') {
        await fsp.mkdir(spec.tmpDir, { recursive: true });
        netRunDir = await fsp.mkdtemp(path.join(spec.tmpDir, 'adcap-bwrap-'));
        ctx.netDir = path.join(netRunDir, 'net');
        await fsp.mkdir(ctx.netDir, { mode: 0o700 });
        proxy = await startNetProxy({ scopes: grants.netScopes, listen: { path: path.join(ctx.netDir, 'proxy.sock') } });
      }
      // Every descriptor this process would pass on besides stdio is closed
      // before the tool starts. Each inherited one is overwritten in the child by a descriptor
      // bwrap consumes and closes: an allow-all seccomp filter loaded with --add-seccomp-fd.
      // (--add-seccomp-fd cannot be mixed with --seccomp, so the real filter goes the same way.)
      const inherited = inheritedDescriptors().filter((fd) => fd > 4);
      if (inherited.length > MAX_INHERITED_DESCRIPTORS) {
        throw new AdcapError(
          'E_SANDBOX_UNAVAILABLE',
          `This program holds ${inherited.length} open descriptors that every program it ` +
            `starts would inherit; the sandbox closes at most ${MAX_INHERITED_DESCRIPTORS}. ` +
            'Start the host without passing descriptors to it.',
        );
      }
      // /etc/passwd and /etc/group of the sandbox come through the first two numbers above 4 that
      // no inherited descriptor takes (bwrap --ro-bind-data reads and closes them).
      const taken = new Set(inherited);
      const free: number[] = [];
      for (let fd = 5; free.length < 2; fd++) if (!taken.has(fd)) free.push(fd);
      const [passwdFd = 5, groupFd = 6] = free;
      const plan = planBubblewrap(spec, { ...ctx, dataFds: { passwd: passwdFd, group: groupFd } });
      const uid = process.getuid?.() ?? 65534;
      const gid = process.getgid?.() ?? 65534;
      const name = uid === 0 ? 'root' : 'user';
      const home = path.resolve(spec.home);
      const closers = inherited.flatMap((fd) => ['--add-seccomp-fd', String(fd)]);
      // Descriptor 3 + i of the child gets byFd[i] ('ignore' keeps a number free).
      const byFd = new Map<number, Buffer>([
        [3, encodeBwrapArgs(['--add-seccomp-fd', '4', ...closers, ...plan.options])],
        [4, seccomp],
        [
          passwdFd,
          Buffer.from(`${name}:x:${uid}:${gid}:${name}:${home}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`),
        ],
        [groupFd, Buffer.from(`${name}:x:${gid}:\nnogroup:x:65534:\n`)],
      ]);
      const allowAll = allowAllSeccompFilter();
      for (const fd of inherited) byFd.set(fd, allowAll);
      const stdioExtra: Array<number | 'ignore'> = [];
      for (let fd = 3; fd <= Math.max(...byFd.keys()); fd++) {
        const bytes = byFd.get(fd);
        stdioExtra.push(bytes === undefined ? 'ignore' : data.open(bytes));
      }
      const limited = await limiting;
      const hostPrefix = limited?.hostPrefix ?? [];
      const bwrapArgs = ['--args', '3', '--', ...(limited?.sandboxPrefix ?? []), ...plan.command];
      return {
        command: hostPrefix[0] ?? this.bwrapPath,
        args: hostPrefix.length === 0 ? bwrapArgs : [...hostPrefix.slice(1), this.bwrapPath, ...bwrapArgs],
        env: { ...limited?.hostEnv },
        stdioExtra,
        cleanup,
      };
    } catch (error) {
      await cleanup();
      throw error;
    }
  }
}
