import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { describe, expect, it } from 'vitest';
import type { Result } from '../../../electron/common/types.js';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostService } from '../../../electron/host/service.js';
import type { SenderInfo } from '../../../electron/main/policy.js';
import { createIpcRouter, UtilityChannel, type DesktopHandlers } from '../../../electron/main/router.js';
import type { FromUtility, ToUtility } from '../../../electron/shared/utility-protocol.js';
import { SecretChannel, serveOverPort, type DispatchingService } from '../../../electron/utility/serve.js';

const WINDOW = 3;
const trusted: SenderInfo = { webContentsId: WINDOW, frameUrl: 'app://arcotheon/index.html', isMainFrame: true };

/** The main <-> utility channel in one process: messages are structured-cloned like IPC does. */
function connect(
  service: DispatchingService,
  onSecret: (r: { capability: string; tool: string; variable: string }) => Promise<string | null> = async () => null,
) {
  const events: HostEvent[] = [];
  const toUtility: Array<(e: { data: unknown }) => void> = [];
  const channel = new UtilityChannel({
    post: (message: ToUtility) => queueMicrotask(() => toUtility.forEach((l) => l({ data: structuredClone(message) }))),
    onEvent: (event) => events.push(event),
    onSecret,
  });
  const secrets = new SecretChannel((message) => queueMicrotask(() => channel.receive(structuredClone(message))));
  serveOverPort(
    service,
    { postMessage: (m) => queueMicrotask(() => channel.receive(structuredClone(m))), on: (_e, l) => toUtility.push(l) },
    secrets,
  );
  return { channel, events, secrets };
}

async function realService() {
  const home = await mkdtemp(join(tmpdir(), 'adcap-router-'));
  const service = createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } } }));
  const calls: string[] = [];
  const counted: DispatchingService = {
    dispatch: (method, args) => {
      calls.push(String(method));
      return service.dispatch(method, args);
    },
    subscribe: (listener) => service.subscribe(listener as never),
  };
  return { service: counted, calls };
}

function desktopHandlers(log: string[]): DesktopHandlers {
  return {
    pickWorkspace: async () => (log.push('pickWorkspace'), { ok: true, value: null }),
    pickSideload: async () => (log.push('pickSideload'), { ok: true, value: null }),
    takeOpenRequests: () => (log.push('takeOpenRequests'), { ok: true, value: [{ kind: 'install', spec: 'acme/pdf' }] }),
    provideSecret: (request, value) => (
      log.push(`provideSecret ${request} ${value === null ? 'null' : 'value'}`),
      { ok: true, value: null }
    ),
  };
}

async function setup() {
  const { service, calls } = await realService();
  const { channel } = connect(service);
  const desktop: string[] = [];
  const refused: string[] = [];
  const route = createIpcRouter({
    host: (m, a) => channel.call(m, a),
    desktop: desktopHandlers(desktop),
    windowWebContentsId: () => WINDOW,
    onRefused: (r) => refused.push(r),
  });
  return { route, calls, desktop, refused };
}

