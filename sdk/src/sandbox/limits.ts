/**
 * Resource limits for tools under bubblewrap (SECURITY.md "The tool sandbox"): memory,
 * processes (threads included) and file size, so a tool that allocates or forks without end fails
 * its own run instead of the user's machine.
 *
 * What bubblewrap setups use in practice, best first, chosen once per process:
 * 1. a cgroup the host can create below its own (cgroup v2 with the pids and memory controllers
 *    delegated, or cgroup v1 hierarchies it may write, e.g. as root): `pids.max` and the memory
 *    limit hold for every process in the run, whoever the user is;
 * 2. `systemd-run --scope` (the user's manager; the system's as root) with TasksMax and MemoryMax;
 * 3. rlimits set by `prlimit` inside the sandbox: RLIMIT_FSIZE always, RLIMIT_NPROC (which the
 *    kernel counts per user namespace, so per run — but does not apply to root) and, without a
 *    memory cgroup, RLIMIT_AS (address space, a cruder bound than resident memory).
 *    With a cgroup (1.), which holds processes and memory, only RLIMIT_FSIZE is left: the host-side
 *    shell that enters the cgroup sets it (`ulimit -f`) before it becomes bwrap, and no prlimit runs
 *    (one exec less per run; the limit is inherited by bwrap and the tool).
 * The manifest format declares no resource needs (spec §7 has only timeoutMs), so the limits
 * are the host's: DEFAULT_RESOURCE_LIMITS unless it passes others to the sandbox.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { findProgram, SAFE_PATH } from './common.js';

/** Limits of one tool run: memory, processes and the size of a file it writes. */
export interface ResourceLimits {
  /** Memory of the whole run in bytes (resident memory with a cgroup, else address space per process). */
  memoryBytes: number;
  /** Processes and threads of the whole run at once. */
  processes: number;
  /** The largest file a tool may write, in bytes (larger writes fail and the writer gets SIGXFSZ). */
  fileSizeBytes: number;
}

const GiB = 1024 * 1024 * 1024;

/** Room for ordinary tools (node alone starts ~11 threads), small enough that a runaway one cannot take the machine down. */
export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = { memoryBytes: 4 * GiB, processes: 512, fileSizeBytes: 4 * GiB };

/** Which mechanism holds each limit on this machine for this user. */
export interface LimitEnforcement {
  /** Memory: a cgroup of the run, a systemd scope (MemoryMax), RLIMIT_AS per process, or nothing here. */
  memory: 'cgroup' | 'systemd-run' | 'rlimit-as' | 'none';
  /** Processes and threads: a cgroup (pids.max), a systemd scope (TasksMax), RLIMIT_NPROC, or nothing here. */
  processes: 'cgroup' | 'systemd-run' | 'rlimit-nproc' | 'none';
  /** The size of a file written: RLIMIT_FSIZE, or nothing here. */
  fileSize: 'rlimit-fsize' | 'none';
}

/** What one run needs: a host-side wrapper before bwrap, a prefix inside the sandbox, and a cleanup. */
export interface LimitedRun {
  /** Prepended to the bwrap command line (runs on the host), or empty. */
  hostPrefix: string[];
  /** Environment the host prefix needs (systemd-run: the user's bus), merged into bwrap's otherwise empty one. */
  hostEnv: Record<string, string>;
  /** Prepended to the command inside the sandbox (prlimit …), or empty. */
  sandboxPrefix: string[];
  cleanup(): Promise<void>;
}

type CgroupSetup = { kind: 'v1'; dirs: { pids: string; memory: string } } | { kind: 'v2'; dir: string };

