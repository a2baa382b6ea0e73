/**
 * mcpServe (host contract "Tools": "run mcpServe in a child process and register it as an MCP
 * server for the agents ... only granted tools exist"): an MCP server over stdio, built on the
 * official @modelcontextprotocol/sdk, exposing the granted tools of the named capabilities with
 * their input schemas, and running each call through runTool (sandbox, limits, audit).
 *
 * Tool names are `<publisher>__<name>__<tool>` (`acme__pdf__pdf_extract`): MCP names allow
 * letters, digits, `_` and `-`, and a double underscore cannot occur inside an id part or a tool
 * name, so the name maps back to exactly one tool. A name longer than 64 characters (some clients'
 * limit) becomes `<tool>__<12 hex of SHA-256 of the long name>`.
 */
import type { Readable, Writable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, JSONRPCMessage, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { surfaceMessage, type Surface } from '../surface-text.js';
import { AdcapError, asAdcapError, isAdcapError } from '../errors.js';
import type { Manifest, Tool } from '../format/manifest-types.js';
import { grantCovers } from '../permissions/index.js';
import { parseCapabilityId } from '../registry/layout.js';
import type { Arcotheon } from '../store/arcotheon.js';
import { disabledError } from '../store/enablement.js';
import { policyForReading, toolAllowed } from '../store/policy-enforce.js';
import { storeOf } from '../store/store-of.js';
import { sha256Hex } from '../util/hash.js';
import { runToolIn, type InstalledRead, type RunToolOptions } from './run-tool.js';
import type { RunContext } from './context.js';
import { runtimeProblem } from './runtimes.js';
import { checkWorkspace } from './workspace.js';

/** Options of `mcpServe()`: the streams, the workspace and the environment of the tools it serves. */
export interface McpServeOptions {
  /** Where the client's messages come from (default this process's stdin). */
  stdin?: Readable;
  /** Where the answers go (default this process's stdout). */
  stdout?: Writable;
  /** The folder tools get as their workspace (default: none). */
  workspace?: string | null;
  /** The environment granted env:read variables are taken from (default process.env), as for runTool. */
  env?: RunToolOptions['env'];
  /** Where granted env:read values come from (as for runTool): an mcp tool's server gets them only for the tool called. */
  secrets?: RunToolOptions['secrets'];
  /** Reported to the client in `initialize` (default: the SDK name and version). */
  serverInfo?: { name: string; version: string };
  /**
   * Whose words a failed call's text uses (surface-text.ts): 'sdk' (default) names API calls, 'cli'
   * names adcap commands (`adcap mcp`), 'ui' names the app's screens (a desktop host's server).
   */
  surface?: Surface;
}

/** A running MCP server from `mcpServe()`: when it closes, and how to close it. */
export interface McpServerHandle {
  /**
   * Resolves when the client disconnects (stdin ends) or close() is called, once every tool run
   * the server started has ended: a call is answered at the tool's checked and audited result,
   * while its process may still be exiting and its sandbox being removed.
   */
  closed: Promise<void>;
  /** Stops the server and closes its transport; resolves once `closed` has. */
  close(): Promise<void>;
}

/** `<publisher>__<name>__<tool>`, shortened with a hash past 64 characters. */
export function mcpToolName(id: string, tool: string): string {
  const { publisher, name } = parseCapabilityId(id);
  const full = `${publisher}__${name}__${tool}`;
  return full.length <= 64 ? full : `${tool.slice(0, 48)}__${sha256Hex(full).slice(0, 12)}`;
}

interface Exposed {
  id: string;
  tool: Tool;
  mcp: McpTool;
  /** The state and active manifest the tool was found in: a call runs on these, read once for it. */
  read: InstalledRead;
}

/** The tools that exist for MCP right now: declared, runnable here, and every permission granted. */
export async function grantedMcpTools(arc: RunContext, ids: readonly string[]): Promise<Exposed[]> {
  const out: Exposed[] = [];
  // Nor are tools the organisation policy forbids (an invalid policy lists them, and a
  // call answers E_POLICY saying why).
  const { loaded } = await policyForReading(arc);
  for (const id of ids) {
    const state = await arc.state(id);
    // A disabled capability's tools are not listed (a call to one is refused with E_DISABLED).
    if (state.disabled !== undefined) continue;
    const manifest = await arc.readInstalledManifest(id, state.active);
    // Host contract "Free and Pro": without the host's tier check, tier-gated tools do not exist here.
    if (arc.checkTier === undefined && tierGated(manifest)) continue;
    for (const tool of manifest.tools ?? []) {
      const granted = (tool.permissions ?? []).every((needed) => state.grants.some((g) => grantCovers(g, needed)));
      if (!granted || runtimeProblem(tool) !== null || !toolAllowed(loaded, id, state.active, tool.permissions ?? [])) continue;
      const inputSchema = { ...tool.inputSchema, type: 'object' } as McpTool['inputSchema'];
      const mcp: McpTool = {
        name: mcpToolName(id, tool.name),
        title: `${manifest.name}: ${tool.name}`,
        description: `${tool.description} (${id}@${state.active})`,
        inputSchema,
      };
      if (tool.outputSchema !== undefined && tool.outputSchema['type'] === 'object')
        mcp.outputSchema = tool.outputSchema as McpTool['outputSchema'];
      out.push({ id, tool, mcp, read: { state, manifest } });
    }
  }
  return out;
}

/**
 * Serves the granted tools of `ids`, installed in the home of `arc`, over MCP on stdin/stdout
 * (default: this process's; host contract "Tools"). The list is computed again for every request,
 * so a revoked grant takes effect without a restart. E_USAGE when `ids` is empty or `arc` is not an
 * `Arcotheon`; E_NOT_INSTALLED when one of `ids` is not installed.
 */
export async function mcpServe(arc: Arcotheon, ids: readonly string[], options: McpServeOptions = {}): Promise<McpServerHandle> {
  return mcpServeIn(storeOf(arc, 'mcpServe()'), ids, options);
}

/**
 * `mcpServe` over a narrow view of a store (the `Arcotheon`'s own, `storeOf`).
 * @internal Exported from `@arcotheon/sdk/internal` only.
 */
export async function mcpServeIn(arc: RunContext, ids: readonly string[], options: McpServeOptions = {}): Promise<McpServerHandle> {
  // The MCP SDK is loaded here, not at the top: its modules build hundreds of zod schemas when
  // evaluated, which every other adcap command would pay for at start-up.
  const [{ McpServer }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  if (ids.length === 0) throw new AdcapError('E_USAGE', 'Name at least one installed capability to serve over MCP.');
  for (const id of ids) await arc.state(id); // E_NOT_INSTALLED up front, not at the first request
  // A workspace that is, holds or lies in the Arcotheon home is refused before the
  // server starts (each call checks it again through runTool).
  const workspace = await checkWorkspace(arc.home.root, options.workspace ?? null);
  const server = new McpServer(options.serverInfo ?? { name: 'arcotheon', version: '1.0.0' }, {
    capabilities: { tools: { listChanged: false } },
  });
  // Runs whose calls were answered before their tool's process had exited (see the call handler).
  const runs = new Set<Promise<unknown>>();
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await grantedMcpTools(arc, ids)).map((e) => e.mcp) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const exposed = (await grantedMcpTools(arc, ids)).find((e) => e.mcp.name === request.params.name);
    if (exposed === undefined) {
      const disabled = await disabledOwner(arc, ids, request.params.name);
      if (disabled !== null) return errorResult(disabled, options.surface);
      const gated = await tierGatedOwner(arc, ids, request.params.name);
      if (gated !== null) return errorResult(gated, options.surface);
      return errorResult(
        new AdcapError('E_NOT_FOUND', `There is no granted tool named "${request.params.name}" on this server; list the tools again.`),
      );
    }
    const answer = (output: Record<string, unknown>): CallToolResult => ({
      content: [{ type: 'text', text: JSON.stringify(output) }],
      structuredContent: output,
    });
    // The call is answered as soon as its outcome is settled (RunInternals.onSettled: the output
    // checked, the audit line written), while the tool's process exits and the run's folders and
    // cgroups are removed; the server does not close before those runs have ended.
    let settled: ((result: CallToolResult) => void) | undefined;
    const early = new Promise<CallToolResult>((resolve) => {
      settled = resolve;
    });
    // The state and manifest the tool was just found in are the ones it runs with: read once per
    // call, never kept from one call to the next (a grant or version changed since is seen).
    const run = runToolIn(
      arc,
      exposed.id,
      exposed.tool.name,
      request.params.arguments ?? {},
      {
        signal: extra.signal,
        workspace,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
      },
      { read: exposed.read, onSettled: (output) => settled?.(answer(output)) },
    ).then(
      (result) => answer(result.output),
      (error: unknown) => errorResult(asAdcapError(error, 'The tool failed'), options.surface),
    );
    runs.add(run);
    void run.finally(() => runs.delete(run));
    return Promise.race([early, run]);
  });

  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // Closed once the transport is and every run it started has ended (its sandbox removed).
  const settleRuns = async (): Promise<void> => {
    while (runs.size > 0) await Promise.allSettled([...runs]);
  };
  transport.onclose = () => void settleRuns().then(resolveClosed);
  await server.connect(transport);
  const inFlight = trackRequests(transport);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await server.close();
      await settleRuns();
      resolveClosed();
    })();
    return closing;
  };
  // The client going away (stdin closed) ends the server, but only after every request it sent
  // has been answered: a client may write `tools/list` and close its end at once.
  const finish = (): void => {
    void inFlight.idle().then(close);
  };
  stdin.once('end', finish);
  stdin.once('close', finish);
  return { closed, close };
}

