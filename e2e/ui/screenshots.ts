/**
 * `npm run screenshots`: regenerates docs/screenshots/*.png, the pictures at the top of README.md.
 * The example capabilities (examples/) are published to a signed test registry with one extra
 * release (CSV summary 1.1.0, which asks to write files), a temp home installs some of them, and
 * `arcotheon ui` is driven in Chromium at 1280×800 through the screens a new user sees.
 * Deterministic inputs; the pictures change only when the UI or the examples do.
 */
import { mkdir, readdir, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import { closeBrowser, openInBrowser, startUi } from './helpers/app.js';
import { tempDir, UiRegistry, type CapabilitySource } from './helpers/registry.js';

const repo = join(import.meta.dirname, '..', '..');
const out = join(repo, 'docs', 'screenshots');

async function walk(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'releases.json') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else files.push(path);
  }
  return files;
}

/** An example's source folder as a CapabilitySource, with manifest edits. */
async function example(name: string, edit: (m: Record<string, unknown>) => void = () => undefined): Promise<CapabilitySource> {
  const dir = join(repo, 'examples', name);
  const manifest = JSON.parse(await readFile(join(dir, 'capability.json'), 'utf8')) as CapabilitySource['manifest'];
  edit(manifest);
  const files: Record<string, string> = {};
  for (const file of await walk(dir)) {
    const rel = relative(dir, file).split('\\').join('/');
    if (rel !== 'capability.json') files[rel] = await readFile(file, 'utf8');
  }
  return { manifest, files };
}

async function go(page: Page, hash: string, heading: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await page.getByRole('heading', { name: heading, level: 1, exact: true }).waitFor();
}

async function shot(page: Page, name: string): Promise<void> {
  // Finished operations leave the tray; let fonts and layout settle.
  const dismiss = page.getByRole('button', { name: /^Dismiss / });
  // The tray also clears finished operations by itself, so a button may go away under the click.
  for (let i = 0; i < 10 && (await dismiss.count()) > 0; i++)
    await dismiss
      .first()
      .click({ timeout: 2000 })
      .catch(() => undefined);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(out, `${name}.png`) });
  console.log(`docs/screenshots/${name}.png`);
}

const reg = await UiRegistry.create();
const examples = [
  'acme-csv-summary',
  'acme-data-report',
  'acme-contract-review',
  'acme-github-repo',
  'arcotheon-commit-messages',
  'arcotheon-http-reference',
  'arcotheon-todo-finder',
  'arcotheon-workspace-stats',
];
for (const name of examples) await reg.publish(await example(name));
const home = await reg.newHome();
for (const id of ['acme/csv-summary', 'arcotheon/workspace-stats', 'arcotheon/todo-finder'])
  await reg.adcapJson(home, ['install', id, '--yes']);
await reg.adcapJson(home, ['disable', 'arcotheon/todo-finder']);
await reg.publish(
  await example('acme-csv-summary', (m) => {
    m['version'] = '1.1.0';
    m['changelog'] = '1.1.0: saves the profile next to your CSV file, so you can compare runs.';
    m['permissions'] = [
      ...(m['permissions'] as object[]),
      { id: 'fs:write', scope: 'workspace', reason: 'Saves the profile as <file>.profile.json next to the CSV you name.' },
    ];
  }),
);
const workspace = await tempDir('arcotheon-screens-ws-');
await copyFile(join(repo, 'examples', 'acme-csv-summary', 'samples', 'sales.csv'), join(workspace, 'sales.csv'));

const ui = await startUi(home, reg.env);
await mkdir(out, { recursive: true });
try {
  for (const scheme of ['light', 'dark'] as const) {
    const app = await openInBrowser(await ui.signInUrl(), { colorScheme: scheme });
    const page = app.page;
    await page.locator('a.card').nth(5).waitFor();
    // Each card's overall risk comes from the host a moment after the cards.
    await page.locator('a.card [data-card-risk]').nth(5).waitFor();
    if (scheme === 'dark') {
      await shot(page, 'catalogue-dark');
      // The Installed list at the narrowest width the layout supports (800 px), dark: the Enabled
      // switch on each row, one capability switched off.
      await page.setViewportSize({ width: 800, height: 640 });
      await go(page, '#/installed', 'Installed');
      await page.locator('[data-toggle-for] input').first().waitFor();
      await page.locator('a.card [data-card-risk]').nth(2).waitFor();
      await shot(page, 'installed-dark-800');
      await app.close();
      continue;
    }
    await shot(page, 'catalogue');

    await go(page, '#/capability/acme/data-report', 'Data report');
    await shot(page, 'capability');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Install', exact: true }).waitFor();
    await shot(page, 'install-dialog');
    await page.keyboard.press('Escape');

    await go(page, '#/updates', 'Updates');
    await page.locator('[data-update="acme/csv-summary"]').waitFor();
    await shot(page, 'updates');

    await go(page, '#/run/acme/csv-summary/tool/summarize_csv', 'Run');
    await page.getByLabel('Folder', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await page.getByLabel(/^path/).fill('sales.csv');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByRole('heading', { name: 'Output' })
      .waitFor({ timeout: 60_000 })
      .catch(() => undefined);
    // Taller, so the form and the start of its output fit in one picture.
    await page.setViewportSize({ width: 1280, height: 1180 });
    await page.evaluate(`document.querySelector('.breadcrumb')?.scrollIntoView({ block: 'start' })`);
    await shot(page, 'run-form');
    await page.setViewportSize({ width: 1280, height: 800 });

    // A damaged install, found by the doctor.
    const statsDir = join(home, 'packages', 'arcotheon', 'workspace-stats');
    const version = (await readdir(statsDir)).find((d) => /^\d/.test(d)) as string;
    await writeFile(join(statsDir, version, 'tools', 'main.mjs'), '// changed after install\n');
    await go(page, '#/health', 'Health');
    await page.locator('[data-problem="damaged-install"]').first().waitFor();
    await page.getByRole('button', { name: 'Preview repairs' }).click();
    await page.getByRole('heading', { name: 'A repair would' }).waitFor();
    await shot(page, 'doctor');
    await app.close();
  }
} finally {
  await closeBrowser();
  await ui.stop();
  await reg.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}
