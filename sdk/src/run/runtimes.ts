/**
 * Runtimes (spec §7): node and python run `entry` with the host's interpreter, honouring
 * `runtime.version`; binary runs `entries[platform]`; wasm, mcp and http are reserved in 1.0 and
 * refused with a clear message (a host that does not implement a runtime MUST refuse the tool).
 *
 * Which node: the one running the SDK (`process.execPath`), because its version is known without
 * a probe and it cannot be swapped by whatever is first on PATH. Inside Electron `process.execPath`
 * is the app binary, not node, so there (and only there) the `node` on PATH is used. A host may
 * name its own interpreters with the `interpreters` option. Python is `python3` on PATH.
 */
import { execFile } from 'node:child_process';
import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { AdcapError } from '../errors.js';
import type { Tool } from '../format/manifest-types.js';
import { parseVersion } from '../resolve/runtimes.js';
import { findProgram, SAFE_PATH } from '../sandbox/common.js';
import { hostPlatform } from '../util/platform.js';

export interface Interpreters {
  /** Absolute path of the node binary tools run with. */
  node?: string;
  /** Absolute path of the python 3 binary tools run with. */
  python?: string;
}

export interface Launch {
  runtime: 'node' | 'python' | 'binary';
  /** Absolute path of the program (interpreter or binary entry). */
  command: string;
  args: string[];
  /** The interpreter version found (node, python). */
  version?: string;
}

const RESERVED = new Set(['wasm', 'mcp', 'http']);


/**
 * Refuses what cannot run here before anything starts: reserved runtime types and `tool.platforms`
 * that exclude this host. Cheap and synchronous, so callers (the MCP listing) can filter with it.
 */
