/**
 * What the capability page and Settings say is true, and they say it at once (docs/ui.md "Cards and
 * pages", "Permissions", "States and feel"), in Chromium against `arcotheon ui` and a signed test
 * registry over HTTPS (test CA):
 *  - a capability page on a slow registry shows its name and permissions within moments, while its
 *    archive (served at about 100 KiB/s, so half a minute for 2.9 MiB) is not fetched at all;
 *  - the overall risk counts a dependency that may connect to any server (High, with its reason),
 *    and a skill that ships a program; the install dialog's header and Discover's cards say the same,
 *    and the dialog names each item (the dependency by its name, its id and publisher beside it);
 *  - a registry's status is its last attempt's: a fresh home shows none as failed, and a mirror
 *    that just went offline says "last check failed" with the reason in the UI's words, and a banner.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote } from '../../sdk/src/registry/remotes.js';
import { TestServer } from '../../test/helpers/test-server.js';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type AppDriver, type UiProcess } from './helpers/app.js';
import { manifest, UiRegistry } from './helpers/registry.js';

/** Random bytes, base64 in the package: the archive stays about this size (base64 compresses back to its entropy). */
const BIG_BYTES = Math.round(2.8 * 1024 * 1024);
/** The throttled archive's rate: 2.9 MiB takes about 30 s. */
const SLOW_BYTES_PER_SECOND = 100 * 1024;

let reg: UiRegistry;
let mirror: TestServer;
let ui: UiProcess;
let app: AppDriver;
let page: Page;
let bigArchivePath: string;

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

/** The server path of a version's archive, from the registry's package document. */
async function archivePath(id: string, version: string): Promise<string> {
  const doc = JSON.parse(await readFile(join(reg.registry.dir, 'v1', 'packages', `${id}.json`), 'utf8')) as {
    versions: Record<string, { archive: { urls: string[] } }>;
  };
  const url = doc.versions[version]?.archive.urls[0] ?? '';
  return new URL(url, reg.url).pathname;
}

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(
    {
      manifest: manifest('acme/big-report', '1.0.0', {
        name: 'Big report',
        summary: 'Writes a long report from your figures.',
        permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads the figures you choose.' }],
        dependencies: { 'acme/fetcher': '^1.0.0' },
        readme: 'README.md',
      }),
      files: { 'README.md': '# Big report\n', 'data/blob.txt': randomBytes(BIG_BYTES).toString('base64') },
    },
    {
      manifest: manifest('acme/fetcher', '1.0.0', {
        name: 'Fetcher',
        summary: 'Fetches pages for other capabilities.',
        permissions: [{ id: 'net:connect', reason: 'Fetches whatever page it is given.' }],
      }),
    },
    {
      manifest: manifest('acme/proof-skills', '1.0.0', {
        name: 'Proof skills',
        summary: 'Teaches your agent to proofread, with a checker script.',
        skills: [{ path: 'skills/proofread' }],
      }),
      files: {
        'skills/proofread/SKILL.md': '---\nname: proofread\ndescription: Proofreads a text.\n---\n\nRun scripts/check.py on the text.\n',
        'skills/proofread/scripts/check.py': 'print("ok")\n',
      },
    },
  );
  // The archive of acme/big-report trickles out; everything else is served as usual.
  bigArchivePath = await archivePath('acme/big-report', '1.0.0');
  const bytes = await readFile(join(reg.registry.dir, 'v1', bigArchivePath.slice(bigArchivePath.indexOf('/v1/') + '/v1/'.length)));
  expect(bytes.length).toBeGreaterThan(2.5 * 1024 * 1024);
  reg.server.route(bigArchivePath, async (_req, res) => {
    res.statusCode = 200;
    res.setHeader('content-length', String(bytes.length));
    let closed = false;
    res.once('close', () => (closed = true));
    for (let at = 0; at < bytes.length && !closed; at += SLOW_BYTES_PER_SECOND / 10) {
      res.write(bytes.subarray(at, Math.min(bytes.length, at + SLOW_BYTES_PER_SECOND / 10)));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    res.end();
  });

  // A second server with the same signed files: the mirror that will go offline.
  mirror = await TestServer.start({ protocol: 'https' });
  const mirrorUrl = await reg.registry.mount(mirror);
  const home = await reg.newHome();
  await reg.adcapJson(home, ['remote', 'add', 'mirror', mirrorUrl, '--root-key', reg.registry.rootKey.publicKey]);
  // And one on the network that this home has never read (a fresh home's registry).
  await addRemote(home, { name: 'fresh', url: reg.url, rootKeys: [reg.registry.rootKey.publicKey] });
  ui = await startUi(home, reg.env);
  app = await openApp(ui);
  page = app.page;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await closeBrowser();
  await ui?.stop();
  await mirror?.close().catch(() => undefined);
  await reg?.close();
});

