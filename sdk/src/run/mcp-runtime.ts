/**
 * The `mcp` runtime (spec §7 reserves it; docs/spec/mcp-runtime.md defines it here): the tool's
 * MCP server, already wrapped by the sandbox like any tool (bubblewrap + seccomp, the network
 * proxy with the granted hosts only, the workspace and tool data its grants give, limits), is
 * started for this one call and spoken to over its stdio with the official MCP client:
 * initialize, tools/list, tools/call, then it is stopped with every process it started.
 *
 * - tools/list must list the tool the manifest names (`runtime.tool`) with the manifest's input
 *   schema; otherwise the tool is refused (E_TOOL). Tools the server lists and the manifest does
 *   not declare are never called and never exposed.
 * - The result maps to the tool protocol's output: `structuredContent` when the server gives one,
 *   else `{ text, content }` (the text blocks joined, and every content block); `isError` is
 *   E_TOOL with the server's text.
 * - As for other tools (docs/tool-protocol.md "Rules the host enforces"): timeoutMs covers the
 *   whole call from the start of the server (E_TIMEOUT names the step it was waiting for), every
 *   byte the server writes on stdout counts against the output limit (E_OUTPUT_LIMIT), a line that
 *   is not JSON-RPC is E_PROTOCOL, the run's signal cancels (E_CANCELLED, and the server is sent
 *   notifications/cancelled), the last 64 KiB of stderr are kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, CallToolResultSchema, JSONRPCMessage, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AdcapError, asAdcapError, isAdcapError } from '../errors.js';
import { canonicalJson } from '../format/canonical-json.js';
import type { JsonSchemaObject, Tool } from '../format/manifest-types.js';
import { isMcpRuntime } from '../format/runtime-table.js';
import { stdioFor, type WrappedCommand } from '../sandbox/sandbox.js';
import { TailBuffer } from './protocol.js';

/** How much of a server's stderr is kept for the UI (the last bytes), as for other tools. */
const STDERR_TAIL_BYTES = 64 * 1024;
/** The most pages of tools/list read before the server is refused (a server paging forever). */
const MAX_LIST_PAGES = 100;
/** Longest error text kept from a server (it controls it; the UI shows it). */
const MAX_ERROR_TEXT = 4000;

export interface McpDriveOptions {
  label: string;
  timeoutMs: number;
  outputLimit: number;
  signal?: AbortSignal;
  /** Reported to the server in initialize. */
  clientInfo?: { name: string; version: string };
}

type Step = 'initialize' | 'tools/list' | 'tools/call';

/** The MCP stdio transport over a child the caller spawned (the sandbox's command, with its extra descriptors). */
/**
 * The MCP SDK's client side, loaded when a server is first driven: its modules build hundreds of
 * zod schemas when evaluated, which cost every `adcap` start about a third of its CPU.
 */
async function mcpClientSdk(): Promise<{
  Client: typeof Client;
  ReadBuffer: typeof ReadBuffer;
  serializeMessage: (message: JSONRPCMessage) => string;
  CallToolResultSchema: typeof CallToolResultSchema;
}> {
  const [client, stdio, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    ReadBuffer: stdio.ReadBuffer,
    serializeMessage: stdio.serializeMessage,
    CallToolResultSchema: types.CallToolResultSchema,
  };
}

