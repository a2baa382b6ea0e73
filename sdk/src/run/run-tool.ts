/**
 * runTool (spec §7; host contract "Tools"; DESIGN §7): runs one declared tool of an installed
 * capability in the OS sandbox and speaks the wire protocol with it.
 *
 * Order of checks, all before anything starts: the tool exists, the version is not revoked
 * (spec §13), the host's tier hook agrees (host contract "Free and Pro"), the runtime and platform
 * are supported (spec §7), every permission the tool declares is granted (spec §6), the input
 * matches inputSchema (spec §7), the interpreter matches runtime.version, a sandbox exists.
 * Then resources are materialised, the process starts, and timeoutMs, the output limit and the
 * protocol are enforced; the output is validated against outputSchema. Every attempt is audited.
 */
import { spawn } from 'node:child_process';
import { copyFile, link, mkdir, mkdtemp, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRequestHandler, type ShardRequestMessage, type ShardResultMessage } from '../cache/shardset.js';
import { reasonError } from '../surface-text.js';
import { AdcapError, asAdcapError } from '../errors.js';
import { manifestDigest } from '../format/canonical-json.js';
import type { Manifest, Tool } from '../format/manifest-types.js';
import { isMcpRuntime } from '../format/runtime-table.js';
import { grantCovers } from '../permissions/index.js';
import { stdioFor, type WrappedCommand } from '../sandbox/sandbox.js';
import { assertEnabled } from '../store/enablement.js';
import { assertToolAllowed } from '../store/policy-enforce.js';
import { callHost, explainCancel, GuardedListener } from '../util/host-call.js';
import { chooseSandbox, cleanupWrapped, wrapChecked } from './host-sandbox.js';
import type { PackageState } from '../store/state.js';
import type { Progress } from '../util/progress.js';
import { removeTree } from '../util/fs-tree.js';
import { AuditLog, auditDigest } from './audit.js';
import { checkRunFiles } from '../store/file-fingerprints.js';
import type { Arcotheon } from '../store/arcotheon.js';
import { storeOf } from '../store/store-of.js';
import { blobMirrors, dependencyDirs, materializeToolResources, revocationReason, toolDataDirFor, type RunContext } from './context.js';
import { encodeMessage, LineSplitter, parseToolLine, TailBuffer, type CallMessage, type ToolContext } from './protocol.js';
import { serverLaunchParts } from './mcp-server-launch.js';
import { resolveLaunch, runtimeProblem, type Interpreters } from './runtimes.js';
import { assertMatches, prepareValidator } from './schemas.js';
import { envReadVariables, secretEnv, type SecretSource } from './secrets.js';
import { checkWorkspace } from './workspace.js';
import { checkToolDataQuota, DEFAULT_TOOL_DATA_QUOTA } from '../store/tool-data.js';

/** spec §7: the default timeout. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** The default cap on a tool's stdout (all bytes, every message). */
const DEFAULT_OUTPUT_LIMIT = 16 * 1024 * 1024;
/** How much of a tool's stderr is kept for the UI (the last bytes). */
const STDERR_TAIL_BYTES = 64 * 1024;
/** After a result or error message, how long the tool may take to exit before it is killed. */
const EXIT_GRACE_MS = 2_000;

/** Progress of a tool run: the SDK-wide shape, with the tool it concerns. */
export type RunProgress = Progress & { tool?: string };

/** Options of `runTool()`: the workspace, cancellation, progress and secrets of one run. */
export interface RunToolOptions {
  /** The folder chosen for this run (exposed only with fs:read:workspace / fs:write:workspace). */
  workspace?: string | null;
  /** Cancels the run: the tool and everything it started are killed, and the run rejects with E_CANCELLED. */
  signal?: AbortSignal;
  /** Told the run's progress, with `tool` naming the tool: `phase: 'resource'` (bytes) while resources download, then `phase: 'run'`. */
  onProgress?: (progress: RunProgress) => void;
  /** May lower the timeout; the tool's own timeoutMs (else 30 s) is the most it gets. */
  timeoutMs?: number;
  /** Bytes of stdout allowed (default 16 MiB); more is E_OUTPUT_LIMIT. */
  outputLimit?: number;
  /** The environment granted env:read variables are taken from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where granted env:read values come from instead of `env` (secrets.ts): asked per capability,
   * tool and variable, only for variables the tool declares and the user granted.
   */
  secrets?: SecretSource;
  /** The interpreters to run node and python tools with (see runtimes.ts for the defaults). */
  interpreters?: Interpreters;
}

