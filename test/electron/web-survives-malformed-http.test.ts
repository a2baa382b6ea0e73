import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedWithin, rawSocket, startUiProcess, stillServes, stopUiProcess, type UiProcess } from '../helpers/ui-process.js';

/**
 * A client that does not speak HTTP (binary noise, a broken request line, a
 * header flood, a handshake with a broken WebSocket key) loses its connection; the server keeps
 * serving.
 */
let ui: UiProcess;

beforeAll(async () => {
  ui = await startUiProcess();
});

afterAll(async () => {
  await stopUiProcess(ui);
});

describe('arcotheon ui survives malformed HTTP', () => {
  const attacks: Record<string, (port: number, cookie: string) => Buffer> = {
    'binary noise': () => Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256)),
    'a broken request line': () => Buffer.from('GET\0/ HTTP/9.9\r\n\r\n'),
    'a header flood': (port) => Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${'X-A: b\r\n'.repeat(20_000)}\r\n`),
    'a handshake with a broken key': (port, cookie) =>
      Buffer.from(
        `GET /api HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\n` +
          'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n',
      ),
    'a handshake with a bad version': (port, cookie) =>
      Buffer.from(
        `GET /api HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\nUpgrade: ` +
          'websocket\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
    'a malformed URL': (port) => Buffer.from(`GET /%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
  };
  for (const [what, bytes] of Object.entries(attacks)) {
    it(`drops a client sending ${what}`, async () => {
      const socket = await rawSocket(ui.port);
      socket.on('error', () => undefined);
      socket.write(bytes(ui.port, ui.cookie));
      socket.end();
      expect(await closedWithin(socket, 5000)).toBe(true);
      expect(ui.alive(), ui.stderr()).toBe(true);
    });
  }

  it('still serves afterwards', async () => {
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
  });
});
