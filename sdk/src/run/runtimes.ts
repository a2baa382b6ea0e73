/**
 * Runtimes (spec §7): node and python run `entry` with the host's interpreter, honouring
 * `runtime.version`; binary runs `entries[platform]`; wasm, mcp and http are reserved in 1.0 and
 * refused with a clear message (a host that does not implement a runtime MUST refuse the tool).
 *
 * Which node: the one running the SDK (`process.execPath`), because its version is known without
 * a probe and it cannot be swapped by whatever is first on PATH. Inside Electron `process.execPath`
 * is the app binary, not node, so there (and only there) the `node` on PATH is used. A host may
 * name its own interpreters with the `interpreters` option. Python is `python3` on PATH. What each
 * runtime is, and how an interpreter is found, asked and started, is the runtime table's
 * (format/runtime-table.ts); this module only acts on it.
 */
import { execFile } from 'node:child_process';
import { statSync, type Stats } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { reasonError } from '../surface-text.js';
import { AdcapError } from '../errors.js';
import type { BinaryToolRuntime, InterpreterToolRuntime, McpToolRuntime, Tool } from '../format/manifest-types.js';
import {
  classifyRuntime,
  interpreterOf,
  isRuntimeType,
  RUNNABLE_RUNTIMES,
  RUNTIME_TABLE,
  type InterpreterRuntime,
  type RunnableRuntime,
} from '../format/runtime-table.js';
import { parseVersion } from '../resolve/runtimes.js';
import { findProgram, SAFE_PATH } from '../sandbox/common.js';
import { hostPlatform } from '../util/platform.js';

/** Absolute paths of the interpreters tools run with, by runtime (`node`, `python`: the runtime table's interpreters). */
export type Interpreters = { [T in InterpreterRuntime]?: string };

interface Launch {
  runtime: RunnableRuntime;
  /** Absolute path of the program (interpreter or binary entry). */
  command: string;
  args: string[];
  /** The interpreter version found (node, python). */
  version?: string;
}

/** "node, python and binary" (`joiner` "or": "node, python or binary"), from the runtime table. */
function runnableList(joiner: 'and' | 'or'): string {
  return `${RUNNABLE_RUNTIMES.slice(0, -1).join(', ')} ${joiner} ${RUNNABLE_RUNTIMES[RUNNABLE_RUNTIMES.length - 1] ?? ''}`;
}

/**
 * Refuses what cannot run here before anything starts: reserved runtime types and `tool.platforms`
 * that exclude this host. Cheap and synchronous, so callers (the MCP listing) can filter with it.
 */
export function runtimeProblem(tool: Tool, platform: string = hostPlatform()): AdcapError | null {
  const type: unknown = tool.runtime.type;
  if (!isRuntimeType(type)) {
    return new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} uses the unknown runtime "${String(type)}"; this host runs ${runnableList('and')} tools.`,
      {
        details: { runtime: type },
      },
    );
  }
  if (RUNTIME_TABLE[type].kind === 'reserved') {
    return new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} uses the "${type}" runtime, which is reserved in .adcap ` +
        `1.0 and not implemented by this host (it runs ${runnableList('and')} tools); ` +
        `ask the publisher for a ${runnableList('or')} version.`,
      { details: { runtime: type } },
    );
  }
  if (tool.platforms !== undefined && !tool.platforms.includes('any') && !tool.platforms.includes(platform)) {
    return new AdcapError(
      'E_INCOMPATIBLE',
      `The tool ${tool.name} runs only on ${tool.platforms.join(', ')}, and this computer is ${platform}.`,
      {
        details: { platforms: tool.platforms, platform },
      },
    );
  }
  return null;
}

const probeCache = new Map<string, Promise<{ command: string; version: string } | undefined>>();

/**
 * Asks an interpreter for its real executable and version. `python3` on PATH is often a shim (pyenv,
 * asdf) that needs the user's home, which the sandbox hides, so the real binary is what runs.
 */
function probeInterpreter(command: string, runtime: InterpreterRuntime): Promise<{ command: string; version: string } | undefined> {
  const key = `${runtime}:${command}`;
  let cached = probeCache.get(key);
  if (cached === undefined) {
    cached = new Promise((resolve) => {
      execFile(command, [...interpreterOf(runtime).probeArgs], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
        const [executable, versionText] = String(stdout).trim().split('\n');
        const version = versionText === undefined ? undefined : parseVersion(versionText);
        resolve(
          error === null && executable !== undefined && path.isAbsolute(executable) && version !== undefined
            ? { command: executable, version }
            : undefined,
        );
      });
    });
    probeCache.set(key, cached);
  }
  return cached;
}

/**
 * The interpreter for `runtime`: the one the host named, else (for node, outside Electron) the
 * process running the SDK, else the table's program on PATH.
 */
