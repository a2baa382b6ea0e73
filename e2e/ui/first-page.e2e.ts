/**
 * Discover's first page comes with the page's start, not after it (docs/ui.md "Fast"): the page's
 * first small script (renderer/src/start.ts) asks for it over HTTP before the app's script has run,
 * the app shows that answer instead of asking the socket again, and the address that answers it
 * holds to the session like the socket does; in the desktop window it goes through the preload
 * bridge instead (a bridge shaped like electron/preload/bridge.ts's here). `arcotheon ui` sends the
 * page's own files as preloads with index.html. Real Chromium against a real `arcotheon ui` child
 * on a signed test registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openInBrowser, sharedBrowser, startUi, type UiProcess } from './helpers/app.js';
import { manifest, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let ui: UiProcess;

beforeAll(async () => {
  assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(
    { manifest: manifest('acme/weather', '1.0.0', { name: 'Weather', summary: 'Current weather for any city.' }) },
    { manifest: manifest('zeta/notes', '1.0.0', { name: 'Meeting notes', summary: 'Finds action items in meeting notes.' }) },
  );
  await reg.registry.build();
  await reg.registry.mount(reg.server);
  ui = await startUi(await reg.newHome(), reg.env);
}, 180_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

const FIRST_PAGE = '/api/catalogue-index?limit=200';

describe("Discover's first page", () => {
  it("is asked over HTTP before the app's script has run, and the app shows it without asking the socket again", async () => {
    const app = await openInBrowser(await ui.signInUrl());
    try {
      const page = app.page;
      const frames: string[] = [];
      const requests: string[] = [];
      page.on('websocket', (ws) => ws.on('framesent', (frame) => frames.push(String(frame.payload))));
      page.on('request', (request) => requests.push(new URL(request.url()).pathname + new URL(request.url()).search));
      await page.reload();
      await page.locator('a.card').first().waitFor();
      expect(await page.locator('a.card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id')))).toEqual(
        expect.arrayContaining(['acme/weather', 'zeta/notes']),
      );
      expect(requests).toContain(FIRST_PAGE);
      // Module scripts run in order before DOMContentLoaded: the request left before the app's script ran.
      const timing = (await page.evaluate(`(() => {
        const page = performance.getEntriesByType('resource').find((e) => e.name.endsWith(${JSON.stringify(FIRST_PAGE)}));
        const nav = performance.getEntriesByType('navigation')[0];
        return { asked: page ? page.startTime : null, appRan: nav.domContentLoadedEventStart };
      })()`)) as { asked: number | null; appRan: number };
      expect(timing.asked).not.toBeNull();
      expect(timing.asked as number).toBeLessThan(timing.appRan);
      // The socket carried the rest of the index, not the first page again.
      await page.locator('.card-list[data-search-ready="true"]').waitFor();
      const indexCalls = frames.filter((f) => f.includes('"method":"catalogue.index"'));
      expect(indexCalls.some((f) => f.includes('"args":[{"limit":200}]'))).toBe(false);
      // The search field has the focus on Discover's first open.
      await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('catalogue-search');
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('is refused to a browser that is not signed in, which is told what to do', async () => {
    const context = await (await sharedBrowser()).newContext();
    try {
      const page = await context.newPage();
      const answers: number[] = [];
      page.on('response', (response) => {
        if (response.url().endsWith(FIRST_PAGE)) answers.push(response.status());
      });
      await page.goto(new URL('/', ui.url).href);
      await page.getByRole('heading', { name: 'This browser is not signed in to Arcotheon' }).waitFor();
      expect(answers).toEqual([401]);
      expect(await page.locator('a.card').count()).toBe(0);
      const direct = await page.evaluate(async (path) => {
        const res = await fetch(path);
        return { status: res.status, body: await res.text() };
      }, FIRST_PAGE);
      expect(direct.status).toBe(401);
      expect(direct.body).not.toContain('acme/weather');
    } finally {
      await context.close();
    }
  });

  it('is not asked when the page opens on another screen', async () => {
    const app = await openInBrowser(await ui.signInUrl());
    try {
      const page = app.page;
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      // A new load of the page on that address (a bookmark, a reload there).
      await page.evaluate(`location.hash = '#/settings'`);
      await page.reload();
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await page.locator('.rail-link[aria-current="page"]').waitFor();
      expect(requests.some((url) => url.includes('/api/catalogue-index'))).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('is asked through the preload bridge in the desktop window, once, before the app has run', async () => {
    // A bridge shaped like the Electron preload's (electron/preload/bridge.ts: call and subscribe),
    // carrying each call over this server's socket, and recording when each was made.
    const BRIDGE = `
      window.__calls = [];
      const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/api');
      const opened = new Promise((resolve) => ws.addEventListener('open', resolve));
      const pending = new Map();
      const listeners = new Set();
      let next = 1;
      ws.addEventListener('message', (m) => {
        const message = JSON.parse(m.data);
        if (message.event !== undefined) { for (const l of listeners) l(message.event); return; }
        pending.get(message.id)?.(message.result);
        pending.delete(message.id);
      });
      window.arcotheon = {
        call: async (method, args) => {
          window.__calls.push({ method, args: JSON.stringify(args), at: performance.now() });
          await opened;
          const id = next++;
          return new Promise((resolve) => { pending.set(id, resolve); ws.send(JSON.stringify({ id, method, args })); });
        },
        subscribe: (listener) => { listeners.add(listener); return () => listeners.delete(listener); },
        desktop: {
          pickWorkspace: async () => ({ ok: true, value: null }),
          pickSideload: async () => ({ ok: true, value: null }),
          takeOpenRequests: async () => ({ ok: true, value: [] }),
          provideSecret: async () => ({ ok: true, value: null }),
          subscribe: () => () => undefined,
        },
      };
    `;
    const app = await openInBrowser(await ui.signInUrl());
    try {
      const page = app.page;
      await page.context().addInitScript(BRIDGE);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.reload();
      await page.locator('a.card[data-id="acme/weather"]').first().waitFor();
      const calls = (await page.evaluate('window.__calls')) as Array<{ method: string; args: string; at: number }>;
      const firstPage = calls.filter((c) => c.method === 'catalogue.index' && c.args === '[{"limit":200}]');
      expect(firstPage).toHaveLength(1);
      const appRan = (await page.evaluate(`performance.getEntriesByType('navigation')[0].domContentLoadedEventStart`)) as number;
      expect(firstPage[0]?.at).toBeLessThan(appRan);
      // No HTTP request for it: in the desktop window the bridge is the way to the host.
      expect(requests.some((url) => url.includes('/api/catalogue-index'))).toBe(false);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("comes with the page's own files as preloads", async () => {
    const res = await fetch(new URL('/', ui.url));
    const html = await res.text();
    const link = res.headers.get('link') ?? '';
    const scripts = [...html.matchAll(/<script type="module" crossorigin src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    expect(scripts.some((s) => /assets\/start-/.test(s ?? ''))).toBe(true);
    for (const src of scripts) expect(link).toContain(`<${src}>; rel=modulepreload`);
    expect(link).toMatch(/<\.\/assets\/index-[\w-]+\.css>; rel=preload; as=style; crossorigin/);
  });
});
