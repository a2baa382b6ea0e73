/**
 * The manager UI's journeys, as a person does them: `arcotheon ui` as a real child
 * process on a temp home, a signed test registry over HTTPS (test CA), Chromium driving the page.
 * Every outcome is checked through `adcap` on the same home (what is installed, which grants),
 * not only on the screen. The journeys run in order on one home: install, update (decline, then
 * accept), roll back, repair, run a workflow, sideload, and a hostile package that must stay inert.
 */
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, startUi, type AppDriver, type UiProcess } from './helpers/app.js';
import { manifest, nodeTool, tempDir, UiRegistry, type CapabilitySource } from './helpers/registry.js';

interface Listed {
  id: string;
  version: string;
  status: string;
  grants: string[];
  disabled?: { at: string; by: string } | null;
}

const NOTES_READ = { id: 'fs:read', scope: 'workspace', reason: 'Reads the notes in the folder you choose.' };
const NOTES_NET = { id: 'net:connect', scope: 'api.notes.example', reason: 'Sends your notes to the sync service you signed up for.' };

function notes(version: string, permissions: object[], changelog: string): CapabilitySource {
  return {
    manifest: manifest('acme/notes', version, {
      name: 'Meeting notes',
      summary: 'Finds action items in your meeting notes.',
      keywords: ['notes', 'meetings'],
      permissions,
      changelog,
      tools: [
        {
          name: 'action_items',
          description: 'Lists the action items it finds.',
          runtime: { type: 'node', entry: 'tools/main.mjs' },
          inputSchema: { type: 'object', properties: { owner: { type: 'string' } } },
          permissions: ['fs:read:workspace'],
        },
      ],
    }),
    files: { 'tools/main.mjs': nodeTool("{ items: [{ owner: input.owner ?? 'me', task: 'ship it' }] }") },
  };
}

const REPORT: CapabilitySource = {
  manifest: manifest('acme/report-kit', '1.0.0', {
    name: 'Report kit',
    summary: 'Gathers figures with a tool, then has your agent write the report.',
    dependencies: { 'acme/notes': '^1.0.0' },
    tools: [
      {
        name: 'figures',
        description: 'Returns the figures of a topic as rows.',
        runtime: { type: 'node', entry: 'tools/figures.mjs' },
        inputSchema: {
          type: 'object',
          required: ['topic'],
          properties: { topic: { type: 'string', minLength: 1, description: 'What the report is about' } },
        },
      },
    ],
    workflows: [{ path: 'workflows/report.json' }],
  }),
  files: {
    'tools/figures.mjs': nodeTool("{ topic: input.topic, rows: [{ quarter: 'Q1', sales: 120 }, { quarter: 'Q2', sales: 135 }] }"),
    'workflows/report.json': JSON.stringify({
      'adcap-workflow': '1.0',
      id: 'report',
      name: 'Quarterly report',
      description: 'Collects the figures, then your agent writes the report.',
      inputs: {
        type: 'object',
        required: ['topic'],
        properties: { topic: { type: 'string', minLength: 1, description: 'What the report is about' } },
      },
      steps: [
        { id: 'collect', tool: 'figures', input: { topic: '{{inputs.topic}}' } },
        { id: 'write', agent: 'Write a one-page report about {{inputs.topic}} from the rows in steps.collect.output.' },
      ],
      output: { report: '{{steps.write.output}}', quarters: '{{steps.collect.output.rows}}' },
    }),
  },
};

