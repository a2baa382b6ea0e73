import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket, startUiProcess, stillServes, stopUiProcess, upgradeRequest, type UiProcess } from '../helpers/ui-process.js';

/**
 * An upgrade request without a session followed by a TCP reset crashed
 * `arcotheon ui` (the refusal was written to a socket that had no error handler). Against the
 * real process: many refused upgrades, each reset at once, and the server keeps serving.
 */
let ui: UiProcess;

beforeAll(async () => {
  ui = await startUiProcess();
});

afterAll(async () => {
  await stopUiProcess(ui);
});

describe('arcotheon ui survives a reset during a refused upgrade', () => {
  it('keeps serving after upgrades without a session that are reset before, during and after the refusal', async () => {
    for (let i = 0; i < 30; i++) {
      const socket = await rawSocket(ui.port);
      socket.on('error', () => undefined);
      socket.write(upgradeRequest(ui.port, i % 3 === 0 ? null : `arcotheon_session_${ui.port}=wrong`));
      // Reset (RST, not FIN) at different moments relative to the server's refusal.
      if (i % 2 === 0) socket.resetAndDestroy();
      else setTimeout(() => socket.resetAndDestroy(), i % 5);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ui.alive(), ui.stderr()).toBe(true);
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
  });

  it('keeps serving after a reset in the middle of the request headers', async () => {
    const socket = await rawSocket(ui.port);
    socket.on('error', () => undefined);
    socket.write(upgradeRequest(ui.port, null).slice(0, 40));
    socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ui.alive(), ui.stderr()).toBe(true);
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
  });
});