async function findInterpreter(
  runtime: InterpreterRuntime,
  given: string | undefined,
): Promise<{ command: string; version: string | undefined }> {
  const kind = interpreterOf(runtime);
  if (given === undefined && kind.self && process.versions.electron === undefined)
    return { command: process.execPath, version: process.versions.node };
  const found = given ?? findProgram(kind.program, process.env.PATH ?? SAFE_PATH);
  if (found === null) return { command: '', version: undefined };
  return (await probeInterpreter(found, runtime)) ?? { command: found, version: undefined };
}

/**
 * The program and arguments that run `tool` from the installed directory `dir`. Throws
 * E_RUNTIME_UNSUPPORTED (reserved type, missing interpreter, `runtime.version` not satisfied,
 * naming the version found), E_INCOMPATIBLE (platform), E_MISSING (entry not on disk).
 */
export async function resolveLaunch(
  tool: Tool,
  dir: string,
  options: { platform?: string; interpreters?: Interpreters } = {},
): Promise<Launch> {
  const platform = options.platform ?? hostPlatform();
  const problem = runtimeProblem(tool, platform);
  if (problem !== null) throw problem;
  const classified = classifyRuntime(tool.runtime);
  switch (classified.kind) {
    case 'binary':
      return launchBinary(tool, classified.runtime, dir, platform);
    case 'interpreter':
      return launchInterpreter(tool, classified.runtime, dir, options.interpreters);
    case 'mcp':
      return launchMcpServer(tool, classified.runtime, dir, platform, options.interpreters);
    case 'reserved':
      throw new Error('unreachable: runtimeProblem refused reserved runtimes');
  }
}

/**
 * docs/spec/mcp-runtime.md: an mcp tool's server starts as a node, python or binary tool would
 * (same interpreter rules); its `args` are appended unfilled (run/mcp-runtime.ts fills them in).
 */
async function launchMcpServer(
  tool: Tool,
  runtime: McpToolRuntime,
  dir: string,
  platform: string,
  interpreters: Interpreters | undefined,
): Promise<Launch> {
  const { args = [], env: _env, ...server } = runtime.server;
  const base =
    'entries' in server
      ? await launchBinary(tool, server, dir, platform)
      : await launchInterpreter(tool, { ...server, type: server.type }, dir, interpreters);
  return { ...base, runtime: runtime.type, args: [...base.args, ...args] };
}

async function launchBinary(tool: Tool, runtime: BinaryToolRuntime, dir: string, platform: string): Promise<Launch> {
  const entries: Record<string, string> = runtime.entries;
  const entry = entries[platform];
  if (entry === undefined) {
    throw new AdcapError(
      'E_INCOMPATIBLE',
      `The tool ${tool.name} ships binaries for ${Object.keys(entries).join(', ')}, but none for this computer (${platform}).`,
      {
        details: { platform },
      },
    );
  }
  const file = await entryFile(dir, entry, tool.name);
  try {
    await access(file, constants.X_OK);
  } catch {
    throw new AdcapError(
      'E_MISSING',
      `The binary ${entry} of tool ${tool.name} is not executable; the package must mark it executable (run "adcap doctor --fix").`,
      {
        details: { path: file },
      },
    );
  }
  return { runtime: runtime.type, command: file, args: [] };
}

async function launchInterpreter(
  tool: Tool,
  runtime: InterpreterToolRuntime,
  dir: string,
  interpreters: Interpreters | undefined,
): Promise<Launch> {
  const entry = runtime.entry;
  const range = typeof runtime.version === 'string' ? runtime.version : undefined;
  const kind = interpreterOf(runtime.type);
  const name = kind.label;
  const found = await findInterpreter(runtime.type, interpreters?.[runtime.type]);
  if (found.command === '' || found.version === undefined) {
    throw new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} needs ${name}${range === undefined ? '' : ` ${range}`}, ` +
        `but no ${kind.program} interpreter was found on this computer; install it and try again.`,
      { details: { runtime: runtime.type, required: range ?? null, found: null } },
    );
  }
  if (range !== undefined && !semver.satisfies(found.version, range, { includePrerelease: true })) {
    throw new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} needs ${name} ${range}, but this computer has ` +
        `${name} ${found.version} (${found.command}); install a matching version.`,
      { details: { runtime: runtime.type, required: range, found: found.version } },
    );
  }
  const file = await entryFile(dir, entry, tool.name);
  return { runtime: runtime.type, command: found.command, args: kind.launchArgs(file), version: found.version };
}

async function entryFile(dir: string, entry: string, toolName: string): Promise<string> {
  const file = path.join(dir, ...entry.split('/'));
  // Synchronous, as the run's other checks of installed files (store/file-fingerprints.ts): one
  // stat on the path of every tool call, where a promise costs a thread-pool round trip.
  let info: Stats | undefined;
  try {
    info = statSync(file);
  } catch {
    info = undefined;
  }
  if (info === undefined || !info.isFile()) {
    throw reasonError('installed-files-changed', { path: file, what: `The entry ${entry} of the tool ${toolName}` });
  }
  return file;
}