/**
 * Counts the requests the transport has received and not yet answered, by wrapping its message
 * handler (requests in) and its send (responses out); `idle()` resolves once every one of them
 * has been written.
 */
function trackRequests(transport: StdioServerTransport): { idle(): Promise<void> } {
  let pending = 0;
  let waiters: Array<() => void> = [];
  const settle = (): void => {
    if (pending > 0) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) pending++;
    receive?.call(transport, message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (!('method' in message) && 'id' in message) {
        pending = Math.max(0, pending - 1);
        settle();
      }
    }
  };
  return {
    idle: () =>
      new Promise<void>((resolve) => {
        // Data already read is dispatched before 'end'; a turn of the event loop lets the
        // handlers of the last messages start before the count is looked at.
        setImmediate(() => {
          waiters.push(resolve);
          settle();
        });
      }),
  };
}

/** E_DISABLED when `name` is a tool of one of `ids` that is disabled; else null. */
async function disabledOwner(arc: RunContext, ids: readonly string[], name: string): Promise<AdcapError | null> {
  for (const id of ids) {
    const state = await arc.state(id);
    if (state.disabled === undefined) continue;
    const manifest = await arc.readInstalledManifest(id, state.active);
    if ((manifest.tools ?? []).some((t) => mcpToolName(id, t.name) === name)) return disabledError(id, state.disabled);
  }
  return null;
}