/** What `runTool()` returns: the tool's output and how the run went. */
export interface ToolRunResult {
  /** The capability id. */
  capability: string;
  /** The version that ran. */
  version: string;
  /** The tool's name. */
  tool: string;
  /** The tool's output, checked against its outputSchema. */
  output: Record<string, unknown>;
  /** The last 64 KiB of the tool's stderr, for the UI. */
  stderr: string;
  /** How long the run took. */
  durationMs: number;
  /** Which sandbox ran the tool: 'bubblewrap', 'sandbox-exec', 'none' (opted out), or the host's sandbox's name. */
  sandbox: string;
  /** The permissions the tool ran with (its declared ones, each covered by a grant). */
  grantsUsed: string[];
}

/**
 * Runs `toolName` of the installed capability `id` with `input`, through the home of `arc` (host
 * contract "Tools"). Resolves with the validated
 * output; rejects with an AdcapError (E_NOT_FOUND, E_REVOKED, E_ENTITLEMENT/E_DENIED,
 * E_RUNTIME_UNSUPPORTED, E_INCOMPATIBLE, E_NOT_GRANTED, E_INPUT, E_SANDBOX_UNAVAILABLE, E_TIMEOUT,
 * E_OUTPUT_LIMIT, E_PROTOCOL, E_TOOL, E_OUTPUT, ...; E_USAGE when `arc` is not an `Arcotheon`).
 * Errors raised after the tool started carry `details.stderr` (the captured tail).
 */
export async function runTool(
  arc: Arcotheon,
  id: string,
  toolName: string,
  input: unknown,
  options: RunToolOptions = {},
): Promise<ToolRunResult> {
  return runToolIn(storeOf(arc, 'runTool()'), id, toolName, input, options);
}

/**
 * What the caller of runToolIn read of the capability for this same call (the MCP server, which
 * looks the tool up in them first): its state and the manifest of `state.active`, as
 * `arc.state(id)` and `arc.readInstalledManifest(id, state.active)` returned them. Every check of
 * the run applies to them as to ones it reads itself (the manifest's digest, the installed files).
 * @internal
 */
export interface InstalledRead {
  /** The capability's state (its active version, grants and versions). */
  state: PackageState;
  /** The installed manifest of `state.active`. */
  manifest: Manifest;
}

/**
 * Told the run's output as soon as its outcome is settled (see RunInternals.onSettled).
 * @internal
 */
export type SettledListener = (output: Record<string, unknown>) => void;

/**
 * What runToolIn's internal callers add to a run (the MCP server).
 * @internal
 */
export interface RunInternals {
  /** The state and manifest the caller read for this same call (InstalledRead). */
  read?: InstalledRead;
  /**
   * Called once, with the tool's validated output, when nothing after it can change the run's
   * outcome (ExecuteArgs.onOutcome) and its audit line is written: the MCP server answers then,
   * while the tool's process exits and the run's folders and cgroups are removed. The run's
   * promise still settles only after all that; a run settled another way never calls it.
   */
  onSettled?: SettledListener;
}

/**
 * `runTool` over a narrow view of a store (the `Arcotheon`'s own, `storeOf`): what workflows and
 * the MCP server call, and tests that give a run only what it reads.
 * @internal Exported from `@arcotheon/sdk/internal` only.
 */