class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer: ReadBuffer;
  readonly #serialize: (message: JSONRPCMessage) => string;
  #bytes = 0;

  constructor(
    private readonly child: ChildProcess,
    private readonly outputLimit: number,
    private readonly fail: (error: AdcapError) => void,
    sdk: Awaited<ReturnType<typeof mcpClientSdk>>,
  ) {
    this.#buffer = new sdk.ReadBuffer({ maxBufferSize: outputLimit });
    this.#serialize = sdk.serializeMessage;
  }

  start(): Promise<void> {
    const { stdout } = this.child;
    stdout?.on('data', (chunk: Buffer) => {
      this.#bytes += chunk.length;
      if (this.#bytes > this.outputLimit) {
        this.fail(
          new AdcapError('E_OUTPUT_LIMIT', `wrote more than ${this.outputLimit} bytes of output`, { details: { limit: this.outputLimit } }),
        );
        stdout.destroy();
        return;
      }
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch {
          this.fail(
            new AdcapError(
              'E_PROTOCOL',
              'broke the MCP stdio transport: a line on stdout is not a JSON-RPC message (an MCP server writes its logs to stderr)',
            ),
          );
          stdout.destroy();
          return;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    stdout?.on('close', () => this.onclose?.());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child.stdin;
    if (stdin?.writable === true) stdin.write(this.#serialize(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.child.stdin?.end();
    return Promise.resolve();
  }
}

/**
 * A listed input schema as a manifest holds it: without its dialect line (`$schema`, often draft-07
 * from MCP SDKs), which says nothing about what is accepted; manifests use draft 2020-12 (DESIGN §3).
 */
export function toolSchemaOf(schema: JsonSchemaObject | McpTool['inputSchema']): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** A schema as compared (toolSchemaOf, canonical JSON). */
function schemaKey(schema: JsonSchemaObject | McpTool['inputSchema']): string {
  return canonicalJson(toolSchemaOf(schema));
}

/** Text a server controls, one line, cut short, for an error sentence. */
function serverText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ERROR_TEXT ? `${flat.slice(0, MAX_ERROR_TEXT)}…` : flat;
}

/** The tools/list check (docs/spec/mcp-runtime.md): the named tool is listed with the manifest's input schema. */
export function checkListedTool(tool: Tool, listed: readonly McpTool[], label: string): McpTool {
  if (!isMcpRuntime(tool.runtime)) throw new Error('checkListedTool: not an mcp tool');
  const name = tool.runtime.tool;
  const found = listed.find((t) => t.name === name);
  if (found === undefined) {
    throw new AdcapError(
      'E_TOOL',
      `The MCP server of ${label} does not list the tool "${name}" that the package declares, so it is refused; ` +
        'the package and its server disagree: ask the publisher for a fixed version.',
      { details: { mcpTool: name, listed: listed.map((t) => t.name).slice(0, 100) } },
    );
  }
  if (schemaKey(found.inputSchema) !== schemaKey(tool.inputSchema)) {
    throw new AdcapError(
      'E_TOOL',
      `The MCP server of ${label} lists the tool "${name}" with another input schema than the package declares, so it is refused; ` +
        'ask the publisher for a version whose manifest matches its server.',
      { details: { mcpTool: name } },
    );
  }
  return found;
}

/** docs/spec/mcp-runtime.md: a tools/call result as the tool protocol's output object. */
export function outputOfResult(result: CallToolResult, label: string): Record<string, unknown> {
  const content = result.content;
  const text = content
    .filter((c): c is Extract<typeof c, { type: 'text' }> => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  if (result.isError === true) {
    throw new AdcapError('E_TOOL', `The tool ${label} reported an error: ${serverText(text) || 'no message'}`, {
      details: { toolMessage: serverText(text) },
    });
  }
  const structured = result.structuredContent;
  if (structured !== undefined && typeof structured === 'object' && !Array.isArray(structured)) return structured;
  return { text, content };
}

/**
 * Spawns the wrapped server in its own process group, runs initialize, tools/list and tools/call
 * for `tool` with `input`, and ends with the whole process tree killed (as run-tool.ts does for
 * other tools: under bubblewrap killing bwrap ends the sandbox's PID namespace).
 */
export async function driveMcpTool(
  wrapped: WrappedCommand,
  tool: Tool,
  input: Record<string, unknown>,
  o: McpDriveOptions,
): Promise<{ output: Record<string, unknown>; stderr: string }> {
  if (!isMcpRuntime(tool.runtime)) throw new Error('driveMcpTool: not an mcp tool');
  const mcpName = tool.runtime.tool;
  const { CallToolResultSchema } = await mcpClientSdk();
  const { value, stderr } = await mcpSession(wrapped, o, async (client, requestOptions, setStep) => {
    const listed = await listAll(client, requestOptions, o.label);
    checkListedTool(tool, listed, o.label);
    setStep('tools/call');
    const result = await client.callTool({ name: mcpName, arguments: input }, CallToolResultSchema, requestOptions);
    return outputOfResult(result as CallToolResult, o.label);
  });
  return { output: value, stderr };
}

/** Every tool the wrapped server lists (MCP Bundle import asks a server that declares none). */
export async function listMcpServerTools(wrapped: WrappedCommand, o: McpDriveOptions): Promise<{ tools: McpTool[]; stderr: string }> {
  const { value, stderr } = await mcpSession(wrapped, o, (client, requestOptions) => listAll(client, requestOptions, o.label));
  return { tools: value, stderr };
}

type RequestOptions = { timeout: number; signal?: AbortSignal };

async function listAll(client: Client, requestOptions: RequestOptions, label: string): Promise<McpTool[]> {
  const listed: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === MAX_LIST_PAGES) {
      throw new AdcapError('E_PROTOCOL', `The MCP server of ${label} answered tools/list with more than ${MAX_LIST_PAGES} pages.`);
    }
    const answer = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
    listed.push(...answer.tools);
    cursor = answer.nextCursor;
    if (cursor === undefined) return listed;
  }
}

/**
 * Spawns the wrapped server, connects the official client (initialize, then tools/list as step),
 * runs `work`, and stops the server with every process it started, whatever happened.
 */
async function mcpSession<T>(
  wrapped: WrappedCommand,
  o: McpDriveOptions,
  work: (client: Client, requestOptions: RequestOptions, setStep: (step: Step) => void) => Promise<T>,
): Promise<{ value: T; stderr: string }> {
  const sdk = await mcpClientSdk();
  const child = spawn(wrapped.command, wrapped.args, {
    env: wrapped.env,
    ...(wrapped.cwd === undefined ? {} : { cwd: wrapped.cwd }),
    stdio: stdioFor(wrapped),
    detached: true,
  });
  const stderr = new TailBuffer(STDERR_TAIL_BYTES);
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin?.on('error', () => undefined); // EPIPE when the server exits without reading: reported by its exit
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  let step: Step = 'initialize';
  let rejectFailure: (error: AdcapError) => void = () => undefined;
  const failure = new Promise<never>((_resolve, reject) => {
    rejectFailure = reject;
  });
  failure.catch(() => undefined);
  const fail = (error: AdcapError): void => rejectFailure(error);
  const timer = setTimeout(
    () =>
      fail(
        new AdcapError(
          'E_TIMEOUT',
          `The tool ${o.label} ran longer than its ${o.timeoutMs} ms limit and was stopped (with every process it started); ` +
            `its MCP server had not answered ${step}.`,
          { details: { timeoutMs: o.timeoutMs, step } },
        ),
      ),
    o.timeoutMs,
  );
  const onAbort = (): void =>
    fail(new AdcapError('E_CANCELLED', `The run of ${o.label} was cancelled (its MCP server and every process it started were stopped).`));
  if (o.signal?.aborted === true) queueMicrotask(onAbort);
  else o.signal?.addEventListener('abort', onAbort, { once: true });
  child.once('error', (error: NodeJS.ErrnoException) =>
    fail(
      new AdcapError(
        'E_RUNTIME_UNSUPPORTED',
        `The MCP server of ${o.label} could not be started (${error.code ?? error.message}); ` +
          'check that its interpreter or sandbox program is installed.',
        { cause: error },
      ),
    ),
  );
  child.once('exit', (code, signal) => {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;
    fail(new AdcapError('E_TOOL', `The MCP server of ${o.label} ${how} during ${step}.`, { details: { exitCode: code, signal, step } }));
  });

  const transport = new ChildTransport(
    child,
    o.outputLimit,
    (error) =>
      fail(new AdcapError(error.code, `The MCP server of ${o.label} ${error.message}; it was stopped.`, { details: { ...error.details } })),
    sdk,
  );
  const client = new sdk.Client(o.clientInfo ?? { name: 'arcotheon', version: '1.0.0' }, { capabilities: {} });
  // The run's own timer decides; the client's per-request timeout only must not come first.
  const requestOptions = { timeout: o.timeoutMs + 60_000, ...(o.signal === undefined ? {} : { signal: o.signal }) };
  const working = (async () => {
    await client.connect(transport, requestOptions);
    step = 'tools/list';
    return work(client, requestOptions, (next) => {
      step = next;
    });
  })();
  working.catch(() => undefined);
  let output: T | undefined;
  let error: AdcapError | undefined;
  try {
    output = await Promise.race([working, failure]);
  } catch (caught) {
    error = isAdcapError(caught)
      ? caught
      : new AdcapError('E_TOOL', `The MCP server of ${o.label} failed during ${step}: ${serverText(asAdcapError(caught, 'MCP').message)}`, {
          cause: caught,
        });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
    child.stdin?.end();
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    child.kill('SIGKILL');
    // Output still in the pipes is read; a descendant that kept them open is not waited for.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  const tail = stderr.text();
  if (error !== undefined) {
    throw new AdcapError(error.code, error.message, {
      cause: error.cause,
      details: { ...error.details, stderr: tail.text, stderrTruncated: tail.truncated },
    });
  }
  return { value: output as T, stderr: tail.text };
}
