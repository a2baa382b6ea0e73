/**
 * The keyboard through an install, the operations tray, failures and a nested Run form, in
 * Chromium against a real `arcotheon ui` and a signed test registry:
 *   - the install dialog keeps the focus (Tab, Shift+Tab, Escape), hands the approved install to the
 *     tray and closes, and the focus goes back to the page, never to <body>;
 *   - the tray: a success leaves by itself (not while hovered), the user's cancel is not a failure,
 *     a failure stays with its details behind "Details" and its long hashes wrap, repeats coalesce;
 *   - a confirm dialog closed with Escape while its action runs hands the action to the tray, where
 *     its failure stays (the home held by another program, so the uninstall fails with E_LOCKED);
 *   - a tool whose input has an array of objects: add, reorder and remove items from the keyboard,
 *     errors beside their field, the last result cleared by a new run; axe in both themes.
 * Outcomes are checked with `adcap` on the same home, not only on the screen.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../sdk/src/util/lock.js';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type AppDriver, type UiProcess } from './helpers/app.js';
import { manifest, nodeTool, tempDir, UiRegistry, type CapabilitySource } from './helpers/registry.js';

const READ = { id: 'fs:read', scope: 'workspace', reason: 'Reads the CSV file you name.' };

/** A tool whose input has an array of objects, a nested object and a required field. */
const TABLES: CapabilitySource = {
  manifest: manifest('acme/tables', '1.0.0', {
    name: 'Table builder',
    summary: 'Builds a table from a CSV file with the columns you describe.',
    permissions: [READ],
    tools: [
      {
        name: 'build_table',
        description: 'Builds a table with the columns you list.',
        runtime: { type: 'node', entry: 'tools/main.mjs' },
        inputSchema: {
          type: 'object',
          required: ['path'],
          properties: {
            path: { type: 'string', description: 'The CSV file, relative to the workspace' },
            maxRows: { type: 'integer', default: 100, description: 'Rows to read at most' },
            columns: {
              type: 'array',
              description: 'The columns to keep, in order',
              items: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string', description: 'Column header' },
                  type: { type: 'string', enum: ['text', 'number', 'date'], default: 'text' },
                },
              },
            },
            options: { type: 'object', properties: { header: { type: 'boolean', default: true } } },
          },
        },
      },
    ],
  }),
  files: {
    // fail.csv: the tool fails (a crash with its last error output), for the "old result cleared" check.
    'tools/main.mjs': nodeTool(
      "input.path === 'fail.csv' ? (() => { throw new Error('no such file: fail.csv') })() : " +
        "({ columns: (input.columns ?? []).map((c, i) => ({ position: i + 1, column: c.name, type: c.type ?? 'text' })) })",
    ),
  },
};

const BOARD: CapabilitySource = {
  manifest: manifest('acme/board', '2.0.0', {
    name: 'Task board',
    summary: 'A board for your tasks.',
    permissions: [
      { id: 'fs:read', scope: 'workspace', reason: 'Reads the files it searches.' },
      { id: 'net:connect', scope: 'api.board.example', reason: 'Syncs your board.' },
    ],
  }),
};

/** Its archive is served slowly (held after the first bytes), so its install can be cancelled. */
const SLOW: CapabilitySource = {
  manifest: manifest('acme/slow', '1.0.0', { name: 'Slow data', summary: 'Downloads slowly.' }),
  // Random text: it does not compress, so the archive is larger than the bytes served before the hold.
  files: { 'data/blob.txt': randomBytes(150_000).toString('base64') },
};

/** Its archive is served with other bytes than the catalogue's hash: the install fails (E_HASH). */
const BROKEN: CapabilitySource = {
  manifest: manifest('acme/broken', '1.0.0', { name: 'Broken download', summary: 'Its archive does not match its hash.' }),
};

let reg: UiRegistry;
let home: string;
let ui: UiProcess;
let app: AppDriver;
let page: Page;
/** Releases the held download of acme/slow. */
let releaseSlow: () => void = () => undefined;

const installed = async (id: string): Promise<boolean> =>
  (await reg.adcapJson<Array<{ id: string }>>(home, ['list'])).some((c) => c.id === id);

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Where the focus is: "dialog:<text>", "page:<text>" or "body". */
const focused = (): Promise<string> =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: unknown; body: unknown } }).document;
    const el = doc.activeElement as { id: string; textContent: string | null; closest(s: string): unknown; tagName: string } | null;
    if (el === null || el === doc.body) return 'body';
    return `${el.closest('[role="dialog"]') === null ? 'page' : 'dialog'}:${el.id || (el.textContent ?? '').trim().slice(0, 60)}`;
  });