/** Package text that would run script if any of it were treated as HTML. */
const HOSTILE: CapabilitySource = {
  manifest: manifest('evil/inert', '1.0.0', {
    name: 'Inert <img src=x onerror=alert(1)>',
    summary: '<script>alert("summary")</script> Looks harmless <iframe src="https://example.com"></iframe>',
    description: [
      '# Hello <script>alert("description")</script>',
      '',
      '<iframe src="https://example.com/frame"></iframe>',
      '',
      '<img src=x onerror="alert(2)">',
      '',
      '[run me](javascript:alert(3)) and [data](data:text/html,<script>alert(4)</script>) ' +
        'and [docs](https://example.com/docs) and [plain](http://example.com/plain)',
    ].join('\n'),
    readme: 'README.md',
    changelog: '[changelog link](javascript:alert(5)) <script>alert(6)</script>',
    homepage: 'https://example.com/home',
    permissions: [{ id: 'storage:data', reason: '<img src=x onerror=alert(7)> keeps <b>state</b>' }],
    tools: [
      {
        name: 'echo',
        description: '<script>alert("tool")</script> echoes',
        runtime: { type: 'node', entry: 'tools/echo.mjs' },
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string', description: '<img src=x onerror=alert(8)>', default: '<script>alert(9)</script>' } },
        },
      },
    ],
  }),
  files: {
    'README.md':
      '# Readme\n\n<script>alert("readme")</script>\n\n' +
      '<iframe srcdoc="<script>alert(10)</script>"></iframe>\n\n<a href="javascript:alert(11)" ' +
      'onclick="alert(12)">raw link</a>\n\n[md link](javascript:alert(13))\n',
    'tools/echo.mjs': nodeTool("{ html: '<script>alert(14)</script>', rows: [{ cell: '<img src=x onerror=alert(15)>' }] }"),
  },
};

/** Agent Skills only: linked into an agent from the capability page. */
const PROOFREAD: CapabilitySource = {
  manifest: manifest('acme/proofread', '1.0.0', {
    name: 'Proofreading skills',
    summary: 'Teaches your agent to proofread a text.',
    skills: [{ path: 'skills/proofread' }],
  }),
  files: {
    'skills/proofread/SKILL.md':
      '---\nname: proofread\ndescription: Proofreads a text and lists the fixes.\n' +
      'license: MIT\n---\n\n# proofread\n\nFollow these steps.\n',
  },
};

let reg: UiRegistry;
/** $HOME of the arcotheon ui process: where the agents' personal skill folders are. */
let agentHome: string;
let home: string;
let ui: UiProcess;
let app: AppDriver;
let page: Page;

const list = (): Promise<Listed[]> => reg.adcapJson<Listed[]>(home, ['list']);
const installed = async (id: string): Promise<Listed | undefined> => (await list()).find((c) => c.id === id);

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement);
}

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

/**
 * Approves the open install dialog: it closes as soon as the host has started the install, which
 * goes on in the operations tray; resolves once `adcap list` has it.
 */
