/**
 * The renderer's side of the desktop window, in Chromium against the real `arcotheon ui`
 * host: a `window.arcotheon.desktop` bridge shaped like the Electron preload's (electron/common/
 * desktop.ts) is injected before the page loads, while host calls still go over the WebSocket.
 * An `arcotheon://` link handed over by the OS opens the verified install dialog and installs
 * nothing by itself; a secret prompt answers through the bridge; a refused file is explained.
 * (With an Electron binary, e2e/ui/electron.e2e.ts runs the full journeys in the real window.)
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, sharedBrowser, startUi, type UiProcess } from './helpers/app.js';
import { manifest, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let ui: UiProcess;
let home: string;
let context: BrowserContext;
let page: Page;

type Fake = { answers: Array<[string, string | null]>; emit(event: unknown): void };

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish({
    manifest: manifest('acme/linked', '1.2.0', {
      name: 'Linked tool',
      summary: 'Opened from a link on a web page.',
      permissions: [{ id: 'net:connect', scope: 'api.linked.example', reason: 'Talks to the linked service.' }],
    }),
  });
  home = await reg.newHome();
  ui = await startUi(home, reg.env);
  context = await (await sharedBrowser()).newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    const listeners: Array<(event: unknown) => void> = [];
    const fake: Fake = { answers: [], emit: (event) => listeners.forEach((l) => l(event)) };
    const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
    (globalThis as unknown as { __desktop: Fake }).__desktop = fake;
    (globalThis as unknown as { arcotheon: unknown }).arcotheon = {
      desktop: {
        pickWorkspace: () => ok(null),
        pickSideload: () => ok(null),
        // The link the app was launched with, waiting for the page.
        takeOpenRequests: () => ok([{ kind: 'install', spec: 'acme/linked@^1.0.0' }]),
        provideSecret: (request: string, value: string | null) => (fake.answers.push([request, value]), ok(null)),
        subscribe: (listener: (event: unknown) => void) => {
          listeners.push(listener);
          return () => undefined;
        },
      },
    };
  });
  page = await context.newPage();
  await page.goto(ui.url);
  await page.getByRole('heading', { name: 'Discover' }).waitFor();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

const emit = (event: unknown): Promise<void> =>
  page.evaluate((e) => (globalThis as unknown as { __desktop: Fake }).__desktop.emit(e), event);
const answers = (): Promise<Array<[string, string | null]>> =>
  page.evaluate(() => (globalThis as unknown as { __desktop: Fake }).__desktop.answers);

describe('the desktop bridge in the renderer', () => {
  it('a link handed over by the OS opens the verified install dialog, and installs nothing by itself', async () => {
    const dialog = page.getByRole('dialog', { name: 'Install acme/linked@^1.0.0?' });
    await dialog.waitFor();
    await dialog.getByText('Talks to the linked service.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await reg.adcapJson<unknown[]>(home, ['list'])).toEqual([]);
  });

  it('asks for a secret in a password field and answers through the bridge, or declines', async () => {
    // A desktop whose keychain can keep the value (kept: true), so the answer is saved.
    const request = {
      request: 'sr_abcdefghijklmnopqrstuv',
      capability: 'acme/linked',
      tool: 'call_api',
      variable: 'LINKED_TOKEN',
      kept: true,
    };
    await emit({ type: 'secret', request });
    const prompt = page.getByRole('dialog', { name: 'acme/linked needs LINKED_TOKEN' });
    await prompt.waitFor();
    const field = prompt.getByLabel('Value of LINKED_TOKEN');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill('tok-123');
    await prompt.getByRole('button', { name: 'Save and run' }).click();
    await prompt.waitFor({ state: 'detached' });
    await emit({ type: 'secret', request: { ...request, request: 'sr_zyxwvutsrqponmlkjihgfe' } });
    await page.getByRole('dialog', { name: 'acme/linked needs LINKED_TOKEN' }).getByRole('button', { name: 'Run without it' }).click();
    expect(await answers()).toEqual([
      ['sr_abcdefghijklmnopqrstuv', 'tok-123'],
      ['sr_zyxwvutsrqponmlkjihgfe', null],
    ]);
  });

  it('explains a file or link it refused, as text', async () => {
    await emit({
      type: 'open',
      request: {
        kind: 'refused',
        message: 'The arcotheon:// link carries a query or fragment, so it was not opened. <img src=x onerror=alert(1)>',
      },
    });
    const notice = page.getByRole('dialog', { name: 'Arcotheon could not open this' });
    await notice.getByText('<img src=x onerror=alert(1)>', { exact: false }).waitFor();
    expect(await notice.locator('img').count()).toBe(0);
    await notice.getByRole('button', { name: 'OK' }).click();
    await notice.waitFor({ state: 'detached' });
  });
});
