import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import semver from 'semver';
import { INTERPRETER_RUNTIMES, interpreterOf, type InterpreterRuntime } from '../format/runtime-table.js';
import { findProgram, SAFE_PATH } from '../sandbox/common.js';
import { writeJsonAtomic } from '../util/fs-atomic.js';

/** The interpreter versions found, by runtime (the runtime table's interpreters: node, python). */
export type DetectedRuntimes = { [T in InterpreterRuntime]?: string };

interface ProbeOptions {
  /** Environment for the probes (PATH decides which interpreters are found). */
  env?: NodeJS.ProcessEnv;
  /** Fallback Node.js when no `node` is on PATH: the one running this process. */
  execPath?: string;
  timeoutMs?: number;
  /**
   * A file where each version found is remembered with the program it came from (see
   * programFacts), so a later process skips the child process while that program is unchanged.
   * Default: none, every process asks.
   */
  record?: string;
}

/** One probe per process and record (none: ''). */
const cached = new Map<string, Promise<DetectedRuntimes>>();

/**
 * The interpreter versions on this computer, for spec §11 `compat.runtimes`: `<program> --version`
 * for each interpreter of the runtime table (`node`, else the running one; `python3`). Missing interpreters are
 * simply absent. Cached for the life of the process; pass `refresh` after installing one. With
 * `record` (a home's runtimes-probe.json), answers are kept across processes too, each under the
 * identity of the program that gave it.
 */
export function detectRuntimes(options: { refresh?: boolean; record?: string } = {}): Promise<DetectedRuntimes> {
  const key = options.record ?? '';
  let probe = cached.get(key);
  if (probe === undefined || options.refresh === true) {
    probe = probeRuntimes(options.record === undefined ? {} : { record: options.record });
    cached.set(key, probe);
  }
  return probe;
}

/** Uncached probe (but for `record`), with the environment injectable for tests. */
export async function probeRuntimes(options: ProbeOptions = {}): Promise<DetectedRuntimes> {
  const env = options.env ?? process.env;
  // Generous: a version manager's shim (pyenv, asdf) is a script that starts its own interpreter,
  // 2-3 s here on a busy machine, and an answer that comes too late reads as "none is installed".
  const timeoutMs = options.timeoutMs ?? 20_000;
  const remembered = options.record === undefined ? {} : readRecord(options.record);
  const learned: ProbeRecord['runtimes'] = {};
  /** The version `program` reports: remembered under the same facts, else asked (and then remembered). */
  const ask = async (runtime: InterpreterRuntime, program: string): Promise<string | undefined> => {
    const facts = options.record === undefined ? null : programFacts(program);
    const known = remembered[runtime];
    if (facts !== null && known?.facts === facts) return known.version;
    const version = await versionOf(program, env, timeoutMs);
    // Only an answer is remembered; a program that failed is asked again next time.
    if (facts !== null && version !== undefined) learned[runtime] = { facts, program, version };
    return version;
  };
  // Each interpreter's program on PATH; one the SDK runs on (node) falls back to this process.
  const found = await Promise.all(
    INTERPRETER_RUNTIMES.map(async (runtime) => {
      const kind = interpreterOf(runtime);
      // Found here as the child process would find it, so the record is keyed by the very file
      // that answers; where this lookup finds nothing (no PATH, another platform's names), the
      // name is asked as before and nothing is remembered.
      const onPath = findProgram(kind.program, env.PATH ?? SAFE_PATH);
      const version = onPath === null ? await versionOf(kind.program, env, timeoutMs) : await ask(runtime, onPath);
      return version !== undefined || !kind.self ? version : await ask(runtime, options.execPath ?? process.execPath);
    }),
  );
  const result: DetectedRuntimes = {};
  INTERPRETER_RUNTIMES.forEach((runtime, i) => {
    const version = found[i];
    if (version !== undefined) result[runtime] = version;
  });
  // Best effort: a record that cannot be written costs the child processes again next time. Kept
  // only in a home that still exists: a probe that outlived its home (removed meanwhile) makes none.
  if (options.record !== undefined && Object.keys(learned).length > 0 && existsSync(dirname(options.record))) {
    await writeJsonAtomic(options.record, { format: RECORD_FORMAT, runtimes: { ...remembered, ...learned } } satisfies ProbeRecord).catch(
      () => undefined,
    );
  }
  return result;
}

const RECORD_FORMAT = 1;

/** `home/runtimes-probe.json`: per runtime, the version a program reported and what that program was. */
interface ProbeRecord {
  format: typeof RECORD_FORMAT;
  runtimes: { [T in InterpreterRuntime]?: { facts: string; program: string; version: string } };
}

function readRecord(file: string): ProbeRecord['runtimes'] {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProbeRecord> | null;
    if (value?.format !== RECORD_FORMAT || typeof value.runtimes !== 'object' || value.runtimes === null) return {};
    const runtimes: ProbeRecord['runtimes'] = {};
    for (const runtime of INTERPRETER_RUNTIMES) {
      const entry = value.runtimes[runtime];
      if (typeof entry?.facts === 'string' && typeof entry.program === 'string' && typeof entry.version === 'string') {
        runtimes[runtime] = { facts: entry.facts, program: entry.program, version: entry.version };
      }
    }
    return runtimes;
  } catch {
    return {};
  }
}

/**
 * What a remembered `--version` answer depends on: the program as found (its path and real path)
 * and the file it resolves to (device, inode, size, modification and change times, mode), so a
 * program replaced, upgraded, relinked or touched is asked again. A digest of them, or null when
 * the program cannot be read or is a script: a `#!` program (a pyenv or asdf shim) answers by its
 * environment (PYENV_VERSION, .python-version), which its file does not show, so it is always asked.
 */
function programFacts(program: string): string | null {
  try {
    const real = realpathSync(program);
    const st = statSync(real, { bigint: true });
    if (!st.isFile()) return null;
    const head = Buffer.alloc(2);
    const fd = openSync(real, 'r');
    try {
      if (readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!') return null;
    } finally {
      closeSync(fd);
    }
    const facts = [program, real, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, st.mode].join(':');
    return createHash('sha256').update(facts).digest('hex');
  } catch {
    return null;
  }
}

function versionOf(command: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { env, timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve(undefined);
        return;
      }
      // `v22.23.0` for node; `Python 3.11.2` on stdout (stderr before Python 3.4).
      resolve(parseVersion(`${String(stdout)} ${String(stderr)}`));
    });
  });
}

/** Pulls a semver version out of a `--version` line (`Python 3.12` becomes `3.12.0`). */
export function parseVersion(text: string): string | undefined {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (match === null) return undefined;
  return semver.valid(`${match[1]}.${match[2]}.${match[3] ?? '0'}`) ?? undefined;
}