async function approveInstall(dialog: Locator, id: string): Promise<void> {
  await dialog.getByRole('button', { name: 'Install', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await until(async () => (await installed(id)) !== undefined, `${id} to be installed`, 60_000);
}

/** Waits until `check` holds (the host works in the background; the screen follows events). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(notes('1.0.0', [NOTES_READ], 'First release.'), REPORT, HOSTILE, PROOFREAD);
  home = await reg.newHome();
  agentHome = await tempDir('arcotheon-ui-agent-home-');
  await mkdir(join(agentHome, '.claude'), { recursive: true });
  ui = await startUi(home, { ...reg.env, HOME: agentHome });
  app = await openApp(ui);
  page = app.page;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await closeBrowser();
  const code = await ui?.stop();
  await reg?.close();
  // arcotheon ui stops cleanly on SIGTERM.
  expect(code).toBe(0);
});

describe('the manager UI, end to end in a browser', () => {
  it('finds a capability by typing, and installs it through the permission dialog (Escape cancels first)', async () => {
    const search = page.getByRole('searchbox', { name: 'Search capabilities' });
    expect(await isFocused(search)).toBe(true);
    await search.pressSequentially('meeting');
    await page.locator('[data-results-for="meeting"]').waitFor();
    const card = page.locator('a.card[data-id="acme/notes"]');
    await card.waitFor();
    expect(await page.locator('a.card').count()).toBe(1);
    await card.click();
    await page.getByRole('heading', { name: 'Meeting notes', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Meeting notes?' });
    // The permission itself (the header's overall risk says it too, as its reason).
    await dialog.locator('.permission', { hasText: 'Read files in the folder you choose for each run' }).waitFor();
    expect(await dialog.locator('[data-overall-risk="low"]').textContent()).toContain('It may read files in the folder you choose');
    expect(await dialog.getByText(NOTES_READ.reason).count()).toBe(1);
    expect(await dialog.getByText('fs:read:workspace').count()).toBe(1);
    expect(await dialog.locator('.permission').getByText('Low risk').count()).toBe(1);
    // Cancel is the default; Escape cancels and nothing is installed.
    expect(await isFocused(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await installed('acme/notes')).toBeUndefined();

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await approveInstall(dialog, 'acme/notes');
    // The tray says so in the capability's name.
    await page.locator('.tray [data-operation-state="done"]', { hasText: 'Installed Meeting notes 1.0.0' }).waitFor();

    const record = await installed('acme/notes');
    expect(record).toMatchObject({ version: '1.0.0', status: 'ok', grants: ['fs:read:workspace'] });
    await page.getByText('Installed 1.0.0').waitFor();
  });

  it('shows an update that adds a permission, applies nothing when declined, and updates when accepted', async () => {
    await reg.publish(notes('1.1.0', [NOTES_READ, NOTES_NET], 'Syncs your notes.'));
    await page.keyboard.press('Control+3');
    await page.getByRole('heading', { name: 'Updates', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Check now' }).click();
    const row = page.locator('[data-update="acme/notes"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('1.0.0 → 1.1.0');
    // The new permission is highlighted in the list itself.
    await row.locator('.permission.added', { hasText: 'Connect to api.notes.example' }).waitFor();

    await row.getByRole('button', { name: 'Review and update' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update Meeting notes to 1.1.0?' });
    await dialog.getByText('Connect to api.notes.example').waitFor();
    expect(await dialog.getByText(NOTES_NET.reason).count()).toBe(1);
    await dialog.getByRole('button', { name: 'Not now' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await installed('acme/notes')).toMatchObject({ version: '1.0.0', grants: ['fs:read:workspace'] });

    await row.getByRole('button', { name: 'Review and update' }).click();
    await dialog.getByRole('button', { name: 'Allow and update' }).click();
    await until(async () => (await installed('acme/notes'))?.version === '1.1.0', 'the update to 1.1.0');
    expect((await installed('acme/notes'))?.grants.sort()).toEqual(['fs:read:workspace', 'net:connect:api.notes.example']);
    await page.getByText('Everything is up to date').waitFor();
  });

  it('rolls back with one confirmation that shows the grants that come back', async () => {
    await go('#/installed/acme/notes');
    await page.getByRole('heading', { name: 'Meeting notes', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Roll back to 1.0.0' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roll back Meeting notes to 1.0.0?' });
    await dialog.getByText('fs:read:workspace').waitFor();
    // The permissions as sentences: what 1.0.0 keeps, and what ends.
    await dialog.getByText('goes from 1.1.0 back to 1.0.0').waitFor();
    await dialog.locator('.permission', { hasText: 'Read files in the folder you choose for each run' }).waitFor();
    await dialog.locator('.permission', { hasText: 'Connect to api.notes.example' }).getByText('Removed').waitFor();
    await dialog.getByRole('button', { name: 'Roll back to 1.0.0' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await installed('acme/notes')).toMatchObject({ version: '1.0.0', grants: ['fs:read:workspace'] });
    await page.locator('.muted', { hasText: 'version 1.0.0' }).first().waitFor();
    // Rolled back, the kept 1.1.0 is an update again, worded as one (not "Roll back to 1.1.0"), offered once.
    const again = page.getByRole('button', { name: 'Update to 1.1.0' });
    await again.waitFor();
    expect(await page.getByRole('button', { name: 'Roll back to 1.1.0' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Update to 1.1.0' }).count()).toBe(0);
    await again.click();
    const forward = page.getByRole('dialog', { name: 'Update Meeting notes to 1.1.0 again?' });
    await forward.getByText('goes from 1.0.0 to 1.1.0, the version you rolled back from').waitFor();
    await forward.locator('.permission', { hasText: 'Connect to api.notes.example' }).getByText('Comes back').waitFor();
    await page.keyboard.press('Escape');
    await forward.waitFor({ state: 'detached' });
    expect(await installed('acme/notes')).toMatchObject({ version: '1.0.0' });
  });

  it('finds a damaged installed file from the Health screen, previews the repair and repairs it', async () => {
    const versionDir = join(home, 'packages', 'acme', 'notes', '1.0.0');
    const tool = join(versionDir, 'tools', 'main.mjs');
    expect((await readdir(join(versionDir, 'tools'))).includes('main.mjs')).toBe(true);
    await writeFile(tool, 'process.exit(1); // tampered\n');
    const before = await reg.adcapReport<{ ok: boolean; problems: Array<{ kind: string }> }>(home, ['doctor']);
    expect(before.ok).toBe(false);
    expect(before.problems.map((p) => p.kind)).toContain('damaged-install');

    await page.keyboard.press('Control+5');
    await page.getByRole('heading', { name: 'Health', level: 1 }).waitFor();
    const finding = page.locator('[data-problem="damaged-install"]');
    await finding.first().waitFor();
    // The broken install is also a banner above every screen.
    await page.locator('[data-banner="broken"]').waitFor();

    await expect.poll(() => page.locator('#sev-error').textContent()).toBe('Needs repair 1');
    await page.getByRole('button', { name: 'Preview repairs' }).click();
    await page.getByRole('heading', { name: 'A repair would' }).waitFor();
    // The action, not the finding.
    await page
      .locator('[data-repair-actions] [data-repair="damaged-install"]', {
        hasText: 'Reinstall tools/main.mjs from the signed package of acme/notes 1.0.0',
      })
      .waitFor();
    expect((await reg.adcapReport<{ ok: boolean }>(home, ['doctor'])).ok).toBe(false);

    await page.getByRole('button', { name: 'Repair…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Repair these problems?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Repair', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await until(async () => (await reg.adcapReport<{ ok: boolean }>(home, ['doctor'])).ok, 'a clean doctor report');
    await page.locator('[data-banner="broken"]').waitFor({ state: 'detached' });
    // The counts follow: nothing needs repair now, and what was repaired says so.
    await page.locator('#sev-error').waitFor({ state: 'detached' });
    expect(await page.locator('#sev-repaired').textContent()).toBe('Repaired 1');
  });

  it('runs a workflow by hand to its agent step, in a workspace the user confirmed, and continues it with the answer', async () => {
    await go('#/capability/acme/report-kit');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Report kit?' });
    await approveInstall(dialog, 'acme/report-kit');
    expect(await installed('acme/report-kit')).toMatchObject({ version: '1.0.0' });

    await go('#/run/acme/report-kit');
    await page.getByRole('link', { name: 'Quarterly report' }).click();
    const workspace = await tempDir('arcotheon-ui-ws-');
    await page.getByLabel('Folder', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await page.locator(`[data-workspace-path="${workspace}"]`).waitFor();

    // The form comes from the workflow's input schema: Run without the required topic is refused.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('.run-form .errors, .run-form .error-detail').first().waitFor();
    await page.getByLabel(/topic/).fill('sales');
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    const agent = page.locator('[data-agent-step="write"]');
    await agent.waitFor({ timeout: 60_000 });
    expect(await agent.locator('.agent-instruction').textContent()).toBe(
      'Write a one-page report about sales from the rows in steps.collect.output.',
    );
    await agent.getByRole('button', { name: 'Copy instruction' }).click();
    await agent.getByRole('button', { name: 'Copied' }).waitFor();
    // The data gathered so far, as a table.
    await page.getByText('collect: acme/report-kit figures').click();
    await page.locator('table.data td', { hasText: 'Q2' }).waitFor();
    // Continue: the agent's answer goes back (run.resumeWorkflow) and the workflow ends with it.
    await agent.getByLabel('Your agent’s answer').fill('Sales grew from 120 to 135.');
    await agent.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Workflow finished' }).waitFor({ timeout: 60_000 });
    await page.getByText('write: your agent’s answer').waitFor();
    await page.getByText('Sales grew from 120 to 135.').first().waitFor();
    // The run is in the audit log, which verifies.
    const audit = await reg.adcapJson<{ ok: boolean }>(home, ['audit', 'verify']);
    expect(audit.ok).toBe(true);
  });

  it('withdraws and grants again a permission, and refuses to uninstall what another capability needs', async () => {
    await go('#/installed/acme/notes');
    await page.getByRole('heading', { name: 'Meeting notes', level: 1 }).waitFor();
    const grants = (): Promise<{ granted: string[] }> => reg.adcapJson<{ granted: string[] }>(home, ['grants', 'acme/notes']);
    await page.getByRole('button', { name: 'Withdraw fs:read:workspace' }).click();
    await page.getByRole('button', { name: 'Grant again fs:read:workspace' }).waitFor();
    expect((await grants()).granted).toEqual([]);
    await page.getByRole('button', { name: 'Grant again fs:read:workspace' }).click();
    await page.getByRole('button', { name: 'Withdraw fs:read:workspace' }).waitFor();
    expect((await grants()).granted).toEqual(['fs:read:workspace']);

    // Dependents by name, with their ids.
    await page.getByText('Needed by: Report kit (acme/report-kit)').waitFor();
    await page.getByRole('button', { name: 'Uninstall' }).click();
    const dialog = page.getByRole('dialog', { name: 'Meeting notes is still needed' });
    await dialog.getByText('Report kit (acme/report-kit)').waitFor();
    await page.keyboard.press('Escape');
    expect(await installed('acme/notes')).toMatchObject({ version: '1.0.0' });
  });

  it('switches a capability off and on again from its page and from its row in the list', async () => {
    await go('#/installed/acme/notes');
    await page.getByRole('heading', { name: 'Meeting notes', level: 1 }).waitFor();
    const toggle = page.getByRole('switch', { name: 'Enabled' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await page.locator('[data-disabled="user"]', { hasText: 'Disabled' }).waitFor();
    expect(await page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(false);
    expect((await installed('acme/notes'))?.disabled).toMatchObject({ by: 'user' });

    await page.getByRole('switch', { name: 'Enabled' }).click();
    await page.locator('[data-disabled]').waitFor({ state: 'detached' });
    expect(await page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(true);
    // adcap list --json prints null for an enabled capability.
    expect((await installed('acme/notes'))?.disabled ?? null).toBeNull();

    // The same switch on its row of the Installed list, named for the capability it turns off.
    await go('#/installed');
    const row = page.getByRole('switch', { name: 'Enabled Meeting notes' });
    expect(await row.isChecked()).toBe(true);
    await row.click();
    await page.locator('a.card[data-id="acme/notes"] [data-disabled="user"]', { hasText: 'Disabled' }).waitFor();
    expect(await page.getByRole('switch', { name: 'Enabled Meeting notes' }).isChecked()).toBe(false);
    expect((await installed('acme/notes'))?.disabled).toMatchObject({ by: 'user' });
    await page.getByRole('switch', { name: 'Enabled Meeting notes' }).click();
    await page.locator('a.card[data-id="acme/notes"] [data-disabled]').waitFor({ state: 'detached' });
    expect((await installed('acme/notes'))?.disabled ?? null).toBeNull();
  });

  it('links the skills of a capability into Claude Code with "Use with…", and unlinks them', async () => {
    await go('#/capability/acme/proofread');
    await page.getByRole('heading', { name: 'Proofreading skills', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await approveInstall(page.getByRole('dialog', { name: 'Install Proofreading skills?' }), 'acme/proofread');
    expect(await installed('acme/proofread')).toMatchObject({ version: '1.0.0' });

    const link = join(agentHome, '.claude', 'skills', 'proofread');
    await page.getByRole('heading', { name: 'Use with…' }).waitFor();
    await page.getByLabel('Agent').selectOption('claude-code');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    await page.locator('[data-link="claude-code"]').waitFor();
    expect((await lstat(link)).isSymbolicLink()).toBe(true);

    await page.getByRole('button', { name: /^Unlink from / }).click();
    await page.locator('[data-link="claude-code"]').waitFor({ state: 'detached' });
    expect(await lstat(link).catch(() => null)).toBeNull();

    // A capability with tools: the line that registers them as an MCP server, per agent, with Copy.
    await go('#/capability/acme/notes');
    const mcp = page.locator('[data-mcp="claude-code"]');
    await mcp.waitFor();
    // Collapsed per agent: the line shows once the agent is opened.
    expect(await mcp.getByRole('button', { name: 'Copy' }).isVisible()).toBe(false);
    await mcp.locator('summary').click();
    await mcp.getByRole('button', { name: 'Copy' }).click();
    await mcp.getByRole('button', { name: 'Copied' }).waitFor();
  });

  it('sideloads an unsigned package: the dialog warns, and Install needs an explicit yes', async () => {
    const file = await reg.build(
      { manifest: manifest('solo/local-tool', '0.1.0', { name: 'Local tool', summary: 'Built on this computer.' }) },
      { unsigned: true },
    );
    await page.keyboard.press('Control+1');
    await page.locator('#sideload-file').setInputFiles(file);
    const dialog = page.getByRole('dialog', { name: /Install .*\.adcap\?/ });
    await dialog.locator('[data-warning-level="danger"]', { hasText: 'is unsigned' }).waitFor();
    const install = dialog.getByRole('button', { name: 'Install', exact: true });
    expect(await install.isDisabled()).toBe(true);
    await dialog.getByLabel('I trust this file even though no known publisher signed it.').check();
    await approveInstall(dialog, 'solo/local-tool');
    expect(await installed('solo/local-tool')).toMatchObject({ version: '0.1.0', status: 'unsigned' });
  });

  it('keeps a package whose texts carry script, onerror, javascript: links and iframes inert', async () => {
    const appScripts = await page.locator('script').count();
    await go('#/discover');
    const search = page.getByRole('searchbox', { name: 'Search capabilities' });
    await search.fill('inert');
    await page.locator('a.card[data-id="evil/inert"]').click();
    await page.getByRole('heading', { name: 'Inert <img src=x onerror=alert(1)>', level: 1 }).waitFor();
    // The page is drawn from metadata; the readme comes with the package, downloaded when asked for.
    await page.getByRole('button', { name: /^Show readme and tool inputs/ }).click();
    await page.getByRole('heading', { name: 'Readme', exact: true, level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Inert <img src=x onerror=alert(1)>?' });
    await dialog.getByText('<img src=x onerror=alert(7)> keeps <b>state</b>', { exact: false }).waitFor();

    const dom = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null; attributes: ArrayLike<{ name: string }> }>;
          };
        }
      ).document;
      const all = Array.from(doc.querySelectorAll('*'));
      return {
        scripts: doc.querySelectorAll('script').length,
        iframes: doc.querySelectorAll('iframe, object, embed, frame').length,
        images: doc.querySelectorAll('img').length,
        handlers: all.filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length,
        hrefs: Array.from(doc.querySelectorAll('a[href]')).map((a) => ({
          href: a.getAttribute('href') ?? '',
          rel: a.getAttribute('rel'),
          target: a.getAttribute('target'),
        })),
      };
    });
    expect(dom.scripts).toBe(appScripts);
    expect(dom.iframes).toBe(0);
    expect(dom.images).toBe(0);
    expect(dom.handlers).toBe(0);
    // Only the app's own routes and https links survive; external ones open outside, without a referrer.
    for (const link of dom.hrefs) {
      expect(link.href.startsWith('#/') || link.href === '#main' || link.href.startsWith('https://'), link.href).toBe(true);
      if (link.href.startsWith('https://')) expect(link).toMatchObject({ rel: 'noopener noreferrer', target: '_blank' });
    }
    expect(dom.hrefs.some((l) => l.href === 'https://example.com/docs')).toBe(true);
    expect(dom.hrefs.some((l) => l.href.includes('javascript') || l.href.startsWith('data:') || l.href.startsWith('http://'))).toBe(false);
    // The text is there, as text.
    expect(await page.getByText('run me').count()).toBeGreaterThan(0);

    // Installed and run by hand: the form (field descriptions, defaults) and the tool's output
    // carry markup too, and stay text.
    await approveInstall(dialog, 'evil/inert');
    await go('#/run/evil/inert/tool/echo');
    await page.getByText('<img src=x onerror=alert(8)>').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('table.data td', { hasText: '<img src=x onerror=alert(15)>' }).waitFor({ timeout: 60_000 });
    const after = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ attributes: ArrayLike<{ name: string }> }> } }
      ).document;
      return {
        scripts: doc.querySelectorAll('script').length,
        embedded: doc.querySelectorAll('iframe, object, embed, frame, img').length,
        handlers: Array.from(doc.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on')))
          .length,
      };
    });
    expect(after).toEqual({ scripts: appScripts, embedded: 0, handlers: 0 });
    expect(app.dialogs).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