async function go(hash: string, heading: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** A published archive: its route on the test server and its file (from the registry's package document). */
async function archivePath(id: string, version = '1.0.0'): Promise<{ route: string; file: string }> {
  const v1 = join(reg.registry.dir, 'v1');
  const doc = JSON.parse(await readFile(join(v1, 'packages', `${id}.json`), 'utf8')) as {
    versions: Record<string, { archive: { urls: string[] } }>;
  };
  const url = doc.versions[version]?.archive.urls[0];
  if (url === undefined) throw new Error(`no archive of ${id} ${version}`);
  return { route: `/v1/${url}`, file: join(v1, url) };
}

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(TABLES, BOARD, SLOW, BROKEN);
  // acme/slow: the first 1,000 bytes, then nothing until released (or the client gives up).
  const slow = await archivePath('acme/slow');
  const slowBytes = await readFile(slow.file);
  expect(slowBytes.length).toBeGreaterThan(10_000);
  const held = new Promise<void>((resolve) => (releaseSlow = resolve));
  reg.server.route(slow.route, async (_req, res) => {
    res.statusCode = 200;
    res.setHeader('content-length', String(slowBytes.length));
    res.write(slowBytes.subarray(0, 1000));
    await Promise.race([held, new Promise((r) => res.once('close', r))]);
    if (!res.destroyed) res.end(slowBytes.subarray(1000));
  });
  // acme/broken: as many bytes as the catalogue says, but other ones.
  const broken = await archivePath('acme/broken');
  const brokenBytes = Buffer.from(await readFile(broken.file)).fill(0x41, 200);
  reg.server.route(broken.route, (_req, res) => {
    res.statusCode = 200;
    res.setHeader('content-length', String(brokenBytes.length));
    res.end(brokenBytes);
  });
  home = await reg.newHome();
  await reg.adcapJson(home, ['install', 'acme/tables', '--yes']);
  ui = await startUi(home, reg.env);
  app = await openApp(ui);
  page = app.page;
}, 180_000);