export async function runToolIn(
  arc: RunContext,
  id: string,
  toolName: string,
  input: unknown,
  options: RunToolOptions = {},
  internals: RunInternals = {},
): Promise<ToolRunResult> {
  const { read, onSettled } = internals;
  const started = Date.now();
  const state = read?.state ?? (await arc.state(id));
  const version = state.active;
  const manifest = read?.manifest ?? (await arc.readInstalledManifest(id, version));
  const tool = (manifest.tools ?? []).find((t) => t.name === toolName);
  if (tool === undefined) {
    const names = (manifest.tools ?? []).map((t) => t.name);
    throw new AdcapError('E_NOT_FOUND', `${id}@${version} has no tool named "${toolName}"; its tools are: ${names.join(', ') || 'none'}.`);
  }
  const manifestSha256 = state.versions[version]?.manifestSha256 ?? manifestDigest(manifest);
  const grantsUsed: string[] = [];
  let result: ToolRunResult | undefined;
  let failure: AdcapError | undefined;
  // A throw from the host's onProgress is reported as such (E_HOST_CALLBACK), and a run whose
  // signal fired as E_CANCELLED, whatever else failed because of it.
  const progress = new GuardedListener<RunProgress>('onProgress', options.onProgress);
  const appendAudit = (outcome: { output: Record<string, unknown> } | { error: AdcapError }) =>
    new AuditLog(arc.home.auditDir).append({
      kind: 'tool',
      capability: id,
      version,
      manifestSha256,
      name: toolName,
      inputSha256: auditDigest(input),
      outputSha256: 'output' in outcome ? auditDigest(outcome.output) : null,
      grantsUsed: [...grantsUsed],
      durationMs: Date.now() - started,
      outcome: 'output' in outcome ? 'ok' : 'error',
      ...('error' in outcome ? { errorCode: outcome.error.code } : {}),
    });
  // The audit line of a run whose outcome is settled by the tool's result (execute: onOutcome) is
  // written while the tool exits, instead of after it exited; awaited before the run returns.
  let earlyAudit: Promise<unknown> | undefined;
  const onOutcome = (output: Record<string, unknown>): void => {
    earlyAudit = appendAudit({ output });
    // Awaited below; not an unhandled rejection meanwhile. A line that could not be written
    // settles nothing early: the run then fails with that error, as it would have without onSettled.
    earlyAudit.then(
      () => {
        try {
          onSettled?.(output);
        } catch {
          // the listener's own failure is the caller's; the run goes on to its end
        }
      },
      () => undefined,
    );
  };
  try {
    if (options.signal?.aborted === true)
      throw new AdcapError('E_CANCELLED', `The run of ${id} ${toolName} was cancelled before it started.`);
    // The installed manifest must still be the one verified at install time
    // (spec §4: the package's identity is its manifest digest); a tool that rewrote its own
    // manifest or tools does not run.
    const actual = manifestDigest(manifest);
    if (actual !== manifestSha256) {
      // Its tools do not run; how to repair it depends on where the message is read.
      throw reasonError(
        'installed-files-changed',
        { id, version, what: `The installed manifest (SHA-256 ${actual}, signed ${manifestSha256})`, expected: manifestSha256, actual },
        { code: 'E_HASH' },
      );
    }
    // spec §4: the files the run exposes and executes are still those the signed manifest lists
    // (a stat fingerprint per file, a SHA-256 where it differs; SECURITY.md "Installed files").
    await checkRunFiles(arc, id, version, manifest);
    const guarded: RunToolOptions = { ...options };
    if (progress.fn === undefined) delete guarded.onProgress;
    else guarded.onProgress = progress.fn;
    result = await execute(arc, { id, version, state, manifest, tool, input, options: guarded, started, grantsUsed, onOutcome });
  } catch (error) {
    failure = asAdcapError(
      explainCancel(progress.explain(error), options.signal, `The run of ${id} ${toolName}`),
      `Running ${id} ${toolName} failed`,
    );
  }
  // Audit every attempt, refused ones included: once, whether written early or now. (A failure
  // after an early line cannot happen, since nothing after the result can change the outcome
  // there; were it to, the failure is recorded too rather than lost.)
  if (earlyAudit !== undefined) await earlyAudit;
  if (earlyAudit === undefined || failure !== undefined) {
    await appendAudit(failure === undefined ? { output: (result as ToolRunResult).output } : { error: failure });
  }
  if (failure !== undefined) throw failure;
  return result as ToolRunResult;
}

