/**
 * The tool wire protocol (spec §7): one JSON object per line on stdin and stdout.
 *
 *   host -> tool  {"type":"call","tool":"name","input":{...},"context":{...}}
 *   tool -> host  {"type":"result","output":{...}}  |  {"type":"error","message":"..."}
 *   tool -> host  {"type":"shard","reqId":1,"resource":"id","path":"shards/x.jsonl"}   (optional)
 *   host -> tool  {"type":"shard.result","reqId":1,"path":"/abs"} | {...,"error":"..."}
 *
 * This module only encodes and decodes messages; run-tool.ts drives the process.
 */
import { AdcapError } from '../errors.js';
import { isShardRequest, type ShardRequestMessage, type ShardResultMessage } from '../cache/shardset.js';

/** spec §7: the context of a call. Paths are absolute; `workspace` and `toolDataDir` may be null. */
export interface ToolContext {
  /** The capability's id. */
  capability: string;
  /** The installed version running. */
  version: string;
  /** The version's installed folder (read-only). */
  dir: string;
  /** The run's workspace folder, when the tool was granted fs access to it; else null. */
  workspace: string | null;
  /** Declared resource id -> verified local file (for a shard set: its shard map). */
  resources: Record<string, string>;
  /** Declared dependency id -> installed directory. */
  dependencies: Record<string, string>;
  /** home/tooldata/<pub>/<name>/<tool>/ when storage:data is granted, else null. */
  toolDataDir: string | null;
}

/** The message that starts a tool run (spec §7 wire protocol): the tool, its input and its call context. */
export interface CallMessage {
  /** Always `'call'`. */
  type: 'call';
  /** The name of the tool to run. */
  tool: string;
  /** The input, already checked against the tool's inputSchema. */
  input: Record<string, unknown>;
  /** Where the tool runs and what it may use. */
  context: ToolContext;
}

/** A message a tool sends the host (spec §7 wire protocol): its result, an error, or a shard request. */
export type ToolMessage = { type: 'result'; output: Record<string, unknown> } | { type: 'error'; message: string } | ShardRequestMessage;

/** One message as the line the other side reads. */
export function encodeMessage(message: CallMessage | ShardResultMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** Longest tool error message kept (a tool controls it; the UI shows it). */
const MAX_ERROR_MESSAGE = 4000;

function protocolError(problem: string, line: string): AdcapError {
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  return new AdcapError(
    'E_PROTOCOL',
    `The tool broke the wire protocol (spec §7): ${problem}; it must write one JSON message per line on stdout and its logs on stderr.`,
    {
      details: { line: shown },
    },
  );
}

/** Decodes one stdout line of a tool (without its newline). Anything unexpected is E_PROTOCOL. */
export function parseToolLine(line: string): ToolMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw protocolError('a line is not JSON', line);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw protocolError('a line is not a JSON object', line);
  const message = value as Record<string, unknown>;
  switch (message['type']) {
    case 'result': {
      const output = message['output'];
      if (typeof output !== 'object' || output === null || Array.isArray(output)) {
        throw protocolError('a "result" message needs an "output" object', line);
      }
      return { type: 'result', output: output as Record<string, unknown> };
    }
    case 'error': {
      const text = message['message'];
      if (typeof text !== 'string') throw protocolError('an "error" message needs a "message" string', line);
      return { type: 'error', message: text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}…` : text };
    }
    case 'shard':
      if (!isShardRequest(message))
        throw protocolError('a "shard" message needs an integer "reqId" and string "resource" and "path"', line);
      return message;
    default:
      throw protocolError(
        `the message type ${JSON.stringify(message['type'] ?? null)} is unknown (expected "result", "error" or "shard")`,
        line,
      );
  }
}

/**
 * Splits a byte stream into lines. Holds at most one unfinished line; the caller bounds the total
 * (the output limit), so a flood without newlines is cut by that limit.
 */
export class LineSplitter {
  private pending: Buffer[] = [];

  /** Returns the complete lines in `chunk` (decoded as UTF-8, without the newline, CR stripped). */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const bytes = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      const text = bytes.toString('utf8');
      lines.push(text.endsWith('\r') ? text.slice(0, -1) : text);
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    return lines;
  }

  /** What is left after the stream ended (a last line without a newline), or null. */
  end(): string | null {
    if (this.pending.length === 0) return null;
    const text = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    return text;
  }
}

/** Keeps the last `limit` bytes of a stream (stderr for the UI). */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.limit;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept text; `truncated` says whether earlier bytes were dropped. */
  text(): { text: string; truncated: boolean } {
    return { text: Buffer.concat(this.chunks).toString('utf8'), truncated: this.dropped };
  }
}
