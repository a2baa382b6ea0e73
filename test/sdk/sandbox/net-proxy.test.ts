// The host-side filtering proxy behind scoped net:connect (DESIGN §5).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isInternalAddress,
  matchingScope,
  parseNetScope,
  resolveDestination,
  startNetProxy,
  type NetProxy,
} from '../../../sdk/src/sandbox/net-proxy.js';
import { startListener } from './sandbox-fixture.js';

describe('net:connect scopes', () => {
  it('parses host, *.host, host:port and [v6]:port', () => {
    expect(parseNetScope('api.example.com')).toEqual({ host: 'api.example.com', wildcard: false, port: null });
    // The proxy accepts exactly the validator's grammar (lower-case names only).
    expect(() => parseNetScope('API.Example.com')).toThrow();
    expect(parseNetScope('*.example.com')).toEqual({ host: 'example.com', wildcard: true, port: null });
    expect(parseNetScope('example.com:8443')).toEqual({ host: 'example.com', wildcard: false, port: 8443 });
    expect(parseNetScope('[::1]:443')).toEqual({ host: '::1', wildcard: false, port: 443 });
    expect(() => parseNetScope('example.com:99999')).toThrow();
    expect(() => parseNetScope('a.*.com')).toThrow();
  });

  it('matches exactly the named host; a wildcard matches sub-domains but not the apex', () => {
    const scopes = ['api.example.com', '*.cdn.test', 'db.internal:5432'].map(parseNetScope);
    expect(matchingScope(scopes, 'api.example.com', 443)).not.toBeNull();
    expect(matchingScope(scopes, 'API.EXAMPLE.COM.', 80)).not.toBeNull();
    expect(matchingScope(scopes, 'evil-api.example.com', 443)).toBeNull();
    expect(matchingScope(scopes, 'api.example.com.evil.test', 443)).toBeNull();
    expect(matchingScope(scopes, 'a.b.cdn.test', 443)).not.toBeNull();
    expect(matchingScope(scopes, 'cdn.test', 443)).toBeNull();
    expect(matchingScope(scopes, 'db.internal', 5432)).not.toBeNull();
    expect(matchingScope(scopes, 'db.internal', 22)).toBeNull();
  });

  it('refuses a granted name that resolves to loopback or link-local (DNS rebinding, cloud metadata)', async () => {
    const scopes = ['api.example.com', 'localhost:8080'].map(parseNetScope);
    const lookup = (answers: string[]) => () => Promise.resolve(answers);
    expect(await resolveDestination(scopes, 'api.example.com', 443, lookup(['127.0.0.1']))).toMatchObject({ ok: false });
    expect(await resolveDestination(scopes, 'api.example.com', 443, lookup(['169.254.169.254']))).toMatchObject({ ok: false });
    expect(await resolveDestination(scopes, 'api.example.com', 443, lookup(['::ffff:127.0.0.1', '93.184.215.14']))).toEqual({
      ok: true,
      address: '93.184.215.14',
    });
    expect(await resolveDestination(scopes, 'localhost', 8080, lookup(['127.0.0.1']))).toEqual({ ok: true, address: '127.0.0.1' });
    expect(await resolveDestination(scopes, 'other.test', 443, lookup(['93.184.215.14']))).toMatchObject({ ok: false });
    expect(isInternalAddress('10.0.0.1')).toBe(true); // private ranges are internal now
    expect(isInternalAddress('fe80::1')).toBe(true);
  });
});

describe('filtering proxy', () => {
  let upstream: { port: number; close(): Promise<void> };
  let proxy: NetProxy;
  const decisions: boolean[] = [];
  beforeAll(async () => {
    upstream = await startListener();
    proxy = await startNetProxy({
      scopes: [`127.0.0.1:${upstream.port}`],
      listen: { port: 0 },
      onDecision: (d) => decisions.push(d.allowed),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  const ask = (request: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = net.connect(proxy.port ?? 0, '127.0.0.1', () => s.write(request));
      let data = '';
      s.on('data', (d) => (data += d.toString()));
      s.on('end', () => resolve(data));
      s.on('error', reject);
    });

  it('tunnels CONNECT to a granted host:port', async () => {
    const reply = await ask(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('listener-says-hi');
  });

  it('refuses CONNECT to anything else with 403 and never dials it', async () => {
    const before = decisions.length;
    expect(await ask(`CONNECT 127.0.0.1:${upstream.port + 1} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await ask('CONNECT example.com:443 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    expect(decisions.slice(before)).toEqual([false, false]);
  });

  it('forwards absolute-form http:// requests only to granted hosts', async () => {
    const ok = await ask(`GET http://127.0.0.1:${upstream.port}/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(ok).toContain('listener-says-hi');
    expect(await ask('GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    expect(await ask('GET /relative HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  });
});