/**
 * Host contract "Free and Pro": a Pro or entitled capability's tools run only after the host's
 * checkTier said yes (runTool asks it before each run). An MCP server started without one, as
 * `adcap mcp` is (the command has no sign-in), cannot ask, so it neither lists nor runs them.
 */
function tierGated(manifest: Manifest): boolean {
  return manifest.distribution?.tier === 'pro' || manifest.distribution?.access === 'entitled';
}

/** E_ENTITLEMENT when `name` is a tool of a tier-gated capability of `ids` and no tier check exists; else null. */
async function tierGatedOwner(arc: RunContext, ids: readonly string[], name: string): Promise<AdcapError | null> {
  if (arc.checkTier !== undefined) return null;
  for (const id of ids) {
    const state = await arc.state(id);
    const manifest = await arc.readInstalledManifest(id, state.active);
    if (!tierGated(manifest) || !(manifest.tools ?? []).some((t) => mcpToolName(id, t.name) === name)) continue;
    const { tier = 'free', access = 'public' } = manifest.distribution ?? {};
    return new AdcapError(
      'E_ENTITLEMENT',
      `${id} is a ${tier === 'pro' ? 'Pro' : 'paid'} capability (tier ${tier}, access ${access}), and this MCP server cannot check ` +
        'the user\'s plan (it runs without the host\'s checkTier, as "adcap mcp" does); register the MCP server of the host ' +
        `app that provides ${id} with the agent instead.`,
      { details: { id, tier, access } },
    );
  }
  return null;
}

/** spec-independent MCP convention: tool failures are results with isError, not protocol errors. */
function errorResult(error: AdcapError, surface: Surface = 'sdk'): CallToolResult {
  const text = `${error.code}: ${isAdcapError(error) ? surfaceMessage(error, surface) : String(error)}`;
  return { isError: true, content: [{ type: 'text', text: isAdcapError(error) ? text : String(error) }] };
}
