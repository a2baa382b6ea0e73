import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Long operations: the id comes back at once, progress events carry it, the final
 * `operation` event carries the Result, and cancelling stops the SDK through its AbortSignal with
 * nothing installed.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  // 24 MiB of incompressible bytes: download, verify and extraction take long enough to cancel.
  await reg.publishAll([{ id: 'acme/big', version: '1.0.0', padding: 24 * 1024 * 1024 }]);
});

async function service() {
  const home = await mkdtemp(join(tmpdir(), 'adcap-host-ops-'));
  const host = createHostService(new Arcotheon(reg.options(home)));
  const events: HostEvent[] = [];
  host.subscribe((e) => events.push(e));
  return { host, events, client: host.api };
}

describe('host operations', () => {
  it('returns the id at once, streams ordered progress for it, and ends with the Result', async () => {
    const { client, events } = await service();
    const plan = await client.installs.plan('acme/big');
    if (!plan.ok) throw new Error(plan.error.message);
    const started = await client.installs.install('acme/big', { approvedDigest: plan.value.digest });
    if (!started.ok) throw new Error(started.error.message);
    // The answer is the operation, before the 24 MiB are through.
    expect(events.filter((e) => e.type === 'progress')).toEqual([]);
    const result = await client.operations.wait(started);
    expect(result).toMatchObject({ ok: true, value: { applied: true } });
    const mine = events.filter((e) => 'operation' in e && e.operation === started.value.operation);
    expect(mine[0]).toEqual({ type: 'operation', operation: started.value.operation, method: 'installs.install', state: 'running' });
    expect(mine.at(-1)).toMatchObject({ type: 'operation', state: 'done', result });
    const downloads = mine.filter((e) => e.type === 'progress' && e.phase === 'download');
    expect(downloads.length).toBeGreaterThan(1);
    const done = downloads.map((e) => (e.type === 'progress' ? e.done : -1));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    const listed = await client.operations.list();
    expect(listed).toMatchObject({
      ok: true,
      value: [{ operation: started.value.operation, state: 'done', label: 'Install acme/big', finishedAt: expect.any(String) }],
    });
  });

  it('cancels an install part-way: the operation ends cancelled and nothing is installed', async () => {
    const { client, events } = await service();
    const plan = await client.installs.plan('acme/big');
    if (!plan.ok) throw new Error(plan.error.message);
    const started = await client.installs.install('acme/big', { approvedDigest: plan.value.digest });
    if (!started.ok) throw new Error(started.error.message);
    // Cancel once the download is under way.
    await new Promise<void>((resolve) => {
      const check = (): void =>
        events.some((e) => e.type === 'progress' && e.operation === started.value.operation) ? resolve() : void setTimeout(check, 5);
      check();
    });
    expect(await client.operations.cancel(started.value.operation)).toEqual({ ok: true, value: { cancelled: true } });
    const result = await client.operations.wait(started);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'E_CANCELLED', message: expect.stringMatching(/cancelled/), details: { cancelled: true } },
    });
    expect(events.at(-1)).toMatchObject({ type: 'operation', operation: started.value.operation, state: 'cancelled' });
    expect(await client.installs.overview()).toEqual({ ok: true, value: [] });
    // Cancelling again, or an unknown operation.
    expect(await client.operations.cancel(started.value.operation)).toEqual({ ok: true, value: { cancelled: false } });
    expect(await client.operations.cancel('op_AAAAAAAAAAAAAAAAAAAAAAAA')).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });

  it('refuses to cancel what cannot stop part-way (a doctor run)', async () => {
    const { client } = await service();
    const started = await client.doctor.run();
    if (!started.ok) throw new Error(started.error.message);
    expect(await client.operations.cancel(started.value.operation)).toEqual({ ok: true, value: { cancelled: false } });
    expect(await client.operations.wait(started)).toMatchObject({ ok: true, value: { ok: true } });
  });
});
