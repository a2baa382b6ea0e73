import { request } from 'node:http';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { HostEvent } from '../../electron/common/events.js';
import { createHostService } from '../../electron/host/service.js';
import { startWebHost, type WebHost } from '../../electron/web.js';
import { LifecycleRegistry } from '../helpers/lifecycle-registry.js';
import { SIGN_IN_URL, signIn } from '../helpers/ui-process.js';

/** The host API over a real WebSocket on 127.0.0.1, with the checks DESIGN §8 asks for. */
let reg: LifecycleRegistry;
const hosts: WebHost[] = [];
/** The session cookie of each host, from following one of its sign-in addresses as a browser does. */
const cookies = new Map<WebHost, string>();

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/lib', version: '1.0.0' }]);
});

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function start(staticDir?: string): Promise<WebHost> {
  const home = await mkdtemp(join(tmpdir(), 'adcap-web-'));
  const host = await startWebHost({
    service: createHostService(new Arcotheon(reg.options(home))),
    ...(staticDir === undefined ? {} : { staticDir }),
  });
  hosts.push(host);
  cookies.set(host, await signIn(host.signInUrl()));
  return host;
}

function connect(host: WebHost, cookie = cookies.get(host) ?? '', origin = `http://127.0.0.1:${host.port}`): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api`, { origin, headers: cookie === '' ? {} : { Cookie: cookie } });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** A raw upgrade request, to send headers a WebSocket client library would not (a foreign Host). */
function upgradeStatus(host: WebHost, headers: Record<string, string>, path = '/api'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: host.port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        Cookie: cookies.get(host) ?? '',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 101);
    });
    req.on('response', (res) => resolve(res.statusCode ?? 0));
    req.on('error', reject);
    req.end();
  });
}

function call(
  ws: WebSocket,
  id: number,
  method: string,
  args: unknown[],
): Promise<{ id: unknown; result: { ok: boolean; value?: unknown; error?: { code: string } } }> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData): void => {
      const message = JSON.parse(data.toString()) as { id?: unknown; result?: { ok: boolean } };
      if (message.id === id) {
        ws.off('message', onMessage);
        resolve(message as { id: unknown; result: { ok: boolean } });
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, args }));
  });
}

describe('web host', () => {
  it('makes loopback sign-in addresses, each with a fresh random code', async () => {
    const [a, b] = [await start(), await start()];
    const [first, second] = [a.signInUrl(), a.signInUrl()];
    expect(first.startsWith(`http://127.0.0.1:${a.port}/signin?code=`)).toBe(true);
    expect(first).toMatch(SIGN_IN_URL);
    expect(new Set([first, second, b.signInUrl()]).size).toBe(3);
  });

  it('answers calls with plain results and pushes events to the connected UI', async () => {
    const host = await start();
    const ws = await connect(host);
    const events: HostEvent[] = [];
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { event?: HostEvent };
      if (message.event !== undefined) events.push(message.event);
    });
    expect((await call(ws, 1, 'installs.overview', [])).result).toEqual({ ok: true, value: [] });
    const planned = await call(ws, 2, 'installs.plan', ['acme/lib']);
    const digest = (planned.result.value as { digest: string }).digest;
    // A long method answers with its operation at once; operations.wait gives its Result.
    const started = await call(ws, 3, 'installs.install', ['acme/lib', { approvedDigest: digest }]);
    expect(started.result).toMatchObject({ ok: true, value: { operation: expect.stringMatching(/^op_/) } });
    const installed = await call(ws, 4, 'operations.wait', [(started.result.value as { operation: string }).operation]);
    expect(installed.result).toMatchObject({ ok: true, value: { applied: true } });
    expect(events.some((e) => e.type === 'installed-changed')).toBe(true);
    expect(events.some((e) => e.type === 'progress' && e.phase === 'download')).toBe(true);
    ws.close();
  });

  it('answers a malformed message with E_PROTOCOL and an unknown method with E_USAGE', async () => {
    const ws = await connect(await start());
    const reply = await new Promise<{ result: { error: { code: string } } }>((resolve) => {
      ws.once('message', (data) => resolve(JSON.parse(data.toString()) as { result: { error: { code: string } } }));
      ws.send('not json');
    });
    expect(reply.result.error.code).toBe('E_PROTOCOL');
    expect((await call(ws, 7, 'fs.readFile', ['/etc/passwd'])).result).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    ws.close();
  });

  it('refuses an upgrade without a session, or with a wrong one (401)', async () => {
    const host = await start();
    const cookie = cookies.get(host) as string;
    await expect(connect(host, '')).rejects.toThrow('HTTP 401');
    // The real session with its last character changed (to one it is not: a value may end in x).
    const wrong = `${cookie.slice(0, -1)}${cookie.endsWith('x') ? 'y' : 'x'}`;
    await expect(connect(host, wrong)).rejects.toThrow('HTTP 401');
    // The right value under another port's name: the cookie is bound to its port.
    await expect(connect(host, cookie.replace(`_${host.port}=`, `_${host.port + 1}=`))).rejects.toThrow('HTTP 401');
    // Another server's session is not this one's.
    const other = await start();
    await expect(connect(host, (cookies.get(other) as string).replace(`_${other.port}=`, `_${host.port}=`))).rejects.toThrow('HTTP 401');
    expect((await connect(host, cookie)).readyState).toBe(WebSocket.OPEN);
  });

  it('refuses a foreign Origin: a web page trying the socket from another site (403)', async () => {
    const host = await start();
    await expect(connect(host, cookies.get(host), 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(connect(host, cookies.get(host), `http://127.0.0.1:${host.port + 1}`)).rejects.toThrow('HTTP 403');
  });

  it('refuses a foreign Host header: DNS rebinding (403)', async () => {
    const host = await start();
    expect(await upgradeStatus(host, { Host: `rebind.evil.example:${host.port}` })).toBe(403);
    expect(await upgradeStatus(host, { Host: `127.0.0.1:${host.port}` })).toBe(101);
    expect(await upgradeStatus(host, { Host: `127.0.0.1:${host.port}` }, '/elsewhere')).toBe(404);
  });

  it('serves the built UI with a strict CSP, and nothing outside it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-web-static-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Arcotheon</title>');
    await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(dir, '..', 'adcap-web-secret.txt'), 'secret');
    const host = await start(dir);
    const get = async (
      path: string,
      hostHeader = `127.0.0.1:${host.port}`,
    ): Promise<{ status: number; type: string | null; csp: string | null; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: host.port, path, headers: { Host: hostHeader } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: res.headers['content-type'] ?? null,
              csp: (res.headers['content-security-policy'] as string | undefined) ?? null,
              body,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const index = await get('/');
    expect(index).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html><title>Arcotheon</title>' });
    expect(index.csp).toContain("default-src 'self'");
    expect(await get('/assets/app.js')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
    // Dot segments, plain or percent-encoded, never reach outside the folder.
    for (const path of [
      '/../adcap-web-secret.txt',
      '/%2e%2e/adcap-web-secret.txt',
      '/assets/..%2f..%2fadcap-web-secret.txt',
      '/..%5cadcap-web-secret.txt',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.body, path).not.toContain('secret');
    }
    expect((await get('/', `rebind.evil.example:${host.port}`)).status).toBe(403);
    expect((await get('/missing.js')).status).toBe(404);
    // A link inside the build that leads outside it is refused after resolving it (realpath containment).
    await symlink(join(dir, '..', 'adcap-web-secret.txt'), join(dir, 'assets', 'leak.txt'));
    await symlink(join(dir, '..'), join(dir, 'up'));
    for (const path of ['/assets/leak.txt', '/up/adcap-web-secret.txt']) {
      const res = await get(path);
      expect(res.status, path).toBe(403);
      expect(res.body, path).not.toContain('secret');
    }
    // Pages carry the strict policy: no inline script, no eval, sockets only to this server.
    expect(index.csp).toContain("script-src 'self';");
    expect(index.csp).toContain(`connect-src 'self' ws://127.0.0.1:${host.port} ws://localhost:${host.port};`);
    expect(index.csp).not.toMatch(/unsafe-inline|unsafe-eval|ws:\/\/127\.0\.0\.1:\*/);
  });

  it("sends the page's own scripts and stylesheet with it as preloads (Link), nothing else", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-web-preload-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(
      join(dir, 'index.html'),
      '<!doctype html><head><script type="module" crossorigin src="./assets/start-Ab1.js"></script>\n' +
        '<script type="module" crossorigin src="./assets/index-Cd2.js"></script>\n' +
        '<link rel="stylesheet" crossorigin href="./assets/index-Ef3.css">\n' +
        '<script type="module" src="https://cdn.example/x.js"></script><link rel="icon" href="data:,"></head>',
    );
    const host = await start(dir);
    const res = await fetch(`${host.origin}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe(
      '<./assets/start-Ab1.js>; rel=modulepreload, <./assets/index-Cd2.js>; rel=modulepreload, ' +
        '<./assets/index-Ef3.css>; rel=preload; as=style; crossorigin',
    );
    expect(await res.text()).toContain('index-Cd2.js');
    // Other files are served as before, without it.
    await writeFile(join(dir, 'assets', 'index-Cd2.js'), 'export {}');
    expect((await fetch(`${host.origin}/assets/index-Cd2.js`)).headers.get('link')).toBeNull();
  });

  it("answers Discover's first page over HTTP as the socket does, only to this origin's signed-in browser", async () => {
    const host = await start();
    const cookie = cookies.get(host) ?? '';
    // node:http, not fetch: fetch does not send a Host header of the caller's choosing.
    const get = (path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const res = await fetch(`${host.origin}/api/catalogue-index?limit=1`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = (await res.json()) as { ok: boolean; value: { rows: unknown[][]; total: number; revision: string } };
    expect(page.ok).toBe(true);
    expect(page.value.rows.map((row) => row[0])).toEqual(['acme/lib']);
    // The very answer the socket gives to catalogue.index({ limit: 1 }).
    const ws = await connect(host);
    const overSocket = await call(ws, 1, 'catalogue.index', [{ limit: 1 }]);
    ws.close();
    expect(overSocket.result).toEqual(page);
    // Not signed in, a wrong session, another site's page, another Host name: refused, with no data.
    for (const [headers, status] of [
      [{}, 401],
      [{ Cookie: `${host.cookieName}=${'x'.repeat(43)}` }, 401],
      [{ Cookie: cookie, Origin: 'http://evil.example' }, 403],
      [{ Cookie: cookie, Host: `rebind.evil.example:${host.port}` }, 403],
    ] as const) {
      const refused = await get('/api/catalogue-index?limit=1', headers);
      expect(refused.status, JSON.stringify(headers)).toBe(status);
      expect(refused.body).not.toContain('acme/lib');
    }
    for (const limit of ['', '0', '-1', '1.5', 'abc', '1e3', '10000000']) {
      expect((await get(`/api/catalogue-index?limit=${limit}`, { Cookie: cookie })).status, limit).toBe(400);
    }
    const post = await fetch(`${host.origin}/api/catalogue-index?limit=1`, { method: 'POST', headers: { Cookie: cookie } });
    expect(post.status).toBe(405);
  });
});