afterAll(async () => {
  releaseSlow();
  await app?.close();
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

describe('an install from the keyboard, in the background', () => {
  it('keeps the focus in the dialog, closes it once approved, and never drops the focus to <body>', async () => {
    await go('#/capability/acme/board', 'Task board');
    for (let i = 0; i < 40 && (await focused()) !== 'page:Install'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('page:Install');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Install Task board?' });
    await dialog.getByRole('button', { name: 'Install', exact: true }).waitFor();
    expect(await focused()).toBe('dialog:Cancel');
    // Tab and Shift+Tab go round inside the dialog, past its last and first elements.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press(i % 4 === 3 ? 'Shift+Tab' : 'Tab');
      expect(await focused()).toMatch(/^dialog:/);
    }
    // The total download is in the footer, beside the buttons, whatever the body's height.
    expect(await dialog.locator('footer [data-total-download]').textContent()).toMatch(/^Total download: \d/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused()).toBe('page:Install');
    expect(await installed('acme/board')).toBe(false);

    // Again, and approve: Tab from Cancel reaches Install.
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Install', exact: true }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('dialog:Install');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // The dialog is gone at once: the install goes on in the tray while the user stays on the page.
    expect(await focused()).toMatch(/^page:/);
    const tray = page.getByRole('region', { name: 'Operations' });
    const done = tray.locator('[data-operation-state="done"]', { hasText: 'Installed Task board 2.0.0' });
    await done.waitFor({ timeout: 60_000 });
    await until(() => installed('acme/board'), 'acme/board in adcap list');
    // Install became "Open in Run": the focus moved to the page's actions, not to <body>.
    await page.getByRole('link', { name: 'Open in Run' }).waitFor();
    expect(await focused()).not.toBe('body');
    // A success leaves the tray by itself.
    await done.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it("says the user's own cancel is a cancel, not a failure, and nothing is installed", async () => {
    await go('#/capability/acme/slow', 'Slow data');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Slow data?' });
    await dialog.getByRole('button', { name: 'Install', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // While it downloads, the page's button says so and the tray has Cancel.
    await page.getByRole('button', { name: 'Installing…' }).waitFor();
    const cancel = page.getByRole('button', { name: 'Cancel Install Slow data' });
    await cancel.waitFor();
    await cancel.focus();
    await page.keyboard.press('Enter');
    const entry = page.locator('.tray [data-operation-state="cancelled"]');
    await entry.waitFor({ timeout: 30_000 });
    const text = (await entry.textContent()) ?? '';
    expect(text).toContain('Install of Slow data cancelled: nothing was changed');
    expect(text).not.toContain('could not be installed');
    expect(await installed('acme/slow')).toBe(false);
    // The focus stayed in the entry (on Dismiss); it leaves once the focus moves on.
    expect(await focused()).toMatch(/^page:/);
    await page.getByRole('button', { name: 'Install', exact: true }).focus();
    await entry.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('keeps a failure until it is dismissed, with the cause in one sentence, the details behind Details, wrapped', async () => {
    await go('#/capability/acme/broken', 'Broken download');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await page.getByRole('dialog', { name: 'Install Broken download?' }).getByRole('button', { name: 'Install', exact: true }).click();
    const failed = page.locator('.tray [data-operation-state="failed"]');
    await failed.waitFor({ timeout: 60_000 });
    expect(await failed.textContent()).toContain('Broken download could not be installed');
    const details = failed.locator('details');
    expect(await details.getAttribute('open')).toBeNull();
    await details.locator('summary').click();
    expect(await details.textContent()).toMatch(/E_HASH|E_SIGNATURE|E_DOWNLOAD/);
    // Nothing runs out of the tray: long hashes and addresses wrap.
    const overflow = await failed.evaluate((el) => {
      const all = [el, ...Array.from((el as unknown as { querySelectorAll(s: string): ArrayLike<unknown> }).querySelectorAll('*'))];
      return all.filter((n) => {
        const box = n as { scrollWidth: number; clientWidth: number };
        return box.clientWidth > 0 && box.scrollWidth > box.clientWidth + 1;
      }).length;
    });
    expect(overflow).toBe(0);
    // It stays past the time a success would have left.
    await page.waitForTimeout(6500);
    expect(await failed.count()).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await failed.getByRole('button', { name: /^Dismiss / }).click();
    await failed.waitFor({ state: 'detached' });
    expect(await installed('acme/broken')).toBe(false);
  });

  it('coalesces a repeated operation into one tray entry, which stays while the pointer is on it', async () => {
    // Health checks on open: opening it twice is one "Check health" entry that says so.
    await go('#/health', 'Health');
    await page.getByRole('button', { name: 'Check again' }).waitFor();
    await go('#/settings', 'Settings');
    await go('#/health', 'Health');
    const entries = page.locator('.tray .op', { hasText: 'Check health' });
    await page.locator('.tray .op', { hasText: '(2 times)' }).waitFor({ timeout: 30_000 });
    expect(await entries.count()).toBe(1);
    await entries.hover();
    await page.waitForTimeout(6500);
    expect(await entries.count()).toBe(1);
    await page.mouse.move(10, 10);
    await entries.waitFor({ state: 'detached', timeout: 15_000 });
  });
});

describe('a confirm dialog whose action is running', () => {
  it('closes with Escape, and the action goes on in the tray, where its failure stays until dismissed', async () => {
    // Another Arcotheon holds this home (a terminal's adcap, say): the uninstall waits for it, then fails.
    const lock = await acquireLock(join(home, 'locks', 'home.lock'), 'e2e: another program changing this home', { waitMs: 5000 });
    try {
      await go('#/installed/acme/tables', 'Table builder');
      for (let i = 0; i < 40 && (await focused()) !== 'page:Uninstall'; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe('page:Uninstall');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Uninstall Table builder?' });
      await dialog.waitFor();
      expect(await focused()).toBe('dialog:Cancel');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('dialog:Uninstall');
      await page.keyboard.press('Enter');
      // Running: the action's button says so, Cancel became Close, and the dialog says it may be closed.
      await dialog.getByRole('button', { name: 'Uninstall…' }).waitFor();
      await dialog.getByText('You can close this: it goes on in the operations tray.').waitFor();
      expect(await focused()).toBe('dialog:Close');
      // The running dialog passes axe in light at 1280 px and dark at 800 px (the lock holds for 30 s).
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 800, height: 800 });
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // The focus is back where the dialog was opened from; the uninstall goes on in the tray, with no
      // Cancel (a call cannot be stopped halfway).
      expect(await focused()).toBe('page:Uninstall');
      const entry = page.locator('.tray .op[data-operation-state="running"]', { hasText: 'Uninstall Table builder' });
      await entry.waitFor();
      await entry.getByText('In progress').waitFor();
      expect(await entry.getByRole('button', { name: /^Cancel/ }).count()).toBe(0);
      // The home stays locked past the host's wait: the failure reaches the tray, and stays.
      const failed = page.locator('.tray [data-operation-state="failed"]', { hasText: 'Table builder could not be uninstalled' });
      await failed.waitFor({ timeout: 60_000 });
      await failed.locator('details summary').click();
      expect(await failed.locator('details').textContent()).toContain('E_LOCKED');
      await page.waitForTimeout(6500);
      expect(await failed.count()).toBe(1);
      // The kept failure passes axe, dark at 800 px and light at 1280 px.
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: 'light' });
      expect(await seriousA11yViolations(page)).toEqual([]);
      // Dismissed from the keyboard.
      await failed.getByRole('button', { name: /^Dismiss / }).focus();
      await page.keyboard.press('Enter');
      await failed.waitFor({ state: 'detached' });
    } finally {
      await lock.release();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: 'light' });
    }
    expect(await installed('acme/tables')).toBe(true);
  }, 120_000);
});

describe('a Run form with nested input', () => {
  it('adds, reorders and removes items of an array of objects from the keyboard, with errors beside their fields', async () => {
    const workspace = await tempDir('arcotheon-ui-tables-ws-');
    await go('#/run/acme/tables/tool/build_table', 'Run');
    await page.getByLabel('Folder', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await page.locator(`[data-workspace-path="${workspace}"]`).waitFor();
    const form = page.locator('.run-form');
    // No icon-font buttons: every button says what it does.
    expect(await form.locator('.glyphicon').count()).toBe(0);
    for (const name of await form.getByRole('button').evaluateAll((els) => els.map((b) => (b.textContent ?? '').trim())))
      expect(name).not.toBe('');

    const add = form.getByRole('button', { name: 'Add to columns' });
    await add.focus();
    await page.keyboard.press('Enter');
    // The new item's first field has the focus.
    expect(await focused()).toBe('page:input_columns_0_name');
    await page.keyboard.type('city');
    await add.focus();
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('page:input_columns_1_name');
    await page.keyboard.type('total');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    const names = (): Promise<string[]> =>
      form.locator('input[id$="_name"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    expect(await names()).toEqual(['city', 'total']);
    await form.locator('fieldset legend', { hasText: 'columns 2' }).waitFor();
    expect(await form.getByText(/columns-\d/).count()).toBe(0);

    // Move "total" up: the focus follows it.
    await form.getByRole('button', { name: 'Move up: columns 2' }).focus();
    await page.keyboard.press('Enter');
    await until(async () => JSON.stringify(await names()) === JSON.stringify(['total', 'city']), 'total to move up');
    expect(await focused()).toMatch(/^page:input_columns_0__move(Up|Down)$/);
    // A third item, removed again: the focus goes to the item that takes its place.
    await add.click();
    await page.keyboard.type('spare');
    await form.getByRole('button', { name: 'Remove: columns 3' }).click();
    expect(await names()).toEqual(['total', 'city']);
    expect(await focused()).not.toBe('body');

    // Run without the required path: the error is under path (not under another field), path has the focus.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const pathError = page.locator('#input_path__error');
    await pathError.waitFor();
    expect(await pathError.textContent()).toContain('needs a value');
    expect(await page.locator('#input_maxRows__error').count()).toBe(0);
    expect(await focused()).toBe('page:input_path');
    await page.locator('.run-form .errors', { hasText: 'path needs a value' }).waitFor();

    // A failing run, then a refused one: the old failure does not stay on screen.
    await page.keyboard.type('fail.csv');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    // On the screen (the tray has it too, until dismissed).
    const failure = page.locator('.screen .error-box', { hasText: 'build_table' });
    await failure.waitFor({ timeout: 60_000 });
    await page.locator('#input_path').fill('');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await pathError.waitFor();
    expect(await failure.count()).toBe(0);

    // A good run: the output lists the columns in the order the user set.
    await page.locator('#input_path').fill('data.csv');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'Output' }).waitFor({ timeout: 60_000 });
    const cells = await page
      .locator('table.data tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) =>
          Array.from(
            (r as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }).querySelectorAll('td'),
          ).map((c) => c.textContent),
        ),
      );
    expect(cells).toEqual([
      ['1', 'total', 'number'],
      ['2', 'city', 'text'],
    ]);
    expect(app.errors).toEqual([]);
  }, 180_000);

  for (const colorScheme of ['light', 'dark'] as const)
    for (const width of [1280, 800])
      it(`has no serious axe finding with nested items and their errors (${colorScheme}, ${width} px)`, async () => {
        const other = await openApp(ui, { colorScheme, width });
        try {
          const p = other.page;
          await p.evaluate(
            () => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/run/acme/tables/tool/build_table'),
          );
          await p.locator('.run-form form').waitFor();
          await p.getByRole('button', { name: 'Add to columns' }).click();
          await p.getByRole('button', { name: 'Add to columns' }).click();
          await p.getByRole('button', { name: 'Run', exact: true }).click();
          await p.locator('#input_path__error').waitFor();
          expect(await seriousA11yViolations(p)).toEqual([]);
          // At 800 px the form fits: no horizontal scroll in the screen.
          const overflow = await p.evaluate(() => {
            const main = (
              globalThis as unknown as { document: { querySelector(s: string): { scrollWidth: number; clientWidth: number } | null } }
            ).document.querySelector('.screen');
            return main === null ? 0 : main.scrollWidth - main.clientWidth;
          });
          expect(overflow).toBe(0);
        } finally {
          await other.close();
        }
      });
});
