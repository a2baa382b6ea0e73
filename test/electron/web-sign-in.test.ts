import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHostService, type HostService } from '../../electron/host/service.js';
import { startWebHost, type WebHost, type WebHostOptions } from '../../electron/web.js';
import { callOver, connectApi, followSignIn, signIn } from '../helpers/ui-process.js';

/**
 * The one-time sign-in of `arcotheon ui` (SECURITY.md, the local UI server): a code works once and
 * for a few minutes, a second use is refused in words and ends what the first use started, the
 * session is an HttpOnly SameSite=Strict cookie named after the port, and a server restarted on the
 * same home comes back on the same port and honours it.
 */
const running: Array<{ web: WebHost; service: HostService }> = [];

afterEach(async () => {
  for (const { web, service } of running.splice(0)) {
    await web.close();
    await service.close();
  }
});

async function start(home?: string, options: Partial<WebHostOptions> = {}): Promise<{ web: WebHost; home: string }> {
  const dir = home ?? (await mkdtemp(join(tmpdir(), 'adcap-web-signin-')));
  const service = createHostService(new Arcotheon({ home: dir, host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [] }));
  const web = await startWebHost({ service, sessionFile: join(dir, 'ui', 'sessions.json'), ...options });
  running.push({ web, service });
  return { web, home: dir };
}

function sessionStatus(web: WebHost, cookie?: string): Promise<number> {
  return fetch(`${web.origin}/api/session`, { headers: cookie === undefined ? {} : { Cookie: cookie } }).then((r) => r.status);
}

describe('signing in to arcotheon ui', () => {
  it('exchanges a code once for an HttpOnly, SameSite=Strict cookie named after the port', async () => {
    const { web } = await start();
    const answer = await followSignIn(web.signInUrl());
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
    expect(answer.setCookieHeader).toMatch(
      new RegExp(`^arcotheon_session_${web.port}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict$`),
    );
    const cookie = answer.setCookie as string;
    expect(await sessionStatus(web, cookie)).toBe(200);
    expect(await sessionStatus(web)).toBe(401);
    const ws = await connectApi(web.port, cookie);
    expect((await callOver(ws, 1, 'workspaces.list', [])).ok).toBe(true);
    ws.close();
  });

  it('refuses a second use of a code, says what to do, and ends the session the first use started', async () => {
    const { web } = await start();
    const url = web.signInUrl();
    const cookie = await signIn(url);
    const ws = await connectApi(web.port, cookie);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // Someone else replays the code (without the browser's cookie): refused, no cookie, and in words.
    const replay = await followSignIn(url);
    expect(replay.status).toBe(403);
    expect(replay.setCookie).toBeNull();
    expect(replay.body).toContain('This sign-in address was already used');
    expect(replay.body).toContain('<code>arcotheon ui</code>');
    expect(replay.body).toMatch(/press Enter in its terminal for a new address/);
    expect(replay.body).not.toMatch(/<script/i);
    // RFC 6749 §4.1.2: what the first use started ends too, open sockets included.
    expect(await closed).toBe(4401);
    expect(await sessionStatus(web, cookie)).toBe(401);
    await expect(connectApi(web.port, cookie)).rejects.toThrow('HTTP 401');
    // A new address signs in again.
    expect(await sessionStatus(web, await signIn(web.signInUrl()))).toBe(200);
  });

  it('sends a browser that is already signed in on without using the code', async () => {
    const { web } = await start();
    const cookie = await signIn(web.signInUrl());
    const url = web.signInUrl();
    const again = await followSignIn(url, cookie);
    expect(again).toMatchObject({ status: 303, location: '/', setCookie: null });
    // The code is still unused: another browser can use it once.
    expect(await sessionStatus(web, await signIn(url))).toBe(200);
    expect(await sessionStatus(web, cookie)).toBe(200);
  });

  it('refuses an expired code and a code it never made, in words', async () => {
    const { web } = await start(undefined, { signInCodeTtlMs: 100 });
    const url = web.signInUrl();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expired = await followSignIn(url);
    expect(expired.status).toBe(403);
    expect(expired.setCookie).toBeNull();
    expect(expired.body).toContain('This sign-in address has expired');
    const made = new URL(url);
    made.searchParams.set('code', 'A'.repeat(43));
    const unknown = await followSignIn(made.href);
    expect(unknown.status).toBe(403);
    expect(unknown.body).toContain('This sign-in address is not valid');
    expect((await followSignIn(`${web.origin}/signin`)).status).toBe(403);
  });

  it('refuses GET /api/session from another site or under another name', async () => {
    const { web } = await start();
    const cookie = await signIn(web.signInUrl());
    const foreign = await fetch(`${web.origin}/api/session`, { headers: { Cookie: cookie, Origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const rebound = await new Promise<number>((resolve, reject) => {
      const headers = { Host: `rebind.evil.example:${web.port}`, Cookie: cookie };
      const req = request({ host: '127.0.0.1', port: web.port, path: '/api/session', headers }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
  });

  it('comes back on the same port after a restart on the same home, and honours the session', async () => {
    const first = await start();
    const cookie = await signIn(first.web.signInUrl());
    const port = first.web.port;
    const stored = await readFile(join(first.home, 'ui', 'sessions.json'), 'utf8');
    // Only hashes are kept: the cookie's value is not in the file, and only the user may read it.
    expect(stored).not.toContain(cookie.split('=')[1] as string);
    expect((await stat(join(first.home, 'ui', 'sessions.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(first.home, 'ui'))).mode & 0o777).toBe(0o700);
    const old = running.splice(0);
    for (const { web, service } of old) {
      await web.close();
      await service.close();
    }
    const second = await start(first.home);
    expect(second.web.port).toBe(port);
    expect(await sessionStatus(second.web, cookie)).toBe(200);
    const ws = await connectApi(port, cookie);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('does not honour a session on a home that never issued it', async () => {
    const first = await start();
    const cookie = await signIn(first.web.signInUrl());
    const other = await start();
    expect(await sessionStatus(other.web, cookie.replace(`_${first.web.port}=`, `_${other.web.port}=`))).toBe(401);
  });
});