interface Mechanisms {
  cgroup: CgroupSetup | null;
  systemdRun: string[] | null;
  prlimit: string | null;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/**
 * The host wrapper that sets RLIMIT_FSIZE (`ulimit -f`, in 512-byte blocks in POSIX sh), moves
 * itself into the run's cgroups, then becomes bwrap (so nothing forks outside).
 *
 * It writes 0 (the writing thread; the shell has one, and `echo` is a builtin of every /bin/sh:
 * dash, bash, busybox) to the cgroup v1 `tasks` files: the kernel moves a thread that moves itself
 * without the write lock on every thread group of the machine that a `cgroup.procs` write takes,
 * which waits for an RCU grace period (measured: 11–30 ms a write while tools start, +11–15 ms a
 * tool call against +2–3 ms for `tasks`). Under cgroup v2 the file is `cgroup.procs` (0: the
 * writer's process), as v2 moves no single thread between domain cgroups.
 */
const ENTER_CGROUP =
  'ulimit -f "$1" || { echo "arcotheon: cannot set the file size limit" >&2; exit 125; }; shift; ' +
  'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do echo 0 > "$1" || { echo "arcotheon: cannot enter the run\'s cgroup $1" >&2; exit 125; }; ' +
  'shift; done; shift; exec "$@"';

/** RLIMIT_FSIZE in `ulimit -f` blocks of 512 bytes (a limit between two blocks is rounded down). */
const fsizeBlocks = (bytes: number): string => String(Math.floor(bytes / 512));

/** This process's cgroup parents where run cgroups can be created, or null. */
function cgroupParents(): CgroupSetup | null {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return null;
  }
  const v1: Record<string, string> = {};
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (m === null) continue;
    const [, , controllers = '', where = ''] = m;
    if (controllers === '') v2 = where;
    for (const c of controllers.split(',')) if (c === 'pids' || c === 'memory') v1[c] = path.join('/sys/fs/cgroup', c, where);
  }
  if (v1['pids'] !== undefined && v1['memory'] !== undefined) return { kind: 'v1', dirs: { pids: v1['pids'], memory: v1['memory'] } };
  if (v2 !== null && fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) return { kind: 'v2', dir: path.join('/sys/fs/cgroup', v2) };
  return null;
}

/** Writes a cgroup file (a limit, cgroup.kill); an `optional` one may be absent (no swap accounting, cgroup v1 has no cgroup.kill). */
function writeCgroupFile(file: string, value: string, optional = false): void {
  try {
    fs.writeFileSync(file, value);
  } catch (error) {
    if (!optional) throw error;
  }
}

/**
 * Creates one run's cgroups and writes the limits; returns the files to enter them by (see
 * ENTER_CGROUP: v1 `tasks`, v2 `cgroup.procs`) and the
 * directories. With synchronous calls: the cgroup file system lives in memory and each call
 * returns at once, where a promise would cost a thread-pool round trip each (five to eleven of
 * them before every run).
 */
async function createRunCgroups(setup: CgroupSetup, limits: ResourceLimits): Promise<{ enter: string[]; dirs: string[] }> {
  const name = `adcap-run-${randomBytes(6).toString('hex')}`;
  const made: string[] = [];
  try {
    if (setup.kind === 'v1') {
      const pids = path.join(setup.dirs.pids, name);
      const memory = path.join(setup.dirs.memory, name);
      fs.mkdirSync(pids);
      made.push(pids);
      writeCgroupFile(path.join(pids, 'pids.max'), String(limits.processes));
      fs.mkdirSync(memory);
      made.push(memory);
      writeCgroupFile(path.join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      // With swap accounting, swap counts too (the limit is memory + swap); without it the file is absent.
      writeCgroupFile(path.join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes), true);
      return { enter: [path.join(pids, 'tasks'), path.join(memory, 'tasks')], dirs: made };
    }
    const dir = path.join(setup.dir, name);
    fs.mkdirSync(dir);
    made.push(dir);
    writeCgroupFile(path.join(dir, 'pids.max'), String(limits.processes));
    writeCgroupFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
    writeCgroupFile(path.join(dir, 'memory.swap.max'), '0', true);
    return { enter: [path.join(dir, 'cgroup.procs')], dirs: made };
  } catch (error) {
    await removeCgroups(made);
    throw error;
  }
}

