/**
 * The messages between the main process and the utility process that runs the host service.
 * Plain structured-clone data over `utilityProcess` / `process.parentPort`.
 *
 *   main -> utility   { kind: 'call', id, method, args }          a host API call from the window
 *   utility -> main   { kind: 'result', id, result }              its Result
 *   utility -> main   { kind: 'event', event }                    a HostEvent for the window
 *   utility -> main   { kind: 'secret', id, capability, tool, variable }   a tool needs a secret
 *   main -> utility   { kind: 'secret-answer', id, value }        its value, or null
 *   utility -> main   { kind: 'secret-store', id, capability, variable, value }   keep a value the
 *                     user gave at install (an MCP Bundle's setting; docs/spec/mcp-runtime.md)
 *   main -> utility   { kind: 'secret-stored', id, kept }         done; kept: false when the OS offers no keychain
 *   utility -> main   { kind: 'ready' } once the service is up
 */
import type { Result } from '../common/types.js';
import type { HostEvent } from '../common/events.js';

export type ToUtility =
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'secret-answer'; id: number; value: string | null }
  | { kind: 'secret-stored'; id: number; kept: boolean };

export type FromUtility =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; result: Result<unknown> }
  | { kind: 'event'; event: HostEvent }
  | { kind: 'secret'; id: number; capability: string; tool: string; variable: string }
  | { kind: 'secret-store'; id: number; capability: string; variable: string; value: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isText = (v: unknown, max = 512): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** Checks a message from the utility process; null for anything malformed (it is dropped). */
export function parseFromUtility(message: unknown): FromUtility | null {
  if (!isObject(message)) return null;
  switch (message['kind']) {
    case 'ready':
      return { kind: 'ready' };
    case 'result': {
      const result = message['result'];
      if (!isId(message['id']) || !isObject(result) || typeof result['ok'] !== 'boolean') return null;
      return { kind: 'result', id: message['id'], result: result as Result<unknown> };
    }
    case 'event': {
      const event = message['event'];
      if (!isObject(event) || typeof event['type'] !== 'string') return null;
      return { kind: 'event', event: event as HostEvent };
    }
    case 'secret': {
      const { id, capability, tool, variable } = message;
      if (!isId(id) || !isText(capability, 129) || !isText(tool, 128) || !isText(variable, 128)) return null;
      return { kind: 'secret', id, capability, tool, variable };
    }
    case 'secret-store': {
      const { id, capability, variable, value } = message;
      if (!isId(id) || !isText(capability, 129) || !isText(variable, 128) || !isText(value, 16_384)) return null;
      return { kind: 'secret-store', id, capability, variable, value };
    }
    default:
      return null;
  }
}

/** Checks a message from the main process (the utility side). */
export function parseToUtility(message: unknown): ToUtility | null {
  if (!isObject(message)) return null;
  if (message['kind'] === 'call') {
    const { id, method, args } = message;
    if (!isId(id) || !isText(method, 128) || !Array.isArray(args)) return null;
    return { kind: 'call', id, method, args };
  }
  if (message['kind'] === 'secret-answer') {
    const { id, value } = message;
    if (!isId(id) || !(value === null || typeof value === 'string')) return null;
    return { kind: 'secret-answer', id, value };
  }
  if (message['kind'] === 'secret-stored') {
    const { id, kept } = message;
    if (!isId(id) || typeof kept !== 'boolean') return null;
    return { kind: 'secret-stored', id, kept };
  }
  return null;
}