export function runtimeProblem(tool: Tool, platform: string = hostPlatform()): AdcapError | null {
  const type = tool.runtime.type;
  if (RESERVED.has(type)) {
    return new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} uses the "${type}" runtime, which is reserved in .adcap 1.0 and not implemented by this host (it runs node, python and binary tools); ask the publisher for a node, python or binary version.`,
      { details: { runtime: type } },
    );
  }
  if (type !== 'node' && type !== 'python' && type !== 'binary') {
    return new AdcapError('E_RUNTIME_UNSUPPORTED', `The tool ${tool.name} uses the unknown runtime "${String(type)}"; this host runs node, python and binary tools.`, {
      details: { runtime: type },
    });
  }
  if (tool.platforms !== undefined && !tool.platforms.includes('any') && !tool.platforms.includes(platform)) {
    return new AdcapError('E_INCOMPATIBLE', `The tool ${tool.name} runs only on ${tool.platforms.join(', ')}, and this computer is ${platform}.`, {
      details: { platforms: tool.platforms, platform },
    });
  }
  return null;
}

const probeCache = new Map<string, Promise<{ command: string; version: string } | undefined>>();

/**
 * Asks an interpreter for its real executable and version. `python3` on PATH is often a shim (pyenv,
 * asdf) that needs the user's home, which the sandbox hides, so the real binary is what runs.
 */
function probeInterpreter(command: string, kind: 'node' | 'python'): Promise<{ command: string; version: string } | undefined> {
  const key = `${kind}:${command}`;
  let cached = probeCache.get(key);
  if (cached === undefined) {
    const args =
      kind === 'node'
        ? ['-e', 'process.stdout.write(process.execPath + "\\n" + process.versions.node + "\\n")']
        : ['-E', '-s', '-c', 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'];
    cached = new Promise((resolve) => {
      execFile(command, args, { timeout: 10_000, windowsHide: true }, (error, stdout) => {
        const [executable, versionText] = String(stdout).trim().split('\n');
        const version = versionText === undefined ? undefined : parseVersion(versionText);
        resolve(error === null && executable !== undefined && path.isAbsolute(executable) && version !== undefined ? { command: executable, version } : undefined);
      });
    });
    probeCache.set(key, cached);
  }
  return cached;
}

async function nodeInterpreter(given: string | undefined): Promise<{ command: string; version: string | undefined }> {
  if (given === undefined && process.versions.electron === undefined) return { command: process.execPath, version: process.versions.node };
  const found = given ?? findProgram('node', process.env.PATH ?? SAFE_PATH);
  if (found === null) return { command: '', version: undefined };
  return (await probeInterpreter(found, 'node')) ?? { command: found, version: undefined };
}

async function pythonInterpreter(given: string | undefined): Promise<{ command: string; version: string | undefined }> {
  const found = given ?? findProgram('python3', process.env.PATH ?? SAFE_PATH);
  if (found === null) return { command: '', version: undefined };
  return (await probeInterpreter(found, 'python')) ?? { command: found, version: undefined };
}

/**
 * The program and arguments that run `tool` from the installed directory `dir`. Throws
 * E_RUNTIME_UNSUPPORTED (reserved type, missing interpreter, `runtime.version` not satisfied,
 * naming the version found), E_INCOMPATIBLE (platform), E_MISSING (entry not on disk).
 */
export async function resolveLaunch(tool: Tool, dir: string, options: { platform?: string; interpreters?: Interpreters } = {}): Promise<Launch> {
  const platform = options.platform ?? hostPlatform();
  const problem = runtimeProblem(tool, platform);
  if (problem !== null) throw problem;
  const runtime = tool.runtime;
  if (runtime.type === 'binary') {
    const entries = runtime.entries as Record<string, string>;
    const entry = entries[platform];
    if (entry === undefined) {
      throw new AdcapError('E_INCOMPATIBLE', `The tool ${tool.name} ships binaries for ${Object.keys(entries).join(', ')}, but none for this computer (${platform}).`, {
        details: { platform },
      });
    }
    const file = await entryFile(dir, entry, tool.name);
    try {
      await access(file, constants.X_OK);
    } catch {
      throw new AdcapError('E_MISSING', `The binary ${entry} of tool ${tool.name} is not executable; the package must mark it executable (run "adcap doctor --fix").`, {
        details: { path: file },
      });
    }
    return { runtime: 'binary', command: file, args: [] };
  }
  if (runtime.type !== 'node' && runtime.type !== 'python') throw new Error('unreachable: runtimeProblem refused other runtimes');
  const entry = runtime.entry as string;
  const range = typeof runtime.version === 'string' ? runtime.version : undefined;
  const name = runtime.type === 'node' ? 'Node.js' : 'Python';
  const found = runtime.type === 'node' ? await nodeInterpreter(options.interpreters?.node) : await pythonInterpreter(options.interpreters?.python);
  if (found.command === '' || found.version === undefined) {
    throw new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} needs ${name}${range === undefined ? '' : ` ${range}`}, but ${runtime.type === 'node' ? 'no node' : 'no python3'} interpreter was found on this computer; install it and try again.`,
      { details: { runtime: runtime.type, required: range ?? null, found: null } },
    );
  }
  if (range !== undefined && !semver.satisfies(found.version, range, { includePrerelease: true })) {
    throw new AdcapError(
      'E_RUNTIME_UNSUPPORTED',
      `The tool ${tool.name} needs ${name} ${range}, but this computer has ${name} ${found.version} (${found.command}); install a matching version.`,
      { details: { runtime: runtime.type, required: range, found: found.version } },
    );
  }
  const file = await entryFile(dir, entry, tool.name);
  // python: -E ignores PYTHON* variables, -s the user site-packages, -B writes no .pyc (the
  // capability directory is read-only); the script's own directory stays importable.
  const args = runtime.type === 'node' ? [file] : ['-E', '-s', '-B', file];
  return { runtime: runtime.type, command: found.command, args, version: found.version };
}

async function entryFile(dir: string, entry: string, toolName: string): Promise<string> {
  const file = path.join(dir, ...entry.split('/'));
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) {
    throw new AdcapError('E_MISSING', `The entry ${entry} of tool ${toolName} is missing from the installed files; run "adcap doctor --fix" to repair the installation.`, {
      details: { path: file },
    });
  }
  return file;
}
