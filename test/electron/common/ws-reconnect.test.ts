import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, buildSignedPackage, publishPackage } from '@arcotheon/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  apiUrl,
  connectHostSocket,
  connectReconnecting,
  sessionStatus,
  type ConnectionState,
  type ReconnectingHost,
  type SessionStatus,
  type WebSocketLike,
} from '../../../electron/common/ws-transport.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { startWebHost, type WebHost } from '../../../electron/web.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { followSignIn, signIn } from '../../helpers/ui-process.js';

/**
 * The browser's client of `arcotheon ui` keeps working across a dropped socket and a server
 * restart on the same home (same port, the session honoured), and stops with `signed-out` when
 * the server no longer accepts the browser (docs/host-api.md, "Sessions"). Real servers, real
 * sockets; the "browser" is the ws package sending the cookie, as a browser's cookie jar does.
 */
const cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(home: string): Promise<{ web: WebHost; service: HostService }> {
  const service = createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [] }));
  const web = await startWebHost({ service, sessionFile: join(home, 'ui', 'sessions.json') });
  return { web, service };
}

function client(web: WebHost, cookie: string): ReconnectingHost {
  const origin = web.origin;
  const host = connectReconnecting({
    url: apiUrl(origin),
    create: (url) => new WebSocket(url, { origin, headers: { Cookie: cookie } }) as unknown as WebSocketLike,
    session: () => sessionStatus(origin, (url) => fetch(url, { headers: { Cookie: cookie } })),
    delays: [50, 100, 200],
  });
  cleanup.push(() => host.close());
  return host;
}

function until(
  host: ReconnectingHost,
  kind: ConnectionState['kind'],
  ms = 10_000,
  also: (state: ConnectionState) => boolean = () => true,
): Promise<ConnectionState> {
  return new Promise((resolve, reject) => {
    if (host.state().kind === kind && also(host.state())) return resolve(host.state());
    const timer = setTimeout(() => reject(new Error(`still ${host.state().kind}, not ${kind}, after ${ms} ms`)), ms);
    const stop = host.onState((state) => {
      if (state.kind !== kind || !also(state)) return;
      clearTimeout(timer);
      stop();
      resolve(state);
    });
  });
}

describe('the reconnecting browser client', () => {
  it("takes the socket the page's first script opened as its first, and opens its own when that one could not be had", async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-ws-first-'));
    const running = await serve(home);
    cleanup.push(async () => {
      await running.web.close();
      await running.service.close();
    });
    const cookie = await signIn(running.web.signInUrl());
    const origin = running.web.origin;
    let created = 0;
    const create = (url: string): WebSocketLike => {
      created++;
      return new WebSocket(url, { origin, headers: { Cookie: cookie } }) as unknown as WebSocketLike;
    };
    const session = (): Promise<SessionStatus> => sessionStatus(origin, (url) => fetch(url, { headers: { Cookie: cookie } }));
    // The early socket (renderer/src/start.ts) is used, with what was asked on it before.
    const early = await connectHostSocket(apiUrl(origin), create);
    const asked = early.call('workspaces.list', []);
    const host = connectReconnecting({ url: apiUrl(origin), create, session, first: Promise.resolve(early), delays: [50] });
    cleanup.push(() => host.close());
    expect(await until(host, 'connected')).toEqual({ kind: 'connected', reconnected: false });
    expect(await asked).toEqual({ ok: true, value: [] });
    expect(await host.call('workspaces.list', [])).toEqual({ ok: true, value: [] });
    expect(created).toBe(1);
    expect(running.web.connections()).toBe(1);
    // When it could not be had (null, or a failure), the client goes on as after any failed try.
    for (const first of [() => Promise.resolve(null), () => Promise.reject(new Error('refused'))]) {
      const other = connectReconnecting({ url: apiUrl(origin), create, session, first: first(), delays: [50] });
      cleanup.push(() => other.close());
      expect(await until(other, 'connected')).toEqual({ kind: 'connected', reconnected: false });
      expect(await other.call('workspaces.list', [])).toEqual({ ok: true, value: [] });
    }
    expect(created).toBe(3);
  });

  it('reconnects by itself after the server restarts on the same home and port', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-ws-reconnect-'));
    let running = await serve(home);
    const cookie = await signIn(running.web.signInUrl());
    const port = running.web.port;
    const host = client(running.web, cookie);
    expect(await until(host, 'connected')).toEqual({ kind: 'connected', reconnected: false });
    expect(await host.call('workspaces.list', [])).toEqual({ ok: true, value: [] });

    await running.web.close();
    await running.service.close();
    // At once "reconnecting"; once the server is found not to answer, it says so.
    const down = await until(host, 'reconnecting', 10_000, (s) => s.kind === 'reconnecting' && !s.serverAnswers);
    expect(down).toMatchObject({ kind: 'reconnecting', serverAnswers: false });
    // While down, a call says so in words instead of hanging.
    expect(await host.call('workspaces.list', [])).toMatchObject({
      ok: false,
      error: { code: 'E_IO', message: expect.stringMatching(/reconnects by itself/) },
    });

    running = await serve(home);
    cleanup.push(async () => {
      await running.web.close();
      await running.service.close();
    });
    expect(running.web.port).toBe(port);
    expect(await until(host, 'connected')).toEqual({ kind: 'connected', reconnected: true });
    expect(await host.call('workspaces.list', [])).toEqual({ ok: true, value: [] });
  });

  it('says signed-out, and stops trying, when the server ends the session', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-ws-signedout-'));
    const running = await serve(home);
    cleanup.push(async () => {
      await running.web.close();
      await running.service.close();
    });
    const url = running.web.signInUrl();
    const cookie = await signIn(url);
    const host = client(running.web, cookie);
    await until(host, 'connected');
    // A replay of the code ends the session it started (web-sign-in.test.ts): the socket closes.
    expect((await followSignIn(url)).status).toBe(403);
    expect(await until(host, 'signed-out')).toEqual({ kind: 'signed-out' });
  });

  it('starts signed-out in a browser that never signed in (a typed address), without retrying', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-ws-typed-'));
    const running = await serve(home);
    cleanup.push(async () => {
      await running.web.close();
      await running.service.close();
    });
    const states: string[] = [];
    const host = client(running.web, 'arcotheon_session_1=none');
    host.onState((s) => states.push(s.kind));
    await until(host, 'signed-out');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(states).toEqual(['signed-out']);
  });
});