/** Kills whatever is left in the run's cgroups and removes them (a cgroup can be removed only when empty). */
async function removeCgroups(dirs: readonly string[]): Promise<void> {
  for (const dir of [...dirs].reverse()) {
    // The run's last processes are reaped by the host's init moments after bwrap exits: retry
    // quickly at first (1, 2, 4 … ms, at most 50 ms apart, about 2 s in all), killing stragglers.
    for (let attempt = 0, waited = 0; ; attempt++) {
      // On the thread pool, unlike the calls of createRunCgroups: removing a memory cgroup can keep
      // the kernel 7–13 ms (4 of 10 runs of an MCP server), which would stall the next call.
      try {
        await fsp.rmdir(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || waited >= 2_000) break;
      }
      writeCgroupFile(path.join(dir, 'cgroup.kill'), '1', true); // v2
      let procs = '';
      try {
        procs = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8');
      } catch {
        // gone meanwhile
      }
      const pids = procs.split('\n').filter(Boolean).map(Number);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      const delay = Math.min(2 ** attempt, 50);
      waited += delay;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What systemd-run needs to reach the user's manager, and nothing else of the host's environment. */
function busEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Whether `systemd-run … --scope` works here and hands inherited descriptors on (bwrap reads its
 * arguments from fd 3): runs `sh -c '[ -e /proc/self/fd/3 ]'` in a scope with fd 3 open.
 */
function systemdRunWorks(base: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    let fd: number;
    try {
      fd = fs.openSync('/dev/null', 'r');
    } catch {
      resolve(false);
      return;
    }
    const child = spawn(
      base[0] ?? 'systemd-run',
      [...base.slice(1), '-p', 'TasksMax=16', '--', '/bin/sh', '-c', '[ -e /proc/self/fd/3 ]'],
      {
        env: busEnv(),
        stdio: ['ignore', 'ignore', 'ignore', fd],
      },
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      fs.closeSync(fd);
      resolve(ok);
    };
    child.once('error', () => done(false));
    child.once('exit', (code) => done(code === 0));
  });
}

/**
 * Creates one run's cgroups where `setup` says and checks that they hold the limits (cgroup v2:
 * the pids and memory controllers are enabled for our children, i.e. delegated); null, with
 * whatever was made removed, when they cannot be made or do not hold.
 */
async function tryRunCgroups(setup: CgroupSetup, limits: ResourceLimits): Promise<{ enter: string[]; dirs: string[] } | null> {
  let run: { enter: string[]; dirs: string[] };
  try {
    run = await createRunCgroups(setup, limits);
  } catch {
    return null;
  }
  if (setup.kind === 'v2') {
    const controllers = await fsp.readFile(path.join(path.dirname(run.enter[0] ?? ''), 'cgroup.controllers'), 'utf8').catch(() => '');
    if (!/\bpids\b/.test(controllers) || !/\bmemory\b/.test(controllers)) {
      await removeCgroups(run.dirs);
      return null;
    }
  }
  return run;
}

let parents: { setup: CgroupSetup | null } | undefined;
/** This process's cgroup parents, read once (a process does not move between cgroups on its own). */
const cgroupParentsOnce = (): CgroupSetup | null => (parents ??= { setup: cgroupParents() }).setup;

/**
 * Whether run cgroups work for this process, once a run or the detection found out (undefined
 * before): the first run's own cgroups are the test, instead of a probe made and removed first.
 */
let runCgroupsWork: boolean | undefined;

let detected: Promise<Mechanisms> | null = null;

/** Finds, once per process, which mechanisms work here (each one tried for real, then undone). */
function detectMechanisms(): Promise<Mechanisms> {
  detected ??= (async (): Promise<Mechanisms> => {
    const prlimit = findProgram('prlimit', SAFE_PATH);
    let cgroup = runCgroupsWork === false ? null : cgroupParentsOnce();
    if (cgroup !== null && runCgroupsWork !== true) {
      const probe = await tryRunCgroups(cgroup, { ...DEFAULT_RESOURCE_LIMITS });
      if (probe === null) cgroup = null;
      else await removeCgroups(probe.dirs);
    }
    let systemdRun: string[] | null = null;
    const systemd = cgroup === null ? findProgram('systemd-run', SAFE_PATH) : null;
    if (systemd !== null) {
      const base = [systemd, ...(isRoot() ? [] : ['--user']), '--scope', '--quiet', '--collect'];
      if (await systemdRunWorks(base)) systemdRun = base;
    }
    return { cgroup, systemdRun, prlimit };
  })();
  return detected;
}

/** Which mechanism holds each limit here (for diagnostics, SECURITY.md and tests). */
export async function limitEnforcement(): Promise<LimitEnforcement> {
  const m = await detectMechanisms();
  const box = m.cgroup !== null ? 'cgroup' : m.systemdRun !== null ? 'systemd-run' : null;
  return {
    memory: box ?? (m.prlimit !== null ? 'rlimit-as' : 'none'),
    processes: box ?? (m.prlimit !== null && !isRoot() ? 'rlimit-nproc' : 'none'),
    fileSize: m.prlimit !== null || m.cgroup !== null ? 'rlimit-fsize' : 'none',
  };
}

/** Sets up the limits of one run. */
export async function limitRun(limits: ResourceLimits): Promise<LimitedRun> {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`resource limit ${name} must be a positive integer, not ${String(value)}`);
  }
  // A cgroup first, as detectMechanisms would choose: this run's own cgroups are the test of
  // whether they work (a probe cgroup made and removed first cost every `adcap run` a few
  // cgroupfs round trips). Only when they cannot be made are the other mechanisms looked for.
  const cgroupParent = runCgroupsWork === false ? null : cgroupParentsOnce();
  if (cgroupParent !== null && detected === null) {
    // Once they worked here, a failure is this run's error, as after detectMechanisms chose them.
    if (runCgroupsWork === true) return cgroupLimited(await createRunCgroups(cgroupParent, limits), limits);
    const run = await tryRunCgroups(cgroupParent, limits);
    runCgroupsWork = run !== null;
    if (run !== null) return cgroupLimited(run, limits);
  }
  const m = await detectMechanisms();
  if (m.cgroup !== null) return cgroupLimited(await createRunCgroups(m.cgroup, limits), limits);
  let hostPrefix: string[] = [];
  let hostEnv: Record<string, string> = {};
  let memoryHeld = false;
  if (m.systemdRun !== null) {
    hostPrefix = [
      ...m.systemdRun,
      '-p',
      `TasksMax=${limits.processes}`,
      '-p',
      `MemoryMax=${limits.memoryBytes}`,
      '-p',
      'MemorySwapMax=0',
      '--',
    ];
    hostEnv = busEnv();
    memoryHeld = true;
  }
  const sandboxPrefix =
    m.prlimit === null
      ? []
      : [
          m.prlimit,
          `--fsize=${limits.fileSizeBytes}`,
          `--nproc=${limits.processes}`,
          ...(memoryHeld ? [] : [`--as=${limits.memoryBytes}`]),
          '--',
        ];
  return { hostPrefix, hostEnv, sandboxPrefix, cleanup: () => Promise.resolve() };
}

