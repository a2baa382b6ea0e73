/**
 * The manager UI under an organisation policy, as a person meets it: `arcotheon ui` as a
 * real child process started with ARCOTHEON_POLICY naming a policy file in a temp folder, a signed
 * test registry over HTTPS, Chromium driving the page. The policy requires one capability, recommends another, blocks
 * two (one of them installed before the policy came) and never grants `process:exec`. The host
 * applies the policy at start-up; every outcome is checked through `adcap list --json` on the same
 * home (what is installed, disabled, managed), not only on the screen.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type AppDriver, type UiProcess } from './helpers/app.js';
import { manifest, nodeTool, tempDir, UiRegistry, type CapabilitySource } from './helpers/registry.js';

interface Listed {
  id: string;
  version: string;
  grants: string[];
  disabled: { at: string; by: 'user' | 'policy'; rule?: string } | null;
  managed: { text: string; required?: string; blocked?: string } | null;
}

const COMPLIANCE: CapabilitySource = {
  manifest: manifest('acme/compliance', '1.0.0', {
    name: 'Compliance checker',
    summary: 'Checks documents against the company rules.',
    permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads the documents it checks.' }],
  }),
};
/** Recommended by the policy: suggested on Discover's first screen, never installed for the user. */
const HANDBOOK: CapabilitySource = {
  manifest: manifest('acme/handbook', '1.0.0', { name: 'Staff handbook', summary: 'Answers questions from the staff handbook.' }),
};
const LEGACY: CapabilitySource = {
  manifest: manifest('acme/legacy', '1.0.0', { name: 'Legacy sync', summary: 'Syncs files the old way.' }),
};
const BANNED: CapabilitySource = {
  manifest: manifest('acme/banned', '1.0.0', { name: 'Banned helper', summary: 'Something the organisation does not allow.' }),
};
const SHELL: CapabilitySource = {
  manifest: manifest('acme/shell', '1.0.0', {
    name: 'Shell runner',
    summary: 'Runs git for you.',
    permissions: [{ id: 'process:exec', scope: 'git', reason: 'Runs git in your folder.' }],
    tools: [
      {
        name: 'status',
        description: 'git status.',
        runtime: { type: 'node', entry: 'tools/main.mjs' },
        inputSchema: { type: 'object' },
        permissions: ['process:exec:git'],
      },
    ],
  }),
  files: { 'tools/main.mjs': nodeTool('{ ok: true }') },
};

let reg: UiRegistry;
let home: string;
let policyPath: string;
let ui: UiProcess;
let app: AppDriver;
let page: Page;

const list = (): Promise<Listed[]> => reg.adcapJson<Listed[]>(home, ['list']);
const installed = async (id: string): Promise<Listed | undefined> => (await list()).find((c) => c.id === id);

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(COMPLIANCE, HANDBOOK, LEGACY, BANNED, SHELL);
  home = await reg.newHome();
  // Installed before the organisation's policy arrived; the policy blocks it.
  await reg.adcapJson(home, ['install', 'acme/legacy', '--yes']);
  const folder = await tempDir('arcotheon-ui-policy-');
  await mkdir(folder, { recursive: true });
  policyPath = join(folder, 'policy.json');
  await writeFile(
    policyPath,
    JSON.stringify({
      policy: 1,
      organisation: 'Acme IT',
      contact: 'it@acme.example',
      remotes: [{ name: 'test', url: reg.url, rootKeys: [reg.registry.rootKey.publicKey] }],
      required: ['acme/compliance'],
      // Already required, so shown once, under "Required by"; the handbook under "Recommended by".
      recommended: ['acme/handbook@^1.0.0', 'acme/compliance'],
      blocked: ['acme/legacy', 'acme/banned'],
      deniedPermissions: ['process:exec'],
    }),
  );
  // From here on, every child (arcotheon ui, and adcap checking the outcomes) is under the policy.
  process.env['ARCOTHEON_POLICY'] = policyPath;
  ui = await startUi(home, reg.env);
  app = await openApp(ui);
  page = app.page;
}, 120_000);

afterAll(async () => {
  delete process.env['ARCOTHEON_POLICY'];
  await app?.close();
  await closeBrowser();
  const code = await ui?.stop();
  await reg?.close();
  expect(code).toBe(0);
});

