/**
 * "Install from file…" with an MCP Bundle (docs/spec/mcp-runtime.md "MCP Bundles"), in Chromium:
 * the fixture MCP server written with the official MCP SDK, packed with the official `mcpb` CLI,
 * picked in the file input; the import dialog shows its server, tools, the network choice and its
 * settings (the sensitive one a password field); the user lists a host and gives the secret; the
 * install dialog shows the plan (the listed host, the secret's variable, signed with your own key)
 * and installs it; the Installed screen says "Added by you from fixture.mcpb"; the echo tool runs
 * from the Run screen under the sandbox, and the secret reaches the server (its digest comes back)
 * without being in the page, the audit log or the server's output. The dialog is checked with axe
 * and photographed in both themes at 1280 and 800 px wide (ARCOTHEON_E2E_SHOTS names the folder).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleTs } from '../../test/helpers/spawn-ts.js';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type UiProcess } from './helpers/app.js';
import { tempDir } from './helpers/registry.js';

const MCPB_CLI = fileURLToPath(new URL('../../node_modules/@anthropic-ai/mcpb/dist/cli/cli.js', import.meta.url));
const SERVER_SOURCE = fileURLToPath(new URL('../../test/fixtures/mcp-server/server.ts', import.meta.url));
const SECRET = 'mcpb-ui-secret-3b7e-never-shown';
const ID = 'acme-tools/fixture-server';

let ui: UiProcess;
let work: string;
let packed: string;
/** The same server in a bundle that does not list its tools (tools_generated). */
let generated: string;

function run(command: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

beforeAll(async () => {
  await assertBuilt();
  work = await tempDir('arcotheon-ui-mcpb-');
  const folder = join(work, 'bundle');
  await mkdir(join(folder, 'server'), { recursive: true });
  await copyFile(await bundleTs(SERVER_SOURCE), join(folder, 'server', 'index.mjs'));
  const manifest = (extra: Record<string, unknown>): string =>
    JSON.stringify(
      {
        manifest_version: '0.3',
        name: 'fixture-server',
        display_name: 'Fixture server',
        version: '1.0.0',
        description: 'Echo, read a file, fetch a URL.',
        author: { name: 'Acme Tools' },
        server: {
          type: 'node',
          entry_point: 'server/index.mjs',
          mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'], env: { API_KEY: '${user_config.api_key}' } },
        },
        tools: [
          { name: 'echo', description: 'Says the text back.' },
          { name: 'read_file', description: 'Reads a file.' },
          { name: 'fetch_url', description: 'Fetches a URL.' },
          { name: 'config_digest', description: 'The SHA-256 of its API key.' },
        ],
        user_config: {
          api_key: { type: 'string', title: 'API key', description: 'Your key for the service.', sensitive: true, required: true },
          root: { type: 'directory', title: 'Folder', description: 'Where it reads files.' },
        },
        compatibility: { platforms: ['linux', 'darwin'], runtimes: { node: '>=18' } },
        ...extra,
      },
      null,
      2,
    );
  await writeFile(join(folder, 'manifest.json'), manifest({}));
  packed = join(work, 'fixture.mcpb');
  const packing = await run(process.execPath, [MCPB_CLI, 'pack', folder, packed]);
  expect(packing.code, packing.stderr).toBe(0);
  await writeFile(
    join(folder, 'manifest.json'),
    manifest({ name: 'listing-server', display_name: 'Listing server', tools: [], tools_generated: true }),
  );
  generated = join(work, 'listing.mcpb');
  const packingGenerated = await run(process.execPath, [MCPB_CLI, 'pack', folder, generated]);
  expect(packingGenerated.code, packingGenerated.stderr).toBe(0);
  // Not a user's run: a HOME and configuration folder of the test's own, where the user's own
  // publisher key is made; no built-in registry.
  ui = await startUi(join(work, 'home'), {
    ARCOTHEON_EMBEDDED_REGISTRY: '',
    HOME: join(work, 'user'),
    XDG_CONFIG_HOME: join(work, 'user', '.config'),
  });
}, 180_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
});

async function pickBundle(page: Page): Promise<void> {
  await page.locator('#sideload-file').setInputFiles(packed);
  await page.getByRole('dialog', { name: 'Import Fixture server?' }).getByText('Says the text back.').waitFor({ timeout: 60_000 });
}

const shots = process.env['ARCOTHEON_E2E_SHOTS'];

