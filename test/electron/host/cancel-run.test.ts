import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, buildSignedPackage, publishPackage } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../electron/common/types.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Cancelling a run by hand (issue 10): a tool that never answers is stopped through the SDK's
 * AbortSignal when the user cancels; the operation ends cancelled, long before the tool's timeout.
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
  it('stops a tool that never answers and ends the operation cancelled', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-cancel-home-')))));
    const events: HostEvent[] = [];
    host.subscribe((e) => events.push(e));
    const plan = await host.api.installs.plan('acme/hang');
    if (!plan.ok) throw new Error(plan.error.message);
    expect((await host.api.perform('installs.install', 'acme/hang', { approvedDigest: plan.value.digest })).ok).toBe(true);

    const started = await host.api.run.tool('acme/hang', 'hang', {});
    if (!started.ok) throw new Error(started.error.message);
    // Let the tool start, then cancel.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const list = await host.api.operations.list();
    expect(list.ok && list.value.find((o) => o.operation === started.value.operation)?.state).toBe('running');
    const began = Date.now();
    expect(await host.api.operations.cancel(started.value.operation)).toEqual({ ok: true, value: { cancelled: true } });
    const result = await host.api.operations.wait(started);
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED', details: { cancelled: true } } });
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(events.at(-1)).toMatchObject({ type: 'operation', operation: started.value.operation, state: 'cancelled' });
    await host.close();
  });
});