describe('pages that say what is true, at once', () => {
  it('shows a capability page from metadata while its archive is not fetched (slow registry)', async () => {
    const before = reg.server.statsFor(bigArchivePath).requests;
    const started = Date.now();
    await go('#/capability/acme/big-report');
    await page.getByRole('heading', { name: 'Big report', level: 1 }).waitFor({ timeout: 10_000 });
    await page.locator('.permission', { hasText: 'Read files in the folder you choose for each run' }).waitFor({ timeout: 10_000 });
    const shownMs = Date.now() - started;
    // The archive takes ~30 s at this rate; the page needs none of it (a loaded 2-core machine: a few seconds at most).
    expect(shownMs).toBeLessThan(10_000);
    await page.getByRole('heading', { name: 'Versions' }).waitFor();
    expect(await page.locator('[data-version="1.0.0"]').textContent()).toMatch(/[23]\.\d MiB/);
    // What is inside comes from the registry's summary; the readme waits for a download the user asks for.
    await page.locator('[data-package="not-downloaded"]').waitFor();
    await page.getByRole('button', { name: /^Show readme and tool inputs \(downloads [23]\.\d MiB\)$/ }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(reg.server.statsFor(bigArchivePath).requests - before).toBe(0);
    console.log(`capability page on a slow registry: name and permissions after ${shownMs} ms; archive requests: 0`);
  });

  it("counts a dependency's access in the overall risk, with the reason, on the page and in the install dialog", async () => {
    const overall = page.locator('[data-overall-risk]').first();
    await overall.waitFor();
    expect(await overall.getAttribute('data-overall-risk')).toBe('high');
    expect(await overall.textContent()).toContain('A dependency, Fetcher (acme/fetcher), may connect to any server on the internet.');
    const dependency = page.locator('[data-dependency="acme/fetcher"]');
    await dependency.getByText('Connect to any server on the internet').waitFor();
    expect(await dependency.locator('[data-risk="high"], .risk.high').count()).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Big report?' });
    const header = dialog.locator('[data-overall-risk]');
    await header.waitFor();
    expect(await header.getAttribute('data-overall-risk')).toBe('high');
    expect(await header.textContent()).toContain('A dependency, Fetcher (acme/fetcher), may connect to any server on the internet.');
    // Each item by its name (the catalogue's record), its id and publisher as secondary text.
    const dependencyRow = dialog.locator('[data-plan-item="acme/fetcher"]');
    expect((await dependencyRow.locator('strong').textContent())?.trim()).toBe('Fetcher');
    expect(await dependencyRow.locator('.plan-item-meta').textContent()).toBe('acme/fetcher · by acme Inc.');
    expect(await dialog.locator('[data-plan-item="acme/big-report"] strong').textContent()).toBe('Big report');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('counts a program a skill ships as high risk, with the reason', async () => {
    await go('#/capability/acme/proof-skills');
    await page.getByRole('heading', { name: 'Proof skills', level: 1 }).waitFor();
    const overall = page.locator('[data-overall-risk]').first();
    await overall.waitFor();
    expect(await overall.getAttribute('data-overall-risk')).toBe('high');
    expect(await overall.textContent()).toContain(
      'It ships 1 program in its skill proofread that your agent may run outside Arcotheon’s sandbox.',
    );
    await page.getByText('proofread contains 1 program your agent may run with your permissions').waitFor();
  });

  it("shows each card's overall risk on Discover, the page's: High from a dependency or a skill's program, with the reason", async () => {
    await go('#/discover');
    const list = page.locator('[role="list"][aria-label="Capabilities"]');
    const card = (id: string) => list.locator(`a.card[data-id="${id}"]`);
    const expected: Array<[string, string]> = [
      ['acme/big-report', 'High: a dependency, Fetcher (acme/fetcher), may connect to any server on the internet.'],
      ['acme/fetcher', 'High: it may connect to any server on the internet.'],
      ['acme/proof-skills', 'High: it ships 1 program in its skill proofread that your agent may run outside Arcotheon’s sandbox.'],
    ];
    for (const [id, reason] of expected) {
      const marker = card(id).locator('[data-card-risk]');
      await marker.waitFor({ timeout: 20_000 });
      // The level by shape and word (the three-step meter and "High risk"), never "No risk".
      expect(await marker.getAttribute('data-card-risk')).toBe('high');
      expect(await marker.locator('.badge').textContent()).toBe('▮▮▮High risk');
      // The reason: the tooltip, and the card link's accessible description.
      expect(await marker.getAttribute('title')).toBe(reason);
      const describedBy = await card(id).getAttribute('aria-describedby');
      expect(await page.locator(`[id="${describedBy ?? ''}"]`).textContent()).toBe(reason);
    }
    // The card link's name stays short: the reason is its description, not part of its name.
    const name = await card('acme/big-report').evaluate((a) => (a as { innerText: string }).innerText);
    expect(name).not.toContain('may connect');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('says each registry’s status from its last attempt: none failed on a fresh home, then an offline mirror with its reason', async () => {
    await page.keyboard.press('Control+6');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const row = (name: string) => page.locator(`li[data-remote="${name}"]`);
    // Discover read the registries when the app opened; nothing failed, so nothing is flagged.
    for (const name of ['test', 'mirror', 'fresh']) {
      await row(name).locator('[data-remote-state="verified"], [data-remote-state="unread"]').waitFor();
    }
    expect(await page.locator('[data-banner="catalogue"]').count()).toBe(0);
    expect(await page.getByText('could not be verified').count()).toBe(0);

    await mirror.close();
    await row('mirror').getByRole('button', { name: 'Refresh' }).click();
    await row('mirror').locator('[data-remote-state="failed"]').waitFor({ timeout: 30_000 });
    const error = row('mirror').locator('[data-remote-error]');
    expect(await error.getAttribute('data-remote-error')).toBe('E_DOWNLOAD');
    expect(await error.textContent()).toMatch(/^The registry "mirror" could not be reached, so its catalogue was not checked: /);
    expect(await error.textContent()).toContain('Check the internet connection, then press Refresh beside the registry in Settings.');
    expect(await row('mirror').locator('[data-remote-line]').textContent()).toMatch(
      /^Last checked just now, without success · the catalogue in use was verified /,
    );
    // The others keep their own status.
    await row('test').locator('[data-remote-state="verified"]').waitFor();
    // And the banner above every screen says it too.
    const banner = page.locator('[data-banner="catalogue"][data-remote="mirror"]');
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain('The registry "mirror" could not be checked; Discover shows its catalogue verified');
  });

  it('has no serious or critical axe finding on these screens, light and dark, 1280 and 800 px', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 800 });
        await page.emulateMedia({ colorScheme });
        for (const [hash, heading] of [
          ['#/capability/acme/big-report', 'Big report'],
          ['#/capability/acme/proof-skills', 'Proof skills'],
          ['#/settings', 'Settings'],
        ] as const) {
          await go(hash);
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
          await page.waitForTimeout(300);
          for (const v of await seriousA11yViolations(page))
            found.push(`${colorScheme} ${width} ${hash}: ${v.id} ${v.help} ${v.nodes.join(' ')}`);
        }
        // Discover's cards with their risk markers, and the install dialog naming each item.
        await go('#/discover');
        await page.locator('[role="list"][aria-label="Capabilities"] a.card[data-id="acme/big-report"] [data-card-risk]').waitFor();
        for (const v of await seriousA11yViolations(page))
          found.push(`${colorScheme} ${width} #/discover: ${v.id} ${v.help} ${v.nodes.join(' ')}`);
        const dir = process.env['E2E_SCREENSHOTS'];
        if (dir !== undefined) await page.screenshot({ path: join(dir, `discover-risk-${colorScheme}-${width}.png`) });
        await go('#/capability/acme/big-report');
        await page.getByRole('heading', { name: 'Big report', level: 1 }).waitFor();
        await page.getByRole('button', { name: 'Install', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Install Big report?' });
        await dialog.locator('[data-plan-item="acme/fetcher"]').waitFor();
        for (const v of await seriousA11yViolations(page))
          found.push(`${colorScheme} ${width} install dialog: ${v.id} ${v.help} ${v.nodes.join(' ')}`);
        if (dir !== undefined) await page.screenshot({ path: join(dir, `install-dialog-${colorScheme}-${width}.png`) });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
    }
    expect(found).toEqual([]);
    // Four passes over five screens and a dialog, axe on each: minutes on a loaded machine.
  }, 240_000);
});