describe('the manager UI under an organisation policy', () => {
  it('applies the policy at start-up: the required capability is installed, the blocked one disabled', async () => {
    await until(
      async () => (await installed('acme/compliance')) !== undefined && (await installed('acme/legacy'))?.disabled?.by === 'policy',
      'the start-up policy apply',
    );
    const compliance = await installed('acme/compliance');
    // Its permissions are granted by the policy: no one was asked.
    expect(compliance).toMatchObject({
      version: '1.0.0',
      grants: ['fs:read:workspace'],
      disabled: null,
      managed: { required: 'acme/compliance' },
    });
    expect(compliance?.managed?.text).toContain(`Managed by Acme IT (rule "required" in ${policyPath})`);
    expect(await installed('acme/legacy')).toMatchObject({
      version: '1.0.0',
      disabled: { by: 'policy', rule: 'acme/legacy' },
      managed: { blocked: 'acme/legacy' },
    });
    // Nothing went wrong, so no policy banner.
    await go('#/installed');
    await page.getByRole('heading', { name: 'Installed', level: 1 }).waitFor();
    expect(await page.locator('[data-banner="policy"]').count()).toBe(0);
  });

  it('shows what the policy requires and what it recommends first on Discover, and installs nothing recommended', async () => {
    await go('#/discover');
    const required = page.getByRole('region', { name: 'Required by Acme IT' });
    const recommended = page.getByRole('region', { name: 'Recommended by Acme IT' });
    await recommended.waitFor();
    expect(await required.locator('a.card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id')))).toEqual([
      'acme/compliance',
    ]);
    expect(await recommended.locator('a.card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id')))).toEqual([
      'acme/handbook',
    ]);
    expect(await recommended.textContent()).toContain('Nothing is installed until you choose Install.');
    // Required comes first, then Recommended, then the rest of the first screen.
    const headings = await page.locator('.first-screen h2').allTextContents();
    expect(headings.indexOf('Required by Acme IT')).toBe(0);
    expect(headings.indexOf('Recommended by Acme IT')).toBe(1);
    await required.locator('a.card[data-id="acme/compliance"]').getByText('Installed').waitFor();
    expect(await installed('acme/handbook')).toBeUndefined();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it("has no serious or critical axe finding on Discover's first screen and Installed, light and dark, 1280 and 800 px", async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 800 });
        await page.emulateMedia({ colorScheme });
        await go('#/discover');
        await page.getByRole('region', { name: 'Recommended by Acme IT' }).locator('[data-card-risk]').first().waitFor();
        for (const v of await seriousA11yViolations(page))
          found.push(`${colorScheme} ${width} discover: ${v.id} ${v.help} ${v.nodes.join(' ')}`);
        const dir = process.env['E2E_SCREENSHOTS'];
        if (dir !== undefined) await page.screenshot({ path: join(dir, `discover-policy-${colorScheme}-${width}.png`) });
        await go('#/installed');
        await page.locator('a.card[data-id="acme/compliance"] [data-card-risk]').waitFor();
        for (const v of await seriousA11yViolations(page))
          found.push(`${colorScheme} ${width} installed: ${v.id} ${v.help} ${v.nodes.join(' ')}`);
        if (dir !== undefined) await page.screenshot({ path: join(dir, `installed-${colorScheme}-${width}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(found).toEqual([]);
  });

  it('locks the Enabled switch of each managed row, with the reason', async () => {
    await go('#/installed');
    const required = page.getByRole('switch', { name: 'Enabled Compliance checker' });
    await required.waitFor();
    expect(await required.isChecked()).toBe(true);
    expect(await required.isDisabled()).toBe(true);
    await page.locator('[data-toggle-for="acme/compliance"] [data-policy-lock]', { hasText: 'Required by your organisation.' }).waitFor();
    // The reason is read with the switch (aria-describedby).
    const describedBy = await required.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy ?? ''}"]`).textContent()).toContain('Required by your organisation');

    const blocked = page.getByRole('switch', { name: 'Enabled Legacy sync' });
    expect(await blocked.isChecked()).toBe(false);
    expect(await blocked.isDisabled()).toBe(true);
    await page.locator('[data-toggle-for="acme/legacy"] [data-policy-lock]', { hasText: 'Blocked by your organisation.' }).waitFor();
    await page.locator('a.card[data-id="acme/legacy"] [data-disabled="policy"]', { hasText: 'Disabled by policy' }).waitFor();
    await page.locator('a.card[data-id="acme/compliance"]', { hasText: 'Managed by your organisation' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    if (process.env['ARCOTHEON_SCREENSHOTS'] !== undefined)
      await page.screenshot({ path: join(process.env['ARCOTHEON_SCREENSHOTS'], 'policy-installed.png'), fullPage: true });
  });

  it('shows the organisation and the rule on the required capability, and refuses to uninstall it naming the rule', async () => {
    await go('#/installed/acme/compliance');
    await page.getByRole('heading', { name: 'Compliance checker', level: 1 }).waitFor();
    const note = page.locator('[data-managed]');
    await note.getByText('Managed by your organisation.').waitFor();
    expect(await note.textContent()).toContain(
      `Managed by Acme IT (rule "required" in ${policyPath}). Ask it@acme.example if you need it.`,
    );
    const toggle = page.getByRole('switch', { name: 'Enabled' });
    expect(await toggle.isDisabled()).toBe(true);
    await page.locator('[data-policy-lock]', { hasText: 'Required by your organisation: it cannot be switched off.' }).waitFor();

    // The managed screen passes axe (no serious or critical violation).
    expect(await seriousA11yViolations(page)).toEqual([]);
    if (process.env['ARCOTHEON_SCREENSHOTS'] !== undefined)
      await page.screenshot({ path: join(process.env['ARCOTHEON_SCREENSHOTS'], 'policy-managed.png'), fullPage: true });

    await page.getByRole('button', { name: 'Uninstall' }).click();
    const dialog = page.getByRole('dialog', { name: 'Uninstall Compliance checker?' });
    await dialog.getByRole('button', { name: 'Uninstall', exact: true }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.getByText('acme/compliance is required on this computer and cannot be uninstalled.', { exact: false }).waitFor();
    expect(await refusal.textContent()).toContain('rule "required"');
    expect(await refusal.textContent()).toContain('E_POLICY');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await installed('acme/compliance')).toMatchObject({ version: '1.0.0', disabled: null });
  });

  it('shows the blocked capability as disabled by policy with the rule, and one not installed as not installable', async () => {
    await go('#/installed/acme/legacy');
    await page.getByRole('heading', { name: 'Legacy sync', level: 1 }).waitFor();
    await page.locator('[data-disabled="policy"]', { hasText: 'Disabled by policy' }).waitFor();
    expect(await page.locator('[data-managed]').textContent()).toContain(`Managed by Acme IT (rule "blocked" in ${policyPath})`);

    await go('#/capability/acme/banned');
    await page.getByRole('heading', { name: 'Banned helper', level: 1 }).waitFor();
    const reason = page.locator('[data-policy-blocked="acme/banned"]');
    await reason.waitFor();
    expect(await reason.textContent()).toContain(
      `It may not be installed on this computer. Managed by Acme IT (rule "blocked" in ${policyPath}).`,
    );
    expect(await page.getByRole('button', { name: 'Install', exact: true }).isDisabled()).toBe(true);
    expect(await installed('acme/banned')).toBeUndefined();
  });

  it('refuses an install whose plan needs a permission the policy denies, naming the rule', async () => {
    await go('#/capability/acme/shell');
    await page.getByRole('heading', { name: 'Shell runner', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Shell runner could not be installed' });
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    expect(text).toContain('acme/shell needs the permission process:exec:git, which your organisation never grants (process:exec).');
    expect(text).toContain(`Managed by Acme IT (rule "deniedPermissions" in ${policyPath})`);
    expect(text).toContain('E_POLICY');
    await page.keyboard.press('Escape');
    expect(await installed('acme/shell')).toBeUndefined();
  });

  it('lists the policy in force in Settings, with its registry marked as managed', async () => {
    await page.keyboard.press('Control+6');
    await page.getByRole('heading', { name: 'Managed by your organisation', level: 2 }).waitFor();
    await page.getByText(`Managed by Acme IT: policy ${policyPath} (ARCOTHEON_POLICY)`).waitFor();
    await page.getByText('permissions never granted: process:exec').waitFor();
    await page.getByText('recommended: acme/handbook@^1.0.0, acme/compliance').waitFor();
    await page.locator('[data-remote="test"]', { hasText: 'managed by your organisation' }).waitFor();
    expect(await page.locator('[data-remote="test"]').getByRole('button', { name: 'Remove' }).count()).toBe(0);
    expect(app.errors).toEqual([]);
  });

  it('keeps working with a policy it cannot apply, and says so in a banner above every screen', async () => {
    const bad = join(await tempDir('arcotheon-ui-bad-policy-'), 'policy.json');
    await writeFile(bad, JSON.stringify({ policy: 1, sideloading: false }));
    // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
    const other = await startUi(await reg.newHome(), { ...reg.env, ARCOTHEON_POLICY: bad });
    const second = await openApp(other);
    try {
      const banner = second.page.locator('[data-banner="policy"]');
      await banner.waitFor();
      const text = (await banner.textContent()) ?? '';
      expect(text).toContain('Your organisation\u2019s policy is refused, so no changes can be made.');
      expect(text).toContain(`The organisation policy ${bad} does not match the policy schema`);
      // Still serving: the screens answer.
      await second.page.keyboard.press('Control+2');
      await second.page.getByRole('heading', { name: 'Installed', level: 1 }).waitFor();
      await banner.waitFor();
      expect(second.errors).toEqual([]);
    } finally {
      await second.close();
      expect(await other.stop()).toBe(0);
    }
    expect(other.stderr()).toMatch(/arcotheon: the organisation policy could not be applied: .*\(E_POLICY\)/);
  });
});
