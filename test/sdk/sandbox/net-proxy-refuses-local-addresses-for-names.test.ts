// Kept closed ("a granted host name reaches the user's own machine"): a name resolving to
// the machine's LAN address reached a local service, and private ranges were not filtered. The
// proxy now refuses, for a granted *name*, every address of this machine (its interfaces,
// loopback) and of the networks around it (private, CGNAT, link-local, unique-local, multicast),
// checked on the address it resolved and then dials; a scope that names the address literally
// still reaches it.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import {
  isForbiddenForName,
  isInternalAddress,
  isOwnAddress,
  parseNetScope,
  resolveDestination,
  startNetProxy,
  type LookupFn,
  type NetProxy,
} from '../../../sdk/src/sandbox/net-proxy.js';
import { makeFixture, parseProbe, runSandboxed, type Fixture } from './sandbox-fixture.js';

describe('addresses a granted name may not resolve to', () => {
  it('are the private, loopback, CGNAT, link-local, multicast and reserved IPv4 ranges', () => {
    for (const ip of [
      '0.0.0.0',
      '10.0.0.1',
      '10.255.255.255',
      '100.64.0.1',
      '100.127.255.254',
      '127.0.0.1',
      '127.8.9.10',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.10',
      '192.0.0.8',
      '198.18.0.1',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
    for (const ip of ['93.184.215.14', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.15.0.1', '172.32.0.1', '192.169.0.1', '11.0.0.1']) {
      expect(isInternalAddress(ip), ip).toBe(false);
    }
  });

  it('are ::, ::1, fc00::/7, fe80::/10, ff00::/8 and internal IPv4 addresses embedded in IPv6', () => {
    for (const ip of [
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'fec0::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.1.2.3',
      '::127.0.0.1',
      '64:ff9b::192.168.0.1',
      '2002:c0a8:0101::1',
      '0:0:0:0:0:0:0:1',
    ]) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
    for (const ip of ['2606:4700::1111', '2001:db8::1', '::ffff:93.184.215.14', '64:ff9b::8.8.8.8', '2002:0808:0808::1']) {
      expect(isInternalAddress(ip), ip).toBe(false);
    }
  });

  it('are reachable only through a scope that names the address itself, never a wildcard', async () => {
    const scopes = ['*.1', '10.0.0.5:5432'].map(parseNetScope);
    expect(await resolveDestination(scopes, '192.168.0.1', 80)).toMatchObject({ ok: false });
    expect(await resolveDestination(scopes, '10.0.0.5', 5432)).toEqual({ ok: true, address: '10.0.0.5' });
  });

  it("include this machine's own interface addresses, whatever their range", () => {
    const own = Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((i) => i.address);
    expect(own.length).toBeGreaterThan(0);
    for (const ip of own) {
      expect(isOwnAddress(ip), ip).toBe(true);
      expect(isForbiddenForName(ip), ip).toBe(true);
    }
    expect(isOwnAddress('93.184.215.14')).toBe(false);
  });
});

/** The first non-loopback IPv4 address of this machine (its "LAN address"). */
function lanAddress(): string {
  const info = Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((i) => i.family === 'IPv4' && !i.internal);
  if (info === undefined) throw new Error('this machine has no non-loopback IPv4 address to test with');
  return info.address;
}

describe('the proxy with real sockets', () => {
  let service: net.Server;
  let servicePort = 0;
  let accepted = 0;
  let proxy: NetProxy;
  const lan = lanAddress();
  // The proxy's resolver seam: names a publisher could point at this machine.
  const lookup: LookupFn = (host) => {
    const table: Record<string, string[]> = { 'svc.test': ['127.0.0.1'], 'lan.test': [lan], 'mixed.test': ['192.168.7.7', '::1'] };
    const answer = table[host];
    return answer === undefined ? Promise.reject(new Error('ENOTFOUND')) : Promise.resolve(answer);
  };

  beforeAll(async () => {
    // A local service on every interface, as a developer's database or admin panel would be.
    service = net.createServer((s) => {
      accepted += 1;
      s.on('error', () => s.destroy());
      s.end('local-service\n');
    });
    await new Promise<void>((resolve) => service.listen(0, '0.0.0.0', resolve));
    servicePort = (service.address() as net.AddressInfo).port;
    proxy = await startNetProxy({
      scopes: [`svc.test:${servicePort}`, `lan.test:${servicePort}`, 'mixed.test', `127.0.0.1:${servicePort}`],
      listen: { port: 0 },
      lookup,
    });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => service.close(resolve));
  });

  const connect = (target: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = net.connect(proxy.port ?? 0, '127.0.0.1', () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
      let data = '';
      s.on('data', (d: Buffer) => (data += d.toString()));
      s.on('end', () => resolve(data));
      s.on('error', reject);
    });

  it('refuses a granted name that resolves to loopback, and never dials it', async () => {
    const before = accepted;
    const reply = await connect(`svc.test:${servicePort}`);
    expect(reply).toMatch(/^HTTP\/1\.1 403/);
    expect(reply).toContain('resolves only to addresses of this computer or its local network');
    expect(accepted).toBe(before);
  });

  it("refuses a granted name that resolves to this machine's LAN address", async () => {
    const before = accepted;
    expect(await connect(`lan.test:${servicePort}`)).toMatch(/^HTTP\/1\.1 403/);
    expect(accepted).toBe(before);
  });

  it('refuses a name whose every answer is private or loopback', async () => {
    expect(await connect(`mixed.test:${servicePort}`)).toMatch(/^HTTP\/1\.1 403/);
  });

  it('reaches the service when the scope names the address literally', async () => {
    const before = accepted;
    const reply = await connect(`127.0.0.1:${servicePort}`);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('local-service');
    expect(accepted).toBe(before + 1);
  });
});

describe('through bubblewrap with the system resolver', () => {
  const sandbox = new BubblewrapSandbox();
  let fx: Fixture;
  let service: net.Server;
  let port = 0;
  beforeAll(async () => {
    expect(await sandbox.available()).toBe(true);
    fx = makeFixture();
    service = net.createServer((s) => {
      s.on('error', () => s.destroy());
      s.end('listener-says-hi\n');
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    port = (service.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => service.close(resolve));
    fx.remove();
  });

  const probe = async (grant: string, connectHost: string): Promise<{ ok: boolean; detail: string | null } | undefined> => {
    const args = [path.join(fx.capabilityDir, 'probe.mjs'), JSON.stringify({ port, connectHost })];
    return parseProbe(await runSandboxed(sandbox, fx.spec([grant], args))).connectViaProxy;
  };

  it('refuses a granted name that the real resolver maps to 127.0.0.1 (the numeric name 2130706433)', async () => {
    const result = await probe(`net:connect:2130706433:${port}`, '2130706433');
    expect(result?.ok).toBe(false);
    expect(result?.detail).toContain('403');
  });

  it('allows the literal 127.0.0.1 scope', async () => {
    expect(await probe(`net:connect:127.0.0.1:${port}`, '127.0.0.1')).toEqual({ ok: true, detail: 'via proxy' });
  });
});