describe('IPC router: sender, method and arguments checked before anything runs', () => {
  it('routes a host call from the window to the host service in the utility and back', async () => {
    const { route, calls } = await setup();
    expect(await route(trusted, 'installs.overview', [])).toEqual({ ok: true, value: [] });
    expect(calls).toEqual(['installs.overview']);
  });

  it.each([
    ['another WebContents', { ...trusted, webContentsId: 9 }],
    ['an iframe', { ...trusted, isMainFrame: false }],
    ['a foreign origin', { ...trusted, frameUrl: 'https://evil.example/' }],
    ['a frame that navigated away', { ...trusted, frameUrl: null }],
  ])('refuses %s with E_DENIED, and nothing reaches the utility', async (_what, sender) => {
    const { route, calls, desktop, refused } = await setup();
    for (const [method, args] of [
      ['installs.overview', []],
      ['desktop.pickWorkspace', []],
    ] as const) {
      const result = await route(sender, method, args);
      expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } });
    }
    expect(calls).toEqual([]);
    expect(desktop).toEqual([]);
    expect(refused).toHaveLength(2);
  });

  it.each(['fs.readFile', 'installs', '__proto__', 'constructor', 'toString', 'catalogue.search.call', 42, null])(
    'refuses the method %s with E_USAGE',
    async (method) => {
      const { route, calls } = await setup();
      expect(await route(trusted, method, [])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
      expect(calls).toEqual([]);
    },
  );

  it('checks arguments against the shared table', async () => {
    const { route, calls } = await setup();
    const wrongType = await route(trusted, 'catalogue.show', [123]);
    expect(wrongType).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    if (!wrongType.ok) expect(wrongType.error.message).toContain('args[0]');
    expect(await route(trusted, 'installs.grant', ['Not An Id', 'fs:read:workspace'])).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE' },
    });
    expect(await route(trusted, 'installs.overview', ['extra'])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await route(trusted, 'installs.overview', { 0: 'x' })).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(calls).toEqual([]);
  });

  it('answers desktop methods in main, with their own argument checks', async () => {
    const { route, calls, desktop } = await setup();
    expect(await route(trusted, 'desktop.takeOpenRequests', [])).toEqual({ ok: true, value: [{ kind: 'install', spec: 'acme/pdf' }] });
    expect(await route(trusted, 'desktop.provideSecret', ['sr_abcdefghijklmnopqrstuvwx', 'token-value'])).toEqual({
      ok: true,
      value: null,
    });
    expect(await route(trusted, 'desktop.provideSecret', ['sr_abcdefghijklmnopqrstuvwx', null])).toEqual({ ok: true, value: null });
    for (const bad of [
      ['not-a-request', 'x'],
      ['sr_abcdefghijklmnopqrstuvwx', 'two\nlines'],
      ['sr_abcdefghijklmnopqrstuvwx', ''],
      ['sr_abcdefghijklmnopqrstuvwx'],
    ]) {
      expect(await route(trusted, 'desktop.provideSecret', bad)).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    }
    expect(await route(trusted, 'desktop.pickWorkspace', ['/etc'])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(desktop).toEqual([
      'takeOpenRequests',
      'provideSecret sr_abcdefghijklmnopqrstuvwx value',
      'provideSecret sr_abcdefghijklmnopqrstuvwx null',
    ]);
    expect(calls).toEqual([]);
  });
});