/** A run held by its cgroups: processes and memory are theirs; the file size limit is set by the entering shell. */
function cgroupLimited(run: { enter: string[]; dirs: string[] }, limits: ResourceLimits): LimitedRun {
  return {
    hostPrefix: ['/bin/sh', '-c', ENTER_CGROUP, 'adcap-enter-cgroup', fsizeBlocks(limits.fileSizeBytes), ...run.enter, '--'],
    hostEnv: {},
    sandboxPrefix: [],
    cleanup: () => removeInBackground(run.dirs),
  };
}

/** Run cgroups whose removal is still under way (see removeInBackground). */
const removals = new Map<Promise<void>, readonly string[]>();

/**
 * A run's cgroups are removed after its result is returned: the removal waits
 * for the kernel to reap the run's last processes, which is no part of the tool call. At exit,
 * whatever is still pending is removed synchronously (best effort: an empty cgroup goes at once).
 */
function removeInBackground(dirs: readonly string[]): Promise<void> {
  if (dirs.length === 0) return Promise.resolve();
  if (removals.size === 0 && !exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const pending of removals.values()) {
        for (const dir of [...pending].reverse()) {
          try {
            fs.rmdirSync(dir);
          } catch {
            // still busy or gone: nothing more can be done synchronously
          }
        }
      }
    });
  }
  const removal: Promise<void> = removeCgroups(dirs)
    .catch(() => undefined)
    .finally(() => removals.delete(removal));
  removals.set(removal, dirs);
  return Promise.resolve();
}
let exitHook = false;

/** Waits until the cgroups of finished runs are removed (tests; a host that wants a clean tree before it exits). */
export async function settleRunCgroups(): Promise<void> {
  while (removals.size > 0) await Promise.all(removals.keys());
}