interface ExecuteArgs {
  id: string;
  version: string;
  state: PackageState;
  manifest: Manifest;
  tool: Tool;
  input: unknown;
  options: RunToolOptions;
  started: number;
  /** Filled in once the grants are checked, for the audit line. */
  grantsUsed: string[];
  /**
   * Told the tool's output as soon as its result is read and matches outputSchema, when nothing
   * after that can change the run's outcome: no storage:data quota check after the tool exits,
   * no progress listener (whose throw would fail the run), not an mcp tool. Not called otherwise.
   */
  onOutcome?: (output: Record<string, unknown>) => void;
}

async function execute(arc: RunContext, a: ExecuteArgs): Promise<ToolRunResult> {
  const { id, version, state, manifest, tool, options } = a;
  const label = `${id} ${tool.name}`;

  // A disabled capability's tools do not run; nor do tools the organisation policy
  // forbids now (a blocked version, or a permission it denies since the grant was given).
  assertEnabled(state);
  assertToolAllowed(await arc.policyInForce(), id, version, tool.permissions ?? []);

  // spec §13: revoked versions never run.
  const revoked = await revocationReason(arc, id, state);
  if (revoked !== null) {
    throw new AdcapError(
      'E_REVOKED',
      `${id}@${version} was revoked by its registry (${revoked}), ` +
        `so its tools do not run; update it ("adcap update ${id}") or uninstall it.`,
      {
        details: { id, version, reason: revoked },
      },
    );
  }

  // Host contract "Free and Pro": the SDK trusts the host's tier check, before each run.
  // A refusal is E_ENTITLEMENT (never E_DENIED, which is "plan not approved"); a
  // check that throws or answers something other than true or false is E_HOST_CALLBACK.
  const tier = manifest.distribution?.tier ?? 'free';
  const checkTier = arc.checkTier;
  if (checkTier !== undefined) {
    const allowed: unknown = await callHost('checkTier', () => checkTier({ id, version, tier }));
    if (typeof allowed !== 'boolean') {
      throw new AdcapError(
        'E_HOST_CALLBACK',
        `The host's checkTier callback answered ${allowed === null ? 'null' : typeof allowed} ` +
          `for ${id}; it must return true or false (or a promise of one).`,
        {
          details: { callback: 'checkTier' },
        },
      );
    }
    if (!allowed) {
      throw tier === 'pro'
        ? new AdcapError(
            'E_ENTITLEMENT',
            `${id} is a Pro capability and this host's plan does not include it; upgrade to Pro to run ${tool.name}.`,
            { details: { id, tier } },
          )
        : new AdcapError(
            'E_ENTITLEMENT',
            `The host does not allow running ${id} (tier ${tier}) for this user right now; check the host's plan or settings.`,
            { details: { id, tier } },
          );
    }
  }

  const unsupported = runtimeProblem(tool);
  if (unsupported !== null) throw unsupported;

  // spec §6: a tool may use only the permissions it names, and only those granted.
  const declared = tool.permissions ?? [];
  const missing = declared.filter((needed) => !state.grants.some((granted) => grantCovers(granted, needed)));
  if (missing.length > 0) {
    throw new AdcapError(
      'E_NOT_GRANTED',
      `The tool ${tool.name} of ${id} needs ` +
        `${missing.length === 1 ? 'a permission that is' : 'permissions that are'} not granted ` +
        `(${missing.join(', ')}); grant ${missing.length === 1 ? 'it' : 'them'} in the host app, ` +
        `or with "adcap grants ${id} ${missing.map((g) => `--grant ${g}`).join(' ')}", to run this tool.`,
      { details: { missing } },
    );
  }
  // Only what the tool declares (each covered by a grant) reaches the sandbox: least privilege.
  a.grantsUsed.push(...declared);

  // spec §7: input validated before the tool starts.
  if (typeof a.input !== 'object' || a.input === null || Array.isArray(a.input)) {
    throw new AdcapError('E_INPUT', `The input of tool ${tool.name} must be a JSON object.`, { details: { pointer: '' } });
  }
  const input = a.input as Record<string, unknown>;
  assertMatches(tool.inputSchema, input, 'E_INPUT', `The input of tool ${tool.name}`, 'inputSchema');

  const dir = arc.home.versionDir(id, version);
  const launch = await resolveLaunch(tool, dir, options.interpreters === undefined ? {} : { interpreters: options.interpreters });
  const sandbox = await chooseSandbox(arc, id);
  // Never the Arcotheon home, a folder inside it, or one that contains it.
  const workspace = await checkWorkspace(arc.home.root, options.workspace ?? null);

  const progress = options.onProgress;
  const mirrors = await blobMirrors(arc, state, version);
  // Sources the publisher chose stay on public https or the installing registry.
  const policy = await arc.sourcePolicy(state.versions[version]?.source);
  const materialized = await materializeToolResources(arc, manifest, tool, {
    mirrors,
    policy,
    ...(progress === undefined ? {} : { onProgress: (p: Progress) => progress({ ...p, phase: 'resource', tool: tool.name }) }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const dependencies = await dependencyDirs(arc, manifest);
  const toolDataDir = await toolDataDirFor(arc, id, tool, declared);
  // SECURITY.md "Tool data quota": a tool over its storage:data quota does not start, nor return a result.
  const toolDataQuota = arc.toolDataQuota ?? DEFAULT_TOOL_DATA_QUOTA;
  if (toolDataDir !== null) await checkToolDataQuota(toolDataDir, toolDataQuota, { id, tool: tool.name, when: 'before' });
  const context: ToolContext = { capability: id, version, dir, workspace, resources: materialized.paths, dependencies, toolDataDir };

  // A folder of the run only where something needs one: the shards fetched during the run are
  // linked into one the sandbox sees read-only (spec §9; only a declared shard set can be asked
  // for), and a sandbox gets spec.tmpDir made for it (below) unless it says it needs none
  // (Sandbox.needsTmpDir false: the SDK's bubblewrap, which writes no file for a run).
  const usesShards = materialized.resources.some((r) => r.format === 'shardset');
  const wantsTmpDir = sandbox.needsTmpDir !== false;
  const runDir = usesShards || wantsTmpDir ? await mkdtemp(path.join(os.tmpdir(), 'adcap-run-')) : null;
  const shardDir = usesShards && runDir !== null ? path.join(runDir, 'shards') : null;
  if (shardDir !== null) await mkdir(shardDir);
  const shards = new ShardRequestHandler(arc.cache, {
    resources: materialized.resources,
    mirrors,
    policy,
    ...(arc.authorize === undefined ? {} : { authorize: arc.authorize }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  // sdk/README.md "Sandbox hook": spec.tmpDir is the run's own folder and exists before wrap() is
  // called, so a sandbox may point HOME or TMPDIR at it (removed with runDir after the run).
  const sandboxTmp = runDir === null ? os.tmpdir() : path.join(runDir, 'sandbox');
  let wrapped: WrappedCommand | undefined;
  try {
    if (runDir !== null) await mkdir(sandboxTmp, { mode: 0o700 });
    const env =
      options.secrets === undefined
        ? Object.fromEntries(Object.entries(options.env ?? process.env).filter((e): e is [string, string] => typeof e[1] === 'string'))
        : {
            ...(process.env.LANG === undefined ? {} : { LANG: process.env.LANG }),
            ...(await secretEnv(options.secrets, { capability: id, version, tool: tool.name }, envReadVariables(declared))),
          };
    // docs/spec/mcp-runtime.md: an mcp tool's server gets its args and env filled in (else unchanged).
    const parts = serverLaunchParts(tool, { args: launch.args, env, grants: declared }, { dir, workspace });
    wrapped = await wrapChecked(sandbox, {
      command: launch.command,
      args: parts.args,
      env: parts.env,
      cwd: dir,
      grants: parts.grants,
      capabilityDir: dir,
      // spec §6: dependency directories are readable; the per-run shard folder is read-only too
      // (shards fetched during the run are linked into it, so the sandbox sees them).
      dependencyDirs: [...Object.values(dependencies), ...(shardDir === null ? [] : [shardDir])],
      readOnlyFiles: Object.values(materialized.paths),
      workspace,
      toolDataDir,
      tmpDir: sandboxTmp,
      home: os.homedir(),
      // DESIGN §5: fs:write never reaches installed directories; nor the rest of the home (grants,
      // audit log, cache), except the tool data folders.
      protectedDirs: protectedPaths(arc),
      // The home is not visible at all inside the sandbox (an empty folder in its
      // place), whatever the workspace and grants; the run's own paths in it are bound on top.
      hiddenDirs: [arc.home.root],
    });
    progress?.({ phase: 'run', done: 0, tool: tool.name });
    const call: CallMessage = { type: 'call', tool: tool.name, input, context };
    const timeoutMs = Math.min(tool.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.timeoutMs ?? Number.POSITIVE_INFINITY);
    const limits = { label, timeoutMs, outputLimit: options.outputLimit ?? DEFAULT_OUTPUT_LIMIT };
    const signal = options.signal === undefined ? {} : { signal: options.signal };
    // The outcome is settled by the result when nothing after it can change it (ExecuteArgs.onOutcome).
    const settle = a.onOutcome;
    let checkedOutput: Record<string, unknown> | undefined;
    const onResult =
      settle === undefined || toolDataDir !== null || progress !== undefined
        ? undefined
        : (output: Record<string, unknown>): void => {
            try {
              if (tool.outputSchema !== undefined)
                assertMatches(tool.outputSchema, output, 'E_OUTPUT', `The output of tool ${tool.name}`, 'outputSchema');
            } catch {
              return; // E_OUTPUT, reported after the tool exited as before
            }
            checkedOutput = output;
            settle(output);
          };
    // docs/spec/mcp-runtime.md: an mcp tool is a tools/call to its server (the MCP SDK is loaded only then).
    let driven: { output: Record<string, unknown>; stderr: string };
    if (isMcpRuntime(tool.runtime)) {
      driven = await (await import('./mcp-runtime.js')).driveMcpTool(wrapped, tool, input, { ...limits, ...signal });
    } else {
      // driveTool starts the tool before it returns; while the tool's process starts, its
      // outputSchema is compiled here (at most a compile the result's check would do anyway).
      const driving = driveTool(wrapped, encodeMessage(call), {
        ...limits,
        ...signal,
        onShard: async (message) => exposeShard(await shards.handle(message), shardDir),
        ...(onResult === undefined ? {} : { onResult }),
      });
      if (tool.outputSchema !== undefined) prepareValidator(tool.outputSchema);
      driven = await driving;
    }
    // spec §7: output validated after the tool finished (or once its result was read: onResult).
    if (tool.outputSchema !== undefined && checkedOutput !== driven.output) {
      try {
        assertMatches(tool.outputSchema, driven.output, 'E_OUTPUT', `The output of tool ${tool.name}`, 'outputSchema');
      } catch (error) {
        throw withStderr(error, driven.stderr);
      }
    }
    if (toolDataDir !== null) {
      try {
        await checkToolDataQuota(toolDataDir, toolDataQuota, { id, tool: tool.name, when: 'after' });
      } catch (error) {
        throw withStderr(error, driven.stderr);
      }
    }
    progress?.({ phase: 'run', done: 1, total: 1, tool: tool.name });
    return {
      capability: id,
      version,
      tool: tool.name,
      output: driven.output,
      stderr: driven.stderr,
      durationMs: Date.now() - a.started,
      sandbox: sandbox.name,
      grantsUsed: [...declared],
    };
  } finally {
    await cleanupWrapped(wrapped);
    if (runDir !== null) await removeTree(runDir).catch(() => undefined);
  }
}

function protectedPaths(arc: RunContext): string[] {
  const h = arc.home;
  // The whole home, so files that do not exist yet (a fresh home has no
  // config.json) cannot be created by a writable grant either; the tool's own data folder is the
  // one writable place in it (storage:data). The sandbox compares real paths.
  return [h.root, h.packagesDir, h.cacheDir, h.auditDir, h.locksDir, h.journalDir, path.join(h.root, 'remotes'), h.config];
}

/** Links a cached shard into the per-run shard folder (copies across file systems) and answers with that path. */
async function exposeShard(answer: ShardResultMessage, shardDir: string | null): Promise<ShardResultMessage> {
  if (!('path' in answer)) return answer;
  // Only a declared shard set is answered with a path, and then the folder exists.
  if (shardDir === null) throw new AdcapError('E_PROTOCOL', 'A shard was fetched for a tool that declares no shard set.');
  const sha = path.basename(answer.path);
  const target = path.join(shardDir, sha);
  if ((await stat(target).catch(() => null)) === null) {
    await link(answer.path, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return;
      await copyFile(answer.path, target);
    });
  }
  return { type: 'shard.result', reqId: answer.reqId, path: target };
}

function withStderr(error: unknown, stderr: string): AdcapError {
  const e = asAdcapError(error, 'The tool run failed');
  return new AdcapError(e.code, e.message, { cause: e.cause, details: { ...e.details, stderr } });
}

interface DriveOptions {
  label: string;
  timeoutMs: number;
  outputLimit: number;
  signal?: AbortSignal;
  onShard: (message: ShardRequestMessage) => Promise<ShardResultMessage>;
  /** Told the output when the tool's result is read (the run's outcome from then on; see fail below). */
  onResult?: (output: Record<string, unknown>) => void;
}

type Final = { kind: 'result'; output: Record<string, unknown> } | { kind: 'error'; message: string } | { kind: 'fail'; error: AdcapError };

/**
 * Spawns the wrapped command in its own process group, sends the call, reads messages, and ends
 * with the whole process tree killed: `kill(-pgid)` reaches every descendant that stayed in the
 * group; under bubblewrap, killing bwrap also kills the sandbox's PID namespace (--die-with-parent),
 * which takes every process inside with it, including ones that started a new session.
 */
function driveTool(
  wrapped: WrappedCommand,
  callLine: string,
  o: DriveOptions,
): Promise<{ output: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(wrapped.command, wrapped.args, {
      env: wrapped.env,
      ...(wrapped.cwd === undefined ? {} : { cwd: wrapped.cwd }),
      stdio: stdioFor(wrapped),
      detached: true,
    });
    const stdin = child.stdin;
    const stdout = child.stdout;
    const stderrStream = child.stderr;
    if (stdin === null || stdout === null || stderrStream === null) throw new Error('spawn without pipes');
    const stderr = new TailBuffer(STDERR_TAIL_BYTES);
    const splitter = new LineSplitter();
    let final: Final | null = null;
    let outBytes = 0;
    let exited = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let stdoutClosed = false;
    let stderrClosed = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const killTree = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }
      if (!exited) child.kill('SIGKILL');
    };
    // docs/tool-protocol.md: once the tool's result or error is read, it is the run's outcome; what
    // happens while the tool exits (more output past the limit, a cancel) only stops it, as the
    // timeout does then.
    const fail = (error: AdcapError): void => {
      if (final === null) final = { kind: 'fail', error };
      killTree();
      maybeFinish();
    };
    const onAbort = (): void =>
      fail(new AdcapError('E_CANCELLED', `The run of ${o.label} was cancelled (the tool and every process it started were stopped).`));

    timers.push(
      setTimeout(() => {
        if (final === null)
          fail(
            new AdcapError(
              'E_TIMEOUT',
              `The tool ${o.label} ran longer than its ${o.timeoutMs} ms limit and was stopped (with every process it started).`,
              { details: { timeoutMs: o.timeoutMs } },
            ),
          );
        else killTree();
      }, o.timeoutMs),
    );
    if (o.signal !== undefined) {
      if (o.signal.aborted) queueMicrotask(onAbort);
      else o.signal.addEventListener('abort', onAbort, { once: true });
    }

    const handleLine = (line: string): void => {
      if (final !== null || line.trim() === '') return;
      let message;
      try {
        message = parseToolLine(line);
      } catch (error) {
        fail(asAdcapError(error, 'Protocol failure'));
        return;
      }
      if (message.type === 'shard') {
        o.onShard(message).then(
          (answer) => {
            if (final === null && stdin.writable) stdin.write(encodeMessage(answer));
          },
          (error: unknown) => fail(asAdcapError(error, 'Answering a shard request failed')),
        );
        return;
      }
      final = message.type === 'result' ? { kind: 'result', output: message.output } : { kind: 'error', message: message.message };
      if (message.type === 'result') o.onResult?.(message.output);
      stdin.end();
      // The tool had its say; it may exit on its own, else it is stopped shortly.
      timers.push(setTimeout(killTree, EXIT_GRACE_MS));
    };

    stdout.on('data', (chunk: Buffer) => {
      if (final !== null && final.kind === 'fail') return;
      outBytes += chunk.length;
      if (outBytes > o.outputLimit) {
        fail(
          new AdcapError('E_OUTPUT_LIMIT', `The tool ${o.label} wrote more than ${o.outputLimit} bytes of output and was stopped.`, {
            details: { limit: o.outputLimit },
          }),
        );
        stdout.destroy();
        return;
      }
      for (const line of splitter.push(chunk)) handleLine(line);
    });
    stdout.on('close', () => {
      stdoutClosed = true;
      const last = splitter.end();
      if (last !== null && (final === null || final.kind !== 'fail')) handleLine(last);
      maybeFinish();
    });
    stderrStream.on('data', (chunk: Buffer) => stderr.push(chunk));
    stderrStream.on('close', () => {
      stderrClosed = true;
      maybeFinish();
    });
    stdin.on('error', () => undefined); // EPIPE when the tool exits without reading: reported by its exit
    child.on('error', (error: NodeJS.ErrnoException) => {
      exited = true;
      stdoutClosed = true;
      stderrClosed = true;
      fail(
        new AdcapError(
          'E_RUNTIME_UNSUPPORTED',
          `The tool ${o.label} could not be started (${error.code ?? error.message}); ` +
            'check that its interpreter or sandbox program is installed.',
          { cause: error },
        ),
      );
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      killTree(); // descendants left in the group
      // Output still in the pipe is read; a descendant that kept the pipe open is not waited for.
      timers.push(
        setTimeout(() => {
          stdout.destroy();
          stderrStream.destroy();
          stdoutClosed = true;
          stderrClosed = true;
          maybeFinish();
        }, 1_000),
      );
      maybeFinish();
    });
    stdin.write(callLine);

    function maybeFinish(): void {
      if (settled || !exited || !stdoutClosed || !stderrClosed) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      const tail = stderr.text();
      const details = { stderr: tail.text, stderrTruncated: tail.truncated, exitCode, signal: exitSignal };
      const current = final as Final | null;
      if (current?.kind === 'result') {
        resolve({ output: current.output, stderr: tail.text });
        return;
      }
      if (current?.kind === 'fail') {
        const e = current.error;
        reject(new AdcapError(e.code, e.message, { cause: e.cause, details: { ...e.details, ...details } }));
        return;
      }
      if (current?.kind === 'error') {
        reject(reasonError('tool-reported-error', { ...details, tool: o.label, toolMessage: current.message }));
        return;
      }
      // A crash is the tool's fault, not the input's: the surfaces say so (surface-text.ts).
      reject(reasonError('tool-crashed', { ...details, tool: o.label, exitCode, signal: exitSignal, lastError: lastLines(tail.text) }));
    }
  });
}

/** The last few stderr lines, shortened, for an error sentence. */
function lastLines(text: string): string {
  const lines = text.trimEnd().split('\n').slice(-3).join(' | ');
  return lines.length > 500 ? `…${lines.slice(-500)}` : lines;
}
