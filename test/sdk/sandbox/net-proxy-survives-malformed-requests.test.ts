// Kept closed ("a tool can crash the host"): `CONNECT host:99999` through the network proxy
// threw an unhandled error and killed the host process (and with it the web host). Each malformed
// or hostile input below goes to a real proxy in a separate host process; after each one the
// process must still be alive and the proxy must still tunnel a valid request.
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROXY_CONNECTIONS, parseProxyPort } from '../../../sdk/src/sandbox/net-proxy.js';
import { spawnTs, waitForLine } from '../../helpers/spawn-ts.js';
import { startListener } from './sandbox-fixture.js';

const HOST_SCRIPT = fileURLToPath(new URL('../../fixtures/proxy-host/proxy-host.ts', import.meta.url));

let host: ChildProcessWithoutNullStreams;
let hostStderr = '';
let proxyPort = 0;
let upstream: { port: number; close(): Promise<void> };
let closedPort = 0;

beforeAll(async () => {
  upstream = await startListener();
  // A granted port where nothing listens (the upstream dial fails).
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  host = await spawnTs(HOST_SCRIPT, [JSON.stringify([`127.0.0.1:${upstream.port}`, `127.0.0.1:${closedPort}`, 'example.invalid'])], {
    cwd: path.dirname(HOST_SCRIPT),
  });
  host.stderr.on('data', (d: Buffer) => (hostStderr += d.toString()));
  const line = await waitForLine(host, (l) => l.startsWith('{'));
  proxyPort = (JSON.parse(line) as { port: number }).port;
});
afterAll(async () => {
  host.kill('SIGKILL');
  await upstream.close();
});

/** Sends raw bytes, then optionally half-closes or resets; resolves with whatever came back before the proxy closed. */
function send(payload: Buffer | string, how: 'wait' | 'half-close' | 'reset' = 'wait', timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(proxyPort, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve(`${data}<timeout>`);
    }, timeoutMs);
    s.on('connect', () => {
      s.write(payload);
      if (how === 'half-close') s.end();
      if (how === 'reset') setImmediate(() => s.resetAndDestroy());
    });
    s.on('data', (d: Buffer) => (data += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

async function expectHostServing(): Promise<void> {
  expect(host.exitCode, `host died: ${hostStderr}`).toBeNull();
  expect(host.signalCode).toBeNull();
  const reply = await send(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
  expect(reply).toMatch(/^HTTP\/1\.1 200/);
  expect(reply).toContain('listener-says-hi');
}

describe('port validation', () => {
  it('accepts only digits from 1 to 65535', () => {
    expect(parseProxyPort('1')).toBe(1);
    expect(parseProxyPort('65535')).toBe(65535);
    for (const bad of ['0', '65536', '99999', '-1', '+80', '8e1', ' 80', '0x50', '', '123456']) expect(parseProxyPort(bad), bad).toBeNull();
  });
});

describe('the proxy keeps serving after hostile input', () => {
  const bad400: Array<[string, string]> = [
    ['a port above 65535', 'CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n'],
    ['port 65536', 'CONNECT 127.0.0.1:65536 HTTP/1.1\r\n\r\n'],
    ['port 0', 'CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n'],
    ['a negative port', 'CONNECT 127.0.0.1:-1 HTTP/1.1\r\n\r\n'],
    ['no port', 'CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n'],
    ['no host', 'CONNECT :443 HTTP/1.1\r\n\r\n'],
    ['an unterminated IPv6 literal', 'CONNECT [::1:443 HTTP/1.1\r\n\r\n'],
    ['a host with a user part', 'CONNECT user@127.0.0.1:443 HTTP/1.1\r\n\r\n'],
    ['an http:// URL with port 0', 'GET http://127.0.0.1:0/ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an http:// URL with port 99999', 'GET http://127.0.0.1:99999/ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an http:// URL with credentials', 'GET http://u:p@127.0.0.1:80/ HTTP/1.1\r\n\r\n'],
    ['a relative request', 'GET /x HTTP/1.1\r\n\r\n'],
    ['a request line with extra spaces', 'CONNECT  127.0.0.1:443  HTTP/1.1\r\n\r\n'],
    ['a request line without a version', 'CONNECT 127.0.0.1:443\r\n\r\n'],
    ['NUL bytes', 'CONNECT 127.0.0.1:4\u000043 HTTP/1.1\r\n\r\n'],
    ['binary garbage', `${String.fromCharCode(...Array.from({ length: 64 }, (_, i) => (i * 37) % 256))}\r\n\r\n`],
  ];
  for (const [what, request] of bad400) {
    it(`answers 400 to ${what}`, async () => {
      expect(await send(request)).toMatch(/^HTTP\/1\.1 400/);
      await expectHostServing();
    });
  }

  it('answers 431 to a request head over 16 KiB, sent in pieces or at once', async () => {
    expect(await send(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\nX: ${'a'.repeat(20 * 1024)}`)).toMatch(/^HTTP\/1\.1 431/);
    expect(await send(Buffer.alloc(1024 * 1024, 'b'))).toMatch(/^HTTP\/1\.1 431/);
    expect(await send(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\nX: ${'c'.repeat(17 * 1024)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    await expectHostServing();
  });

  it('drops a client that half-closes before its request head is complete', async () => {
    expect(await send(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n`, 'half-close')).toBe('');
    await expectHostServing();
  });

  it('survives a client that resets right after its request, while the proxy resolves and dials', async () => {
    await send('CONNECT example.invalid:443 HTTP/1.1\r\n\r\n', 'reset');
    await send(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`, 'reset');
    await send(`CONNECT 127.0.0.1:${closedPort} HTTP/1.1\r\n\r\n`, 'reset');
    await expectHostServing();
  });

  it('answers 502 when a granted upstream refuses, and 403 when a granted name does not resolve', async () => {
    expect(await send(`CONNECT 127.0.0.1:${closedPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 502/);
    expect(await send('CONNECT example.invalid:443 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    await expectHostServing();
  });

  it(`drops connections beyond ${MAX_PROXY_CONNECTIONS} at once and serves again when they are gone`, async () => {
    const idle: net.Socket[] = [];
    await Promise.all(
      Array.from(
        { length: MAX_PROXY_CONNECTIONS + 20 },
        () =>
          new Promise<void>((resolve) => {
            const s = net.connect(proxyPort, '127.0.0.1', () => resolve());
            s.on('error', () => resolve());
            idle.push(s);
          }),
      ),
    );
    for (const s of idle) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectHostServing();
  });
});