describe('Install from file… with an MCP Bundle', () => {
  for (const [colorScheme, width] of [
    ['light', 1280],
    ['dark', 800],
  ] as const) {
    it(`shows the import plan, axe-clean, in the ${colorScheme} theme at ${width} px`, async () => {
      const app = await openApp(ui, { colorScheme, width });
      try {
        await pickBundle(app.page);
        const dialog = app.page.getByRole('dialog', { name: 'Import Fixture server?' });
        await dialog.getByText('A Node.js server,', { exact: false }).waitFor();
        if (shots !== undefined) await app.page.screenshot({ path: join(shots, `mcpb-import-top-${colorScheme}-${width}.png`) });
        // With no server listed: the High-risk sentence.
        await dialog.locator('[data-network="any"]', { hasText: 'Connect to any server on the internet' }).waitFor();
        if (shots !== undefined) {
          await dialog.locator('[data-network="any"]').scrollIntoViewIfNeeded();
          await app.page.screenshot({ path: join(shots, `mcpb-import-any-${colorScheme}-${width}.png`) });
        }
        expect(await seriousA11yViolations(app.page)).toEqual([]);
        await dialog.getByLabel('Server', { exact: true }).fill('allowed.example');
        await dialog.getByRole('button', { name: 'Add server' }).click();
        await dialog.getByText('allowed.example', { exact: true }).waitFor();
        expect(await dialog.locator('[data-network="any"]').count()).toBe(0);
        expect(await dialog.getByLabel(/^API key/).getAttribute('type')).toBe('password');
        await dialog.getByLabel(/^API key/).fill(SECRET);
        if (shots !== undefined)
          await app.page.screenshot({ path: join(shots, `mcpb-import-${colorScheme}-${width}.png`), fullPage: true });
        expect(await seriousA11yViolations(app.page)).toEqual([]);
        expect(app.errors).toEqual([]);
      } finally {
        await app.close();
      }
    }, 120_000);
  }

  it('imports with a listed host and the secret, installs signed with your own key, and runs echo from the Run screen', async () => {
    const app = await openApp(ui);
    const page = app.page;
    try {
      await pickBundle(page);
      const dialog = page.getByRole('dialog', { name: 'Import Fixture server?' });
      // Continue waits for the required secret.
      const proceed = dialog.getByRole('button', { name: 'Continue' });
      expect(await proceed.isDisabled()).toBe(true);
      await dialog.getByLabel('Server', { exact: true }).fill('allowed.example');
      await dialog.getByRole('button', { name: 'Add server' }).click();
      await dialog.getByLabel(/^API key/).fill(SECRET);
      await proceed.click();

      const install = page.getByRole('dialog', { name: 'Install Fixture server?' });
      await install.locator('[data-grant="net:connect:allowed.example"]').waitFor({ timeout: 60_000 });
      await install.locator('[data-grant="env:read:API_KEY"]').waitFor();
      await install.locator('[data-grant="fs:read:workspace"]').waitFor();
      await install.locator('[data-warning-level="info"]', { hasText: 'is added by you' }).waitFor();
      expect(await install.locator('[data-warning-level="danger"]').count()).toBe(0);
      if (shots !== undefined) await page.screenshot({ path: join(shots, 'mcpb-install-plan-light-1280.png'), fullPage: true });
      expect(await seriousA11yViolations(page)).toEqual([]);
      await install.getByRole('button', { name: 'Install', exact: true }).click();
      // The install dialog either says it is done or hands the install to the operations tray.
      await install.waitFor({ state: 'detached', timeout: 120_000 });
      const done = page.getByRole('dialog', { name: 'Fixture server is installed' });
      if ((await done.count()) > 0) await done.getByRole('button', { name: 'Done' }).click();

      await page.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/installed'));
      const added = page.locator('[data-added-from]').first();
      await added.waitFor({ timeout: 120_000 });
      await expect(added.textContent()).resolves.toBe('Added by you from fixture.mcpb');
      // The secret went to the store env:read values come from (adcap secret set's, as this is arcotheon ui).
      const secrets = JSON.parse(await readFile(join(ui.home, 'secrets.json'), 'utf8')) as { values: Record<string, string> };
      expect(secrets.values[`${ID} API_KEY`]).toBe(SECRET);

      await page.evaluate((id) => ((globalThis as unknown as { location: { hash: string } }).location.hash = `#/run/${id}/tool/echo`), ID);
      await page.getByLabel(/text/i).first().fill('hello from the manager');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('echo: hello from the manager').first().waitFor({ timeout: 60_000 });

      // The secret reached the server (the digest of what it was given comes back) ...
      await page.evaluate(
        (id) => ((globalThis as unknown as { location: { hash: string } }).location.hash = `#/run/${id}/tool/config_digest`),
        ID,
      );
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const digest = createHash('sha256').update(SECRET).digest('hex');
      await page.getByText(digest).first().waitFor({ timeout: 60_000 });
      // ... and is nowhere it should not be: the page, the audit log.
      expect(await page.content()).not.toContain(SECRET);
      const auditDir = join(ui.home, 'audit');
      for (const file of await readdir(auditDir)) expect(await readFile(join(auditDir, file), 'utf8')).not.toContain(SECRET);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  }, 240_000);

  it('a bundle that does not list its tools: its server is asked in the sandbox, its tools shown before the install', async () => {
    const app = await openApp(ui);
    const page = app.page;
    try {
      await page.locator('#sideload-file').setInputFiles(generated);
      const dialog = page.getByRole('dialog', { name: 'Import Listing server?' });
      await dialog.getByText('The bundle does not list its tools', { exact: false }).waitFor({ timeout: 60_000 });
      await dialog.getByLabel('No network: it needs none').check();
      expect(await dialog.locator('[data-network="any"]').count()).toBe(0);
      await dialog.getByLabel(/^API key/).fill(SECRET);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      const tools = dialog.getByRole('list', { name: 'Tools its server lists' });
      await tools.waitFor({ timeout: 60_000 });
      expect((await tools.locator('code').allTextContents()).sort()).toEqual(['config_digest', 'echo', 'fetch_url', 'read_file']);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      const install = page.getByRole('dialog', { name: 'Install Listing server?' });
      await install.locator('[data-grant="env:read:API_KEY"]').waitFor({ timeout: 60_000 });
      // No network chosen: no net:connect at all.
      expect(await install.locator('[data-grant^="net:connect"]').count()).toBe(0);
      await install.getByRole('button', { name: 'Cancel' }).click();
      await install.waitFor({ state: 'detached' });
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  }, 180_000);
});
