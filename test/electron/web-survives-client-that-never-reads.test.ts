import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostService, type HostService } from '../../electron/host/service.js';
import { startWebHost, type WebHost } from '../../electron/web.js';
import { LifecycleRegistry } from '../helpers/lifecycle-registry.js';
import { closedWithin, maskedTextFrame, rawWebSocket, signIn, stillServes } from '../helpers/ui-process.js';

/**
 * A client that sends requests but never reads the replies would make the server
 * hold every unread reply in memory. Past the cap of unread bytes the client is dropped; the server
 * keeps serving. The replies here are real: a tool's 512 KiB output, read back with operations.wait.
 */
let reg: LifecycleRegistry;
let service: HostService;
let web: WebHost;
let cookie: string;
const CAP = 1024 * 1024;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/echo', version: '1.0.0', tool: true }]);
  const home = await mkdtemp(join(tmpdir(), 'adcap-web-noread-'));
  service = createHostService(new Arcotheon(reg.options(home)));
  const plan = await service.api.installs.plan('acme/echo');
  if (!plan.ok) throw new Error(plan.error.message);
  const installed = await service.api.operations.wait(
    await service.api.installs.install('acme/echo', { approvedDigest: plan.value.digest }),
  );
  if (!installed.ok) throw new Error(installed.error.message);
  web = await startWebHost({ service, maxBufferedBytes: CAP });
  cookie = await signIn(web.signInUrl());
});

afterAll(async () => {
  await web.close();
  await service.close();
});

describe('web host survives a client that never reads', () => {
  it('drops the client once its unread replies pass the cap, and keeps serving', async () => {
    const run = await service.api.run.tool('acme/echo', 'main', { pad: 'x'.repeat(512 * 1024) });
    if (!run.ok) throw new Error(run.error.message);
    const finished = await service.api.operations.wait(run);
    expect(finished.ok).toBe(true);

    const socket = await rawWebSocket(web.port, cookie);
    socket.on('error', () => undefined);
    socket.pause();
    // Each answer is the tool's whole 512 KiB output; 200 of them (100 MiB) are far past what the
    // kernel's socket buffers hold, so the unread bytes pile up on the server until it drops us.
    for (let id = 0; id < 200; id++)
      socket.write(maskedTextFrame(JSON.stringify({ id, method: 'operations.wait', args: [run.value.operation] })));
    const deadline = Date.now() + 20_000;
    while (web.connections() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(web.connections()).toBe(0);
    expect(await closedWithin(socket, 10_000)).toBe(true);
    expect(await stillServes(web.port, cookie)).toBe(true);
  });
});
