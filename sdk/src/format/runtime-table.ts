/**
 * The runtime table (spec §7, §11 `compat.runtimes`): for each `runtime.type` of version 1.0, what
 * kind of runtime it is and, for interpreters, how the host finds, asks and starts one. It is the
 * only place those facts live: the manifest types and checks, compatibility,
 * interpreter detection, doctor and the launcher all derive from it. Adding a runtime touches this
 * module and sdk/schema/capability-1.json (test/sdk/format/runtime-table.test.ts holds them equal);
 * a runtime of a new *kind* makes every `switch` over a runtime's kind (`classifyRuntime`: the
 * manifest's file checks, doctor, the launcher) fail the lint rule
 * `@typescript-eslint/switch-exhaustiveness-check` until it is handled.
 *
 * Plain data: no Node modules, so every layer may read it.
 */

/** spec §7: node and python run `entry` with the host's interpreter, honouring `runtime.version`. */
interface InterpreterRuntimeKind {
  kind: 'interpreter';
  /** The name people know it by, in sentences ("needs Node.js >=22"). */
  label: string;
  /** The program looked up on PATH ("python3"); also named when none is found ("no python3 interpreter"). */
  program: string;
  /**
   * Whether the process running the SDK is such an interpreter, so its own executable can serve
   * when the program is not on PATH (not inside Electron, whose executable is the app).
   */
  self: boolean;
  /** Arguments that make the interpreter print its real executable and its version, one per line. */
  probeArgs: readonly string[];
  /** The interpreter's arguments before the tool's script `file`, followed by `file`. */
  launchArgs(file: string): string[];
}

/** spec §7: binary runs `entries[platform]` directly. */
interface BinaryRuntimeKind {
  kind: 'binary';
}

/**
 * spec §7 reserves `mcp`; this implementation defines it (docs/spec/mcp-runtime.md): `server` is an
 * MCP server in the package, started like a node, python or binary tool, and `tool` the MCP tool
 * it serves that this tool is.
 */
interface McpRuntimeKind {
  kind: 'mcp';
}

/** spec §7: reserved in 1.0; a host that does not implement it MUST refuse the tool. */
interface ReservedRuntimeKind {
  kind: 'reserved';
}

type RuntimeKind = InterpreterRuntimeKind | BinaryRuntimeKind | McpRuntimeKind | ReservedRuntimeKind;
export type RuntimeKindName = RuntimeKind['kind'];

