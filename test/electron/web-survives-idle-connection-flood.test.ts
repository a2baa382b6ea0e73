import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOver, connectApi, rawSocket, signIn, startUiProcess, stopUiProcess, type UiProcess } from '../helpers/ui-process.js';

/**
 * The attack (SECURITY.md, the local UI server): connections before authentication were
 * unbounded, so 1,100 idle TCP connections to `arcotheon ui` used up its descriptors (1,024 on many
 * systems) and the real user's sign-in and WebSocket failed. Now connections that are not a
 * signed-in WebSocket are capped (the oldest idle one is closed past the cap) and each is closed
 * after a few seconds without a request in progress, apart from the signed-in sockets' own cap.
 * Against the real process under a 1,024-descriptor limit (prlimit), with a bounded flood.
 */
const FLOOD = 1100;
let ui: UiProcess;
const flood: Socket[] = [];

beforeAll(async () => {
  ui = await startUiProcess({ prefix: ['prlimit', '--nofile=1024:1024'], signIn: false });
});

afterAll(async () => {
  for (const socket of flood) socket.destroy();
  await stopUiProcess(ui);
});

describe('arcotheon ui survives a flood of idle connections', () => {
  it('still signs the real user in and opens their WebSocket while 1,100 idle connections are open', async () => {
    for (let i = 0; i < FLOOD; i++) {
      const socket = await rawSocket(ui.port);
      socket.on('error', () => undefined);
      flood.push(socket);
    }
    // Let the server accept them all (it sees them in the order they came).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    const cookie = await signIn(await ui.newAddress());
    const ws = await connectApi(ui.port, cookie);
    expect((await callOver(ws, 1, 'workspaces.list', [])).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    ws.close();
    expect(ui.alive(), ui.stderr()).toBe(true);
  });

  it('closes the idle ones: past the cap at once, the rest after the idle timeout', async () => {
    const open = (): number => flood.filter((s) => !s.destroyed && !s.readableEnded).length;
    for (const socket of flood) socket.resume();
    // At most 64 unauthenticated connections are kept; each is closed 10 s after its last request.
    const deadline = Date.now() + 20_000;
    while (open() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(open()).toBe(0);
  }, 30_000);
});
