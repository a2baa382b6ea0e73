import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, buildSignedPackage, publishPackage } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostClient } from '../../../electron/common/client.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Cancelling a run by hand: a tool that never answers is stopped through the SDK's
 * AbortSignal when the user cancels; the operation ends cancelled, long before the tool's timeout,
 * with the one cancel code of DESIGN §9 (E_CANCELLED) from the SDK through the host service and the
 * WebSocket to the typed client the renderer uses.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.registry.addPublisher('acme');
  const src = await mkdtemp(join(tmpdir(), 'adcap-cancel-src-'));
  await mkdir(join(src, 'tools'));
  // Reads its call and then waits forever (well past the 30 s timeout the test stays under).
  await writeFile(join(src, 'tools', 'hang.mjs'), "process.stdin.once('data', () => setInterval(() => {}, 1000));\n");
  await writeFile(
    join(src, 'capability.json'),
    JSON.stringify({
      adcap: '1.0',
      id: 'acme/hang',
      version: '1.0.0',
      name: 'Hang',
      summary: 'A tool that never answers.',
      compat: { agents: { arcotheon: '*' } },
      tools: [
        {
          name: 'hang',
          description: 'Never answers.',
          runtime: { type: 'node', entry: 'tools/hang.mjs' },
          inputSchema: { type: 'object' },
          timeoutMs: 30_000,
        },
      ],
    }),
  );
  const out = join(src, '..', `hang-${Date.now()}.adcap`);
  await buildSignedPackage(src, { out, keys: [reg.registry.keyOf('acme')] });
  await publishPackage(reg.registry.dir, out);
  await reg.registry.build();
});

describe('cancelling a tool run', () => {
  it('stops a tool that never answers; the client of the renderer sees E_CANCELLED (never E_DENIED), state cancelled', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-cancel-home-')))));
    // DESIGN §9 across the boundary: the renderer's typed client, whose calls and events reach it as
    // a transport carries them (serialised data only, as over IPC or the WebSocket), through the
    // service's dispatch; client-over-websocket.test.ts runs the same client over the real socket.
    const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    const client = createHostClient(
      async (method, args) => wire(await host.dispatch(method, wire(args))),
      (listener) => host.subscribe((event) => listener(wire(event))),
    );
    const events: HostEvent[] = [];
    client.events.subscribe((e) => events.push(e));
    try {
      const plan = await client.installs.plan('acme/hang');
      if (!plan.ok) throw new Error(plan.error.message);
      // A refused approval is E_DENIED: a plan digest the user never saw.
      expect(await client.perform('installs.install', 'acme/hang', { approvedDigest: '0'.repeat(64) })).toMatchObject({
        ok: false,
        error: { code: 'E_DENIED' },
      });
      expect((await client.perform('installs.install', 'acme/hang', { approvedDigest: plan.value.digest })).ok).toBe(true);

      const started = await client.run.tool('acme/hang', 'hang', {});
      if (!started.ok) throw new Error(started.error.message);
      // Let the tool start, then cancel.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const list = await client.operations.list();
      expect(list.ok && list.value.find((o) => o.operation === started.value.operation)?.state).toBe('running');
      const began = Date.now();
      expect(await client.operations.cancel(started.value.operation)).toEqual({ ok: true, value: { cancelled: true } });
      const result = await client.operations.wait(started);
      expect(result).toMatchObject({ ok: false, error: { code: 'E_CANCELLED', details: { cancelled: true, cause: 'E_CANCELLED' } } });
      expect(Date.now() - began).toBeLessThan(10_000);
      await expect.poll(() => events.at(-1)).toMatchObject({ type: 'operation', operation: started.value.operation, state: 'cancelled' });
    } finally {
      await host.close();
    }
  });
});
