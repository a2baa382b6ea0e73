/**
 * Screens other than Discover load their code when first opened (renderer/src/screens/lazy.tsx,
 * docs/ui.md "Fast"), in Chromium through `arcotheon ui`: the page's first script holds Discover
 * only; while a screen's file is still on its way the window says so in words (a status region)
 * and keeps the focus where it was; once the screen is drawn its heading has the focus, as on any
 * navigation. The screen files are held back by the test (Playwright routing) to make "still
 * loading" last; once they are let through, the screens work as usual.
 */
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, seriousA11yViolations, sharedBrowser, startUi, type UiProcess } from './helpers/app.js';
import { manifest, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let ui: UiProcess;
let context: BrowserContext;
let page: Page;
/** Requests for screen files held back, by file name. */
const held = new Map<string, Route>();
const requested: string[] = [];

const focusedHeading = (): Promise<string | null> =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string | null } | null } }).document
      .activeElement;
    return el !== null && el.tagName === 'H1' ? el.textContent : null;
  });

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish({ manifest: manifest('acme/ledger', '1.0.0', { name: 'Ledger', summary: 'Keeps the books.' }) });
  ui = await startUi(await reg.newHome(), reg.env);
  context = await (await sharedBrowser()).newContext({ viewport: { width: 1280, height: 800 } });
  await context.route(/\/assets\/(Settings|Capability)-[\w-]+\.js$/, (route) => {
    const file = new URL(route.request().url()).pathname.split('/').pop() as string;
    requested.push(file);
    held.set(file.split('-')[0] as string, route);
  });
  // When the first card is drawn, in the page's clock (the resource timings' origin): the other
  // screens' files must all be asked for after it.
  await context.addInitScript({
    content: `new MutationObserver((_, observer) => {
      if (document.querySelector('a.card') === null) return;
      globalThis.__firstCardAt = performance.now();
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });`,
  });
  page = await context.newPage();
  await page.goto(await ui.signInUrl());
  await page.getByRole('heading', { name: 'Discover', level: 1 }).waitFor();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

describe('screens loaded when first opened, in Chromium', () => {
  it("the first page loads Discover's code only; the other screens' files come after the first cards", async () => {
    await page.locator('a.card').first().waitFor();
    // Fetched in the background once the page is idle after the first cards (held here).
    await expect.poll(() => requested.length, { timeout: 15_000 }).toBe(2);
    const timingNow = () =>
      page.evaluate(() => {
        const g = globalThis as unknown as {
          __firstCardAt?: number;
          performance: { getEntriesByType(t: string): Array<{ name: string; startTime: number }> };
        };
        const scripts = g.performance
          .getEntriesByType('resource')
          .map((e) => ({ name: e.name.split('/').pop() as string, startTime: e.startTime }))
          .filter((e) => e.name.endsWith('.js'));
        return { firstCardAt: g.__firstCardAt ?? null, scripts };
      });
    // Run's file is not held back: once it has arrived, its timing is there to compare.
    await expect.poll(async () => (await timingNow()).scripts.some((e) => e.name.startsWith('Run-')), { timeout: 15_000 }).toBe(true);
    const timing = await timingNow();
    expect(timing.firstCardAt).not.toBeNull();
    const screens = timing.scripts.filter((e) => /^(Settings|Capability|Installed|Updates|Run|Health|Markdown)-/.test(e.name));
    expect(screens.length).toBeGreaterThan(0);
    for (const e of screens) expect(e.startTime, e.name).toBeGreaterThanOrEqual(timing.firstCardAt as number);
    expect(timing.scripts.filter((e) => e.startTime < (timing.firstCardAt as number)).length).toBeGreaterThan(0);
  });

  it('a screen whose file has not arrived says it is loading, then its heading gets the focus when it appears', async () => {
    await page.getByRole('searchbox', { name: 'Search capabilities' }).focus();
    await page.keyboard.press('Control+6');
    const status = page.locator('.screen-loading').getByRole('status').filter({ hasText: 'Loading Settings…' });
    await status.waitFor();
    await expect.poll(() => status.isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/arcotheon-lazy-loading.png' });
    expect(await page.locator('.screen-loading').getAttribute('aria-busy')).toBe('true');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // The same in the dark theme at 800 px.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 800, height: 800 });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: '/tmp/arcotheon-lazy-loading-dark-800.png' });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    // The focus did not fall to the page's body while the screen loads: it waits on <main>.
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName,
      ),
    ).toBe('MAIN');

    await held.get('Settings')?.continue();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await expect.poll(focusedHeading).toBe('Settings');
    expect(await status.count()).toBe(0);
    await page.screenshot({ path: '/tmp/arcotheon-lazy-loaded.png' });
  });

  it('a card opened before the capability page has loaded shows it with its heading focused', async () => {
    await page.keyboard.press('Control+1');
    await page.getByRole('heading', { name: 'Discover', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Capabilities' }).locator('a.card', { hasText: 'Ledger' }).click();
    await page.locator('.screen-loading').getByRole('status').filter({ hasText: 'Loading the capability…' }).waitFor();
    await held.get('Capability')?.continue();
    await page.getByRole('heading', { name: 'Ledger', level: 1 }).waitFor();
    await expect.poll(focusedHeading).toBe('Ledger');
    // Back and forth once loaded: no loading state again, the heading focused each time.
    await page.keyboard.press('Control+6');
    await expect.poll(focusedHeading).toBe('Settings');
    await page.goBack();
    await expect.poll(focusedHeading).toBe('Ledger');
  });
});
