import { describe, expect, it } from 'vitest';
import { createHostClient, type CallFn } from '../../../electron/common/client.js';
import { HOST_METHODS, METHODS, type HostMethod } from '../../../electron/common/methods.js';
import type { Result } from '../../../electron/common/types.js';
import type { HostEvent } from '../../../electron/common/events.js';

/** The typed client is built from the method table: one function per method, arguments checked first. */
function recorder(reply: (method: HostMethod, args: unknown[]) => Result<unknown> = () => ({ ok: true, value: null })) {
  const calls: Array<{ method: HostMethod; args: unknown[] }> = [];
  const call: CallFn = async (method, args) => {
    calls.push({ method, args });
    return reply(method, args);
  };
  return { calls, call };
}

describe('createHostClient', () => {
  it('has a function for every method of the table, in its namespace, and nothing the table lacks', () => {
    const client = createHostClient(recorder().call) as unknown as Record<string, Record<string, unknown>>;
    for (const method of HOST_METHODS) {
      const [namespace, name] = method.split('.') as [string, string];
      expect(typeof client[namespace]?.[name], method).toBe('function');
    }
    const namespaces = new Set(HOST_METHODS.map((m) => m.split('.')[0]));
    for (const key of Object.keys(client)) if (!['events', 'call', 'perform'].includes(key)) expect(namespaces.has(key), key).toBe(true);
  });

  it('refuses arguments the table does not allow, for every method, without calling the host', async () => {
    const { calls, call } = recorder();
    const client = createHostClient(call);
    for (const method of HOST_METHODS) {
      const spec = METHODS[method].args;
      const tooMany = Array.from({ length: spec.required.length + spec.optionalArgs.length + 1 }, () => 'x');
      // Deliberately outside the types: what a hostile or buggy caller could still send.
      const result = await (client.call as (m: HostMethod, ...a: unknown[]) => Promise<Result<unknown>>)(method, ...tooMany);
      expect(result, method).toMatchObject({ ok: false, error: { code: 'E_USAGE', message: expect.stringContaining(method) } });
    }
    expect(calls).toEqual([]);
  });

  it('sends the method name and the arguments, without trailing undefined ones', async () => {
    const { calls, call } = recorder();
    const client = createHostClient(call);
    await client.catalogue.index({ offset: 1000, limit: 500 });
    await client.updates.apply(null, undefined);
    await client.run.tool('acme/echo', 'main', { a: 1 });
    expect(calls).toEqual([
      { method: 'catalogue.index', args: [{ offset: 1000, limit: 500 }] },
      { method: 'updates.apply', args: [null] },
      { method: 'run.tool', args: ['acme/echo', 'main', { a: 1 }] },
    ]);
  });

  it('waits for an operation: its Result, or the failure that stopped it from starting', async () => {
    const final: Result<unknown> = { ok: true, value: { applied: true, installed: [], plan: {} } };
    const { calls, call } = recorder((method) =>
      method === 'operations.wait' ? final : { ok: true, value: { operation: 'op_AAAAAAAAAAAAAAAAAAAAAAAA' } },
    );
    const client = createHostClient(call);
    const started = await client.installs.install('acme/echo', { approvedDigest: 'a'.repeat(64) });
    expect(await client.operations.wait(started)).toEqual(final);
    expect(await client.perform('cache.gc')).toEqual(final);
    expect(calls.map((c) => c.method)).toEqual(['installs.install', 'operations.wait', 'cache.gc', 'operations.wait']);
    const refused = { ok: false as const, error: { code: 'E_USAGE' as const, message: 'no' } };
    expect(await client.operations.wait(refused)).toBe(refused);
  });

  it("delivers events, and per operation only that operation's", () => {
    const listeners = new Set<(e: HostEvent) => void>();
    const client = createHostClient(recorder().call, (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    });
    const mine: HostEvent[] = [];
    const all: HostEvent[] = [];
    const stopMine = client.events.onOperation('op_1', (e) => mine.push(e));
    client.events.subscribe((e) => all.push(e));
    const send = (e: HostEvent): void => listeners.forEach((l) => l(e));
    send({ type: 'progress', operation: 'op_1', method: 'installs.install', phase: 'download', done: 1 });
    send({ type: 'progress', operation: 'op_2', method: 'installs.install', phase: 'download', done: 1 });
    send({ type: 'installed-changed' });
    stopMine();
    send({ type: 'operation', operation: 'op_1', method: 'installs.install', state: 'done' });
    expect(mine).toEqual([{ type: 'progress', operation: 'op_1', method: 'installs.install', phase: 'download', done: 1 }]);
    expect(all).toHaveLength(4);
  });
});
