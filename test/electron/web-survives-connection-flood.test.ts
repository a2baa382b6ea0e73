import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { createHostService, type HostService } from '../../electron/host/service.js';
import { startWebHost, type WebHost } from '../../electron/web.js';
import { LifecycleRegistry } from '../helpers/lifecycle-registry.js';
import { callOver, connectApi, signIn } from '../helpers/ui-process.js';

/**
 * Resource side: a client opening connection after connection, or piling up
 * requests without waiting for answers, is refused past the caps (503 for connections, E_LIMIT for
 * requests in flight) instead of growing the server without bound; everyone else keeps being served.
 */
let service: HostService;
let web: WebHost;
let cookie: string;

beforeAll(async () => {
  const reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/lib', version: '1.0.0' }]);
  service = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-web-flood-')))));
  web = await startWebHost({ service, maxConnections: 3, maxInFlight: 1 });
  cookie = await signIn(web.signInUrl());
});

afterAll(async () => {
  await web.close();
  await service.close();
});

describe('web host survives a connection and request flood', () => {
  it('refuses connections past the cap with 503, and accepts again once one closes', async () => {
    const open: WebSocket[] = [];
    for (let i = 0; i < 3; i++) open.push(await connectApi(web.port, cookie));
    await expect(connectApi(web.port, cookie)).rejects.toThrow('HTTP 503');
    open.pop()?.close();
    while (web.connections() > 2) await new Promise((resolve) => setTimeout(resolve, 10));
    open.push(await connectApi(web.port, cookie));
    expect((await callOver(open[2] as WebSocket, 1, 'workspaces.list', [])).ok).toBe(true);
    for (const ws of open) ws.close();
    while (web.connections() > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('answers requests past the in-flight cap with E_LIMIT instead of queueing them', async () => {
    const ws = await connectApi(web.port, cookie);
    const replies: Array<{ id: number; result: { ok: boolean; error?: { code: string } } }> = [];
    const both = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id?: number; result?: { ok: boolean } };
        if (message.id !== undefined) replies.push(message as (typeof replies)[number]);
        if (replies.length === 2) resolve();
      }),
    );
    // The first needs the disk (the catalogue), so it is still in flight when the second arrives.
    ws.send(JSON.stringify({ id: 1, method: 'catalogue.index', args: [{}] }));
    ws.send(JSON.stringify({ id: 2, method: 'catalogue.index', args: [{}] }));
    await both;
    expect(replies.find((r) => r.id === 2)?.result).toMatchObject({ ok: false, error: { code: 'E_LIMIT' } });
    expect(replies.find((r) => r.id === 1)?.result).toMatchObject({ ok: true });
    // Once answered, the next request is served.
    expect((await callOver(ws, 3, 'workspaces.list', [])).ok).toBe(true);
    ws.close();
  });
});
