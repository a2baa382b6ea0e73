// The tool side of the spec §7 wire protocol, for node tools. Copy this file into your capability.
//
//   host -> tool  {"type":"call","tool":"name","input":{...},"context":{...}}       (one line)
//   tool -> host  {"type":"result","output":{...}}  or  {"type":"error","message":"..."}
//   tool -> host  {"type":"shard","reqId":1,"resource":"id","path":"shards/x.jsonl"}  (optional)
//   host -> tool  {"type":"shard.result","reqId":1,"path":"/abs"}  or  {..., "error":"..."}
//
// serveTools({ tool_name: async (input, context, host) => output }) reads the call, runs the
// handler and answers. Throw a ToolError for a message meant for the user; anything else is
// reported as an unexpected failure. Nothing but protocol lines may go to stdout: log to stderr.
import { createInterface } from 'node:readline';

/** An error whose message is shown to the user as it is. */
export class ToolError extends Error {}

export function serveTools(handlers) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const pending = new Map();
  let nextReqId = 1;
  let called = false;

  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  // The last line: exit only once stdout has been flushed to the host.
  const finish = (message) => {
    lines.close();
    process.stdout.write(`${JSON.stringify(message)}\n`, () => process.exit(0));
  };

  const host = {
    /** Asks the host for one shard of a shard-set resource; resolves to its verified local path. */
    shard(resource, path) {
      const reqId = nextReqId++;
      send({ type: 'shard', reqId, resource, path });
      return new Promise((resolve, reject) => pending.set(reqId, { resolve, reject }));
    },
  };

  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      finish({ type: 'error', message: 'The host sent a line that is not JSON.' });
      return;
    }
    if (message.type === 'call' && !called) {
      called = true;
      void handle(message);
    } else if (message.type === 'shard.result' && pending.has(message.reqId)) {
      const waiter = pending.get(message.reqId);
      pending.delete(message.reqId);
      if (typeof message.path === 'string') waiter.resolve(message.path);
      else waiter.reject(new ToolError(`The host could not provide a shard: ${message.error ?? 'no reason given'}.`));
    }
  });
  lines.on('close', () => {
    if (!called) finish({ type: 'error', message: 'The host closed stdin without sending a call.' });
  });

  async function handle(message) {
    const handler = Object.hasOwn(handlers, message.tool) ? handlers[message.tool] : undefined;
    if (handler === undefined) {
      finish({ type: 'error', message: `This program has no tool named "${message.tool}".` });
      return;
    }
    try {
      const output = await handler(message.input ?? {}, message.context ?? {}, host);
      finish({ type: 'result', output });
    } catch (error) {
      const text = error instanceof ToolError ? error.message : `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
      finish({ type: 'error', message: text });
    }
  }
}