export const RUNTIME_TABLE = {
  node: {
    kind: 'interpreter',
    label: 'Node.js',
    program: 'node',
    self: true,
    probeArgs: ['-e', 'process.stdout.write(process.execPath + "\\n" + process.versions.node + "\\n")'],
    launchArgs: (file: string): string[] => [file],
  },
  python: {
    kind: 'interpreter',
    label: 'Python',
    program: 'python3',
    self: false,
    // -E ignores PYTHON* variables, -s the user site-packages.
    probeArgs: ['-E', '-s', '-c', 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'],
    // -E ignores PYTHON* variables, -s the user site-packages, -B writes no .pyc (the capability
    // directory is read-only); the script's own directory stays importable.
    launchArgs: (file: string): string[] => ['-E', '-s', '-B', file],
  },
  binary: { kind: 'binary' },
  mcp: { kind: 'mcp' },
  wasm: { kind: 'reserved' },
  http: { kind: 'reserved' },
} as const satisfies Record<string, RuntimeKind>;

/** spec §7: the `runtime.type` values of version 1.0. */
export type RuntimeType = keyof typeof RUNTIME_TABLE;
type OfKind<K extends RuntimeKindName> = { [T in RuntimeType]: (typeof RUNTIME_TABLE)[T]['kind'] extends K ? T : never }[RuntimeType];
/** The interpreter runtimes, also the keys of `compat.runtimes` (spec §11). */
export type InterpreterRuntime = OfKind<'interpreter'>;
/** The runtime types that run a native binary per platform (the runtime table). */
export type BinaryRuntime = OfKind<'binary'>;
/** The runtime type that calls a tool of an MCP server the capability ships (the runtime table). */
export type McpRuntime = OfKind<'mcp'>;
/** The runtime types spec 1.0 reserves and this host does not run (E_RUNTIME_UNSUPPORTED). */
export type ReservedRuntime = OfKind<'reserved'>;
/** What this host can run: every type that is not reserved. */
export type RunnableRuntime = InterpreterRuntime | BinaryRuntime | McpRuntime;

/** The table, typed by kind (the literal table above keeps the keys; this view gives the shapes). */
const TABLE: { readonly [T in RuntimeType]: RuntimeKind } = RUNTIME_TABLE;

export const RUNTIME_TYPES = Object.keys(RUNTIME_TABLE) as RuntimeType[];
export const INTERPRETER_RUNTIMES = RUNTIME_TYPES.filter((t): t is InterpreterRuntime => TABLE[t].kind === 'interpreter');
export const RUNNABLE_RUNTIMES = RUNTIME_TYPES.filter((t): t is RunnableRuntime => TABLE[t].kind !== 'reserved');

// The shapes of a manifest's `runtime` by kind, derived from the table (manifest-types.ts re-exports
// them with the rest of the manifest's types; they live here so the table needs nothing from there).
/** A platform as spec §11 names it: `any`, or `<os>-<arch>` such as `linux-x64`. */
export type Platform = string; // "any" | "linux-x64" | "darwin-arm64" | "win32-x64" | ...

/** A tool's runtime, by kind of `type` (the table above). */
export type InterpreterToolRuntime = { type: InterpreterRuntime; entry: string; version?: string };
/** A tool runtime that runs a native binary, one entry per platform. */
export type BinaryToolRuntime = { type: BinaryRuntime; entries: Record<Platform, string> };
/**
 * The MCP server a `mcp` tool runs (docs/spec/mcp-runtime.md): started like a node, python or binary
 * tool, with `args` and `env` whose `${dir}`, `${workspace}` and `${env.NAME}` are filled in at run time.
 */
export type McpServerLaunch = (Omit<InterpreterToolRuntime, 'type'> & { type: InterpreterRuntime }) | BinaryToolRuntime;
/** The MCP server an `mcp` tool runtime starts: how it is launched, with its arguments and environment. */
export type McpServerSpec = McpServerLaunch & { args?: string[]; env?: Record<string, string> };
/** A tool runtime that calls one tool of an MCP server the capability ships. */
export type McpToolRuntime = { type: McpRuntime; server: McpServerSpec; tool: string };
/** How a tool runs (spec §7): an interpreter, a binary, an MCP server's tool, or a reserved type. */
export type ToolRuntime = InterpreterToolRuntime | BinaryToolRuntime | McpToolRuntime | { type: ReservedRuntime; [key: string]: unknown };

export function isRuntimeType(value: unknown): value is RuntimeType {
  return typeof value === 'string' && Object.hasOwn(RUNTIME_TABLE, value);
}

/** The kind of a `runtime.type`, or undefined when it is not one of version 1.0 (unvalidated input). */
export function runtimeKind(type: unknown): RuntimeKindName | undefined {
  return isRuntimeType(type) ? TABLE[type].kind : undefined;
}

export function interpreterOf(type: InterpreterRuntime): InterpreterRuntimeKind {
  return RUNTIME_TABLE[type];
}

/** Whether a (validated) tool runtime runs `entry` with an interpreter. */
export function isInterpreterRuntime(runtime: ToolRuntime): runtime is InterpreterToolRuntime {
  return runtimeKind(runtime.type) === 'interpreter';
}

/** Whether a (validated) tool runtime runs `entries[platform]` directly. */
function isBinaryRuntime(runtime: ToolRuntime): runtime is BinaryToolRuntime {
  return runtimeKind(runtime.type) === 'binary';
}

/** Whether a (validated) tool runtime starts an MCP server of the package and calls one of its tools. */
export function isMcpRuntime(runtime: ToolRuntime): runtime is McpToolRuntime {
  return runtimeKind(runtime.type) === 'mcp';
}

/**
 * A (validated) tool runtime with its kind beside it, for a `switch (classified.kind)` that the
 * lint rule holds exhaustive: a new kind in the table is pointed at in every such switch.
 */
type ClassifiedRuntime =
  | { kind: 'interpreter'; runtime: InterpreterToolRuntime }
  | { kind: 'binary'; runtime: BinaryToolRuntime }
  | { kind: 'mcp'; runtime: McpToolRuntime }
  | { kind: 'reserved'; runtime: ToolRuntime };

export function classifyRuntime(runtime: ToolRuntime): ClassifiedRuntime {
  if (isInterpreterRuntime(runtime)) return { kind: 'interpreter', runtime };
  if (isBinaryRuntime(runtime)) return { kind: 'binary', runtime };
  if (isMcpRuntime(runtime)) return { kind: 'mcp', runtime };
  return { kind: 'reserved', runtime };
}