describe('an operation the page waits for while the socket drops', () => {
  it('is waited for again on the next socket, and its result arrives', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.registry.addPublisher('acme');
    const src = await mkdtemp(join(tmpdir(), 'adcap-ws-slow-src-'));
    await mkdir(join(src, 'tools'));
    // Answers after 1.5 s: long enough for the socket to drop while the page waits.
    await writeFile(
      join(src, 'tools', 'slow.mjs'),
      // spec §7: one JSON line with the result.
      "const answer = JSON.stringify({ type: 'result', output: { done: true } }) + '\\n';\n" +
        "process.stdin.once('data', () => setTimeout(() => process.stdout.write(answer), 1500));\n",
    );
    await writeFile(
      join(src, 'capability.json'),
      JSON.stringify({
        adcap: '1.0',
        id: 'acme/slow',
        version: '1.0.0',
        name: 'Slow',
        summary: 'A tool that takes its time.',
        compat: { agents: { arcotheon: '*' } },
        tools: [
          {
            name: 'slow',
            description: 'Waits, then answers.',
            runtime: { type: 'node', entry: 'tools/slow.mjs' },
            inputSchema: { type: 'object' },
          },
        ],
      }),
    );
    const out = join(src, '..', `slow-${Date.now()}.adcap`);
    await buildSignedPackage(src, { out, keys: [reg.registry.keyOf('acme')] });
    await publishPackage(reg.registry.dir, out);
    await reg.registry.build();
    const home = await mkdtemp(join(tmpdir(), 'adcap-ws-slow-home-'));
    const service = createHostService(new Arcotheon(reg.options(home)));
    const web = await startWebHost({ service });
    cleanup.push(async () => {
      await web.close();
      await service.close();
    });
    const plan = await service.api.installs.plan('acme/slow');
    if (!plan.ok) throw new Error(plan.error.message);
    const installed = await service.api.operations.wait(
      await service.api.installs.install('acme/slow', { approvedDigest: plan.value.digest }),
    );
    if (!installed.ok) throw new Error(installed.error.message);

    const cookie = await signIn(web.signInUrl());
    const sockets: WebSocket[] = [];
    const host = connectReconnecting({
      url: apiUrl(web.origin),
      create: (url) => {
        const ws = new WebSocket(url, { origin: web.origin, headers: { Cookie: cookie } });
        sockets.push(ws);
        return ws as unknown as WebSocketLike;
      },
      session: () => sessionStatus(web.origin, (url) => fetch(url, { headers: { Cookie: cookie } })),
      delays: [50],
    });
    cleanup.push(() => host.close());
    await until(host, 'connected');
    const started = await host.call('run.tool', ['acme/slow', 'slow', {}]);
    if (!started.ok) throw new Error(started.error.message);
    const waited = host.call('operations.wait', [(started.value as { operation: string }).operation]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The network drops under the page (the server is fine).
    sockets.at(-1)?.terminate();
    expect(await waited).toMatchObject({ ok: true, value: { output: { done: true } } });
    expect(sockets.length).toBeGreaterThan(1);
    expect(host.state()).toEqual({ kind: 'connected', reconnected: true });
  });
});
