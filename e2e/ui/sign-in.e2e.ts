/**
 * Signing in and staying signed in, in Chromium (SECURITY.md and docs/host-api.md, the local UI
 * server): `arcotheon ui` opens "the browser" (a fake xdg-open first on PATH that records its
 * arguments) on a page in the home that forwards to a one-time address; the session then covers
 * a new tab opened with Ctrl+click and a typed address, survives a restart of the server on the
 * same home, and a browser without it, or whose session was ended, is told in words what to do.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, seriousA11yViolations, sharedBrowser, startUi, type UiProcess } from './helpers/app.js';
import { manifest, tempDir, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let home: string;
let ui: UiProcess;
let recorded: string[];
let context: BrowserContext;
let page: Page;
let origin: string;

const SIGNED_OUT = 'This browser is not signed in to Arcotheon';

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish({ manifest: manifest('acme/ledger', '1.0.0', { name: 'Ledger', summary: 'Keeps the books.' }) });
  home = await reg.newHome();
  const fakeBin = await tempDir('arcotheon-fake-browser-');
  const log = join(fakeBin, 'arguments.json');
  await writeFile(
    join(fakeBin, 'xdg-open'),
    // Written to a temporary name and renamed, so the test never reads a half-written file.
    `#!${process.execPath}\nconst fs = require('node:fs');\n` +
      `fs.writeFileSync(${JSON.stringify(`${log}.tmp`)}, JSON.stringify(process.argv.slice(2)));\n` +
      `fs.renameSync(${JSON.stringify(`${log}.tmp`)}, ${JSON.stringify(log)});\n`,
  );
  await chmod(join(fakeBin, 'xdg-open'), 0o755);
  // PATH starts with the fake browser; a user's run finds their real xdg-open.
  ui = await startUi(home, { ...reg.env, PATH: `${fakeBin}:${process.env['PATH'] ?? ''}` }, { open: true });
  origin = new URL(ui.url).origin;
  const deadline = Date.now() + 20_000;
  while ((recorded = JSON.parse((await readFile(log, 'utf8').catch(() => 'null')) as string) as string[]) === null) {
    if (Date.now() > deadline) throw new Error(`the browser was not opened: ${ui.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 120_000);

afterAll(async () => {
  await context?.close();
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

describe('signing in to the manager UI, in Chromium', () => {
  it('the browser arcotheon ui opens lands on Discover through the page in the home, with no code in its arguments', async () => {
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatch(/^file:\/\/\/.*\/ui\/signin-\d+\.html$/);
    context = await (await sharedBrowser()).newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await page.goto(recorded[0] as string);
    await page.getByRole('heading', { name: 'Discover' }).waitFor();
    // The address bar holds no code once signed in.
    expect(page.url().startsWith(`${origin}/`)).toBe(true);
    expect(page.url()).not.toMatch(/code=|signin/);
    expect((await context.cookies()).map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
      [`arcotheon_session_${new URL(origin).port}`, true, 'Strict'],
    ]);
  });

  it('a Ctrl+click on a card opens a new tab that is signed in too', async () => {
    // The card in the list of every capability (the first screen's Recently updated may show it too).
    const card = page.getByRole('list', { name: 'Capabilities' }).locator('a.card[data-id="acme/ledger"]');
    await card.waitFor();
    const [tab] = await Promise.all([context.waitForEvent('page'), card.click({ modifiers: ['Control'] })]);
    await tab.getByRole('heading', { name: 'Ledger' }).waitFor();
    expect(await tab.getByText(SIGNED_OUT).count()).toBe(0);
    await tab.close();
  });

  it('a typed address in the same browser is signed in; in another browser it says what to do', async () => {
    const typed = await context.newPage();
    await typed.goto(`${origin}/#/installed`);
    await typed.getByRole('heading', { name: 'Installed' }).waitFor();
    await typed.close();
    const stranger = await (await sharedBrowser()).newContext();
    try {
      const other = await stranger.newPage();
      await other.goto(`${origin}/#/installed`);
      await other.getByRole('heading', { name: SIGNED_OUT }).waitFor();
      expect(await other.locator('main').innerText()).toMatch(/Open Arcotheon again from the terminal with arcotheon ui/);
      expect(await seriousA11yViolations(other)).toEqual([]);
    } finally {
      await stranger.close();
    }
  });

  it('after arcotheon ui restarts on the same home, the open tab reconnects by itself', async () => {
    expect(await ui.stop()).toBe(0);
    const banner = page.locator('[data-banner="connection"]');
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(/Arcotheon is not connected/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    ui = await startUi(home, reg.env);
    expect(new URL(ui.url).origin).toBe(origin);
    // No reload, no click: the backoff (at most 8 s between tries) finds the server again.
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    await page.goto(`${origin}/#/installed`);
    await page.getByRole('heading', { name: 'Installed' }).waitFor();
  });

  it('a sign-in address used twice is refused in words, and the session it started ends', async () => {
    const address = await ui.signInUrl();
    const mine = await (await sharedBrowser()).newContext();
    const replayer = await (await sharedBrowser()).newContext();
    try {
      const signedIn = await mine.newPage();
      await signedIn.goto(address);
      await signedIn.getByRole('heading', { name: 'Discover' }).waitFor();
      const replay = await replayer.newPage();
      const answer = await replay.goto(address);
      expect(answer?.status()).toBe(403);
      await replay.getByRole('heading', { name: 'This sign-in address was already used' }).waitFor();
      expect(await replay.locator('main').innerText()).toMatch(/run arcotheon ui, or, where it is already running, press Enter/);
      // The session of the first use ended: that page says so instead of failing quietly.
      await signedIn.getByRole('heading', { name: SIGNED_OUT }).waitFor({ timeout: 20_000 });
    } finally {
      await mine.close();
      await replayer.close();
    }
  });
});