describe('utility channel', () => {
  /** A scripted utility process: what main posts is recorded; replies are sent by the test. */
  function scripted() {
    const posted: ToUtility[] = [];
    const events: HostEvent[] = [];
    const secretRequests: string[] = [];
    const channel = new UtilityChannel({
      post: (m) => void posted.push(m),
      onEvent: (e) => void events.push(e),
      onSecret: async (r) => (secretRequests.push(`${r.capability} ${r.tool} ${r.variable}`), r.variable === 'KNOWN' ? 's3cret' : null),
    });
    const send = (m: FromUtility | unknown): void => channel.receive(m);
    return { channel, posted, events, secretRequests, send };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('waits for ready, matches replies by id in any order, and drops malformed messages', async () => {
    const { channel, posted, send } = scripted();
    const first = channel.call('installs.overview', []);
    const second = channel.call('remotes.list', []);
    await tick();
    expect(posted).toEqual([]);
    send({ kind: 'ready' });
    await tick();
    expect(posted.map((m) => m.kind === 'call' && m.method)).toEqual(['installs.overview', 'remotes.list']);
    const [a, b] = posted as Array<Extract<ToUtility, { kind: 'call' }>>;
    for (const junk of [
      null,
      'x',
      { kind: 'result', id: b!.id },
      { kind: 'result', id: -1, result: { ok: true } },
      { kind: 'nope' },
      { kind: 'event', event: {} },
    ])
      send(junk);
    send({ kind: 'result', id: b!.id, result: { ok: true, value: 'remotes' } });
    send({ kind: 'result', id: a!.id, result: { ok: true, value: 'installs' } });
    expect(await first).toEqual({ ok: true, value: 'installs' });
    expect(await second).toEqual({ ok: true, value: 'remotes' });
  });

  it('fails pending calls with E_IO when the utility exits, and waits for the restarted one', async () => {
    const { channel, posted, send } = scripted();
    send({ kind: 'ready' });
    const pending = channel.call('installs.overview', []);
    await tick();
    channel.exited(7);
    const failed = (await pending) as Result<unknown>;
    expect(failed).toMatchObject({ ok: false, error: { code: 'E_IO' } });
    if (!failed.ok) expect(failed.error.message).toContain('exit code 7');
    const later = channel.call('installs.overview', []);
    await tick();
    expect(posted).toHaveLength(1);
    send({ kind: 'ready' });
    await tick();
    expect(posted).toHaveLength(2);
    const call = posted[1] as Extract<ToUtility, { kind: 'call' }>;
    send({ kind: 'result', id: call.id, result: { ok: true, value: 1 } });
    expect(await later).toEqual({ ok: true, value: 1 });
  });

  it('forwards events and answers secret requests', async () => {
    const { posted, events, secretRequests, send } = scripted();
    send({ kind: 'event', event: { type: 'installed-changed' } });
    send({ kind: 'secret', id: 4, capability: 'acme/gh', tool: 'issues', variable: 'KNOWN' });
    send({ kind: 'secret', id: 5, capability: 'acme/gh', tool: 'issues', variable: 'OTHER' });
    send({ kind: 'secret', id: 6, capability: 'acme/gh', tool: '', variable: 'X' });
    await tick();
    expect(events).toEqual([{ type: 'installed-changed' }]);
    expect(secretRequests).toEqual(['acme/gh issues KNOWN', 'acme/gh issues OTHER']);
    expect(posted).toEqual([
      { kind: 'secret-answer', id: 4, value: 's3cret' },
      { kind: 'secret-answer', id: 5, value: null },
    ]);
  });

  it('keeps a value given at install (an MCP Bundle setting) through main, and drops malformed store requests', async () => {
    const kept: string[] = [];
    const toUtility: Array<(e: { data: unknown }) => void> = [];
    const channel = new UtilityChannel({
      post: (message: ToUtility) => queueMicrotask(() => toUtility.forEach((l) => l({ data: structuredClone(message) }))),
      onEvent: () => undefined,
      onSecret: async () => null,
      onSecretStore: async (r) => (kept.push(`${r.capability} ${r.variable} ${r.value}`), true),
    });
    const secrets = new SecretChannel((message) => queueMicrotask(() => channel.receive(structuredClone(message))));
    const { service } = await realService();
    serveOverPort(
      service,
      { postMessage: (m) => queueMicrotask(() => channel.receive(structuredClone(m))), on: (_e, l) => toUtility.push(l) },
      secrets,
    );
    await secrets.store.set('acme/fixture', 'API_KEY', 'sk-kept');
    expect(kept).toEqual(['acme/fixture API_KEY sk-kept']);
    for (const junk of [
      { kind: 'secret-store', id: 9, capability: 'acme/fixture', variable: 'API_KEY' },
      { kind: 'secret-store', id: 9, capability: 'acme/fixture', variable: 'API_KEY', value: 'x'.repeat(16_385) },
      { kind: 'secret-store', id: 0, capability: 'acme/fixture', variable: 'API_KEY', value: 'x' },
    ])
      channel.receive(junk);
    await new Promise((r) => setTimeout(r, 0));
    expect(kept).toHaveLength(1);
  });

  it('carries a secret from main to the utility side SecretSource', async () => {
    const { service } = await realService();
    const asked: string[] = [];
    const { secrets } = connect(
      service,
      async (r) => (asked.push(`${r.capability} ${r.tool} ${r.variable}`), r.variable === 'GITHUB_TOKEN' ? 'ghp_example' : null),
    );
    expect(await secrets.source({ capability: 'acme/gh', version: '1.0.0', tool: 'issues', variable: 'GITHUB_TOKEN' })).toBe('ghp_example');
    expect(await secrets.source({ capability: 'acme/gh', version: '1.0.0', tool: 'issues', variable: 'NPM_TOKEN' })).toBeNull();
    expect(asked).toEqual(['acme/gh issues GITHUB_TOKEN', 'acme/gh issues NPM_TOKEN']);
  });
});
