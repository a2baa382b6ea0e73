import { execFile } from 'node:child_process';
import semver from 'semver';
import { INTERPRETER_RUNTIMES, interpreterOf, type InterpreterRuntime } from '../format/runtime-table.js';

/** The interpreter versions found, by runtime (the runtime table's interpreters: node, python). */
export type DetectedRuntimes = { [T in InterpreterRuntime]?: string };

interface ProbeOptions {
  /** Environment for the probes (PATH decides which interpreters are found). */
  env?: NodeJS.ProcessEnv;
  /** Fallback Node.js when no `node` is on PATH: the one running this process. */
  execPath?: string;
  timeoutMs?: number;
}

let cached: Promise<DetectedRuntimes> | undefined;

/**
 * The interpreter versions on this computer, for spec §11 `compat.runtimes`: `<program> --version`
 * for each interpreter of the runtime table (`node`, else the running one; `python3`). Missing interpreters are
 * simply absent. Cached for the life of the process; pass `refresh` after installing one.
 */
export function detectRuntimes(options: { refresh?: boolean } = {}): Promise<DetectedRuntimes> {
  if (cached === undefined || options.refresh === true) cached = probeRuntimes();
  return cached;
}

/** Uncached probe, with the environment injectable for tests. */
export async function probeRuntimes(options: ProbeOptions = {}): Promise<DetectedRuntimes> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 5000;
  // Each interpreter's program on PATH; one the SDK runs on (node) falls back to this process.
  const found = await Promise.all(
    INTERPRETER_RUNTIMES.map((runtime) => {
      const kind = interpreterOf(runtime);
      return versionOf(kind.program, env, timeoutMs).then(async (version) =>
        version !== undefined || !kind.self ? version : await versionOf(options.execPath ?? process.execPath, env, timeoutMs),
      );
    }),
  );
  const result: DetectedRuntimes = {};
  INTERPRETER_RUNTIMES.forEach((runtime, i) => {
    const version = found[i];
    if (version !== undefined) result[runtime] = version;
  });
  return result;
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
