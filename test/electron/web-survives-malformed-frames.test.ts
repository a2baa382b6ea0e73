import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closedWithin,
  maskedTextFrame,
  rawWebSocket,
  replyWithId,
  startUiProcess,
  stillServes,
  stopUiProcess,
  type UiProcess,
} from '../helpers/ui-process.js';

/**
 * Malformed WebSocket frames (an unmasked client frame, a reserved opcode, RSV
 * bits without an extension, invalid UTF-8 in a text frame, a frame length past the cap) are
 * protocol errors on that connection only: it is closed, and the server keeps serving.
 */
let ui: UiProcess;

beforeAll(async () => {
  ui = await startUiProcess();
});

afterAll(async () => {
  await stopUiProcess(ui);
});

const MALFORMED: Record<string, Buffer> = {
  'an unmasked client frame': Buffer.from([0x81, 0x02, 0x7b, 0x7d]),
  'a reserved opcode': Buffer.from([0x83, 0x80, 1, 2, 3, 4]),
  'RSV1 set without an extension': Buffer.from([0xc1, 0x80, 1, 2, 3, 4]),
  'invalid UTF-8 in a text frame': (() => {
    const frame = maskedTextFrame('ab');
    frame[frame.length - 2] = 0xff ^ 0x12;
    return frame;
  })(),
  'a 64-bit length far past the cap': Buffer.from([0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
  'a fragmented control frame': Buffer.from([0x09, 0x80, 1, 2, 3, 4]),
};

describe('arcotheon ui survives malformed frames', () => {
  for (const [what, bytes] of Object.entries(MALFORMED)) {
    it(`drops a client that sends ${what}`, async () => {
      const socket = await rawWebSocket(ui.port, ui.cookie);
      socket.on('error', () => undefined);
      socket.write(bytes);
      expect(await closedWithin(socket, 5000)).toBe(true);
      expect(ui.alive(), ui.stderr()).toBe(true);
    });
  }

  it('still answers a well-formed frame after all of that', async () => {
    const socket = await rawWebSocket(ui.port, ui.cookie);
    const reply = replyWithId(socket, 5);
    socket.write(maskedTextFrame(JSON.stringify({ id: 5, method: 'workspaces.list', args: [] })));
    expect(await reply).toEqual({ id: 5, result: { ok: true, value: [] } });
    socket.destroy();
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
  });
});
