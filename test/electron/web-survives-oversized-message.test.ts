import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApi, startUiProcess, stillServes, stopUiProcess, type UiProcess } from '../helpers/ui-process.js';

/**
 * An over-size message crashed `arcotheon ui` (ws reports it as an 'error' on the
 * socket, and nothing listened). Now only that client is closed (1009, message too big) and the
 * server keeps serving.
 */
let ui: UiProcess;

beforeAll(async () => {
  ui = await startUiProcess();
});

afterAll(async () => {
  await stopUiProcess(ui);
});

describe('arcotheon ui survives an oversized message', () => {
  it('closes the sender with 1009 and keeps serving everyone else', async () => {
    const bystander = await connectApi(ui.port, ui.cookie);
    const ws = await connectApi(ui.port, ui.cookie);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ id: 1, method: 'host.info', args: ['x'.repeat(5 * 1024 * 1024)] }));
    expect(await closed).toBe(1009);
    expect(ui.alive(), ui.stderr()).toBe(true);
    expect(bystander.readyState).toBe(bystander.OPEN);
    bystander.close();
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
  });
});
