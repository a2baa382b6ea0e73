/**
 * Accessibility and layout of every screen: axe-core finds no serious or critical
 * violation in the light or the dark theme (the page follows `prefers-color-scheme`, emulated
 * here), and at 800 px wide nothing needs a horizontal scroll bar. Runs against a real
 * `arcotheon ui` child with an installed capability and a waiting update, so the screens have
 * content, dialogs included.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type UiProcess } from './helpers/app.js';
import { manifest, nodeTool, UiRegistry, type CapabilitySource } from './helpers/registry.js';

function tasks(version: string, permissions: object[]): CapabilitySource {
  return {
    manifest: manifest('acme/tasks', version, {
      name: 'Task finder',
      summary: 'Finds TODO and FIXME notes in a folder.',
      description: 'Looks through **text files** and lists what is left to do. See [the guide](https://example.com/guide).',
      permissions,
      tools: [
        {
          name: 'find_tasks',
          description: 'Lists the tasks it finds.',
          runtime: { type: 'node', entry: 'tools/main.mjs' },
          inputSchema: {
            type: 'object',
            required: ['path'],
            properties: {
              path: { type: 'string', description: 'Folder to search, relative to the workspace' },
              limit: { type: 'integer', default: 100 },
            },
          },
        },
      ],
    }),
    files: { 'tools/main.mjs': nodeTool('{ tasks: [] }') },
  };
}

const READ = { id: 'fs:read', scope: 'workspace', reason: 'Reads the files it searches.' };
const EXEC = { id: 'process:exec', scope: 'git', reason: 'Asks git which files are ignored.' };

/** Every screen, and how to reach its interesting state. */
const SCREENS: Array<{ name: string; open(page: Page): Promise<void> }> = [
  { name: 'Discover', open: (page) => visit(page, '#/discover', 'Discover') },
  { name: 'capability page', open: (page) => visit(page, '#/capability/acme/tasks', 'Task finder') },
  {
    name: 'install dialog',
    open: async (page) => {
      await visit(page, '#/capability/acme/board', 'Task board');
      await page.getByRole('button', { name: 'Install', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Install', exact: true }).waitFor();
    },
  },
  { name: 'Installed', open: (page) => visit(page, '#/installed', 'Installed') },
  { name: 'installed page', open: (page) => visit(page, '#/installed/acme/tasks', 'Task finder') },
  {
    name: 'Updates',
    open: async (page) => {
      await visit(page, '#/updates', 'Updates');
      await page.locator('[data-update="acme/tasks"]').waitFor();
    },
  },
  {
    name: 'update dialog',
    open: async (page) => {
      await visit(page, '#/updates', 'Updates');
      await page.getByRole('button', { name: 'Review and update' }).click();
      await page.getByRole('dialog').waitFor();
    },
  },
  {
    name: 'Run form',
    open: async (page) => {
      await visit(page, '#/run/acme/tasks/tool/find_tasks', 'Run');
      await page.locator('.run-form form').waitFor();
    },
  },
  {
    name: 'Health',
    open: async (page) => {
      await visit(page, '#/health', 'Health');
      await page.getByText(/^Checked /).waitFor();
    },
  },
  {
    name: 'Settings',
    open: async (page) => {
      await visit(page, '#/settings', 'Settings');
      await page.locator('[data-remote="test"]').waitFor();
      await page.locator('[data-audit-ok]').waitFor();
    },
  },
];

async function visit(page: Page, hash: string, heading: string): Promise<void> {
  // Close whatever dialog a previous screen left open.
  while (await page.getByRole('dialog').count()) await page.keyboard.press('Escape');
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  await page.getByRole('heading', { name: heading, level: 1, exact: true }).waitFor();
}

let reg: UiRegistry;
let ui: UiProcess;

beforeAll(async () => {
  await assertBuilt();
  reg = await UiRegistry.create();
  await reg.publish(tasks('1.0.0', [READ]), {
    manifest: manifest('acme/board', '2.0.0', {
      name: 'Task board',
      summary: 'A board for your tasks.',
      permissions: [READ, EXEC],
      distribution: { tier: 'pro' },
    }),
  });
  const home = await reg.newHome();
  await reg.adcapJson(home, ['install', 'acme/tasks', '--yes']);
  await reg.publish(tasks('1.1.0', [READ, EXEC]));
  ui = await startUi(home, reg.env);
}, 120_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

describe('every screen is accessible in both themes and fits 800 px', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe violations in the ${colorScheme} theme`, async () => {
      const app = await openApp(ui, { colorScheme });
      try {
        const found: string[] = [];
        for (const screen of SCREENS) {
          await screen.open(app.page);
          for (const v of await seriousA11yViolations(app.page))
            found.push(`${screen.name}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(' ')}`);
        }
        expect(found).toEqual([]);
        expect(app.errors).toEqual([]);
      } finally {
        await app.close();
      }
    });
  }

  it('works from the keyboard alone: / to search, arrows to a card, Enter, a dialog that traps focus, Escape', async () => {
    const app = await openApp(ui);
    const page = app.page;
    const focused = (): Promise<string> =>
      page.evaluate(() => {
        const el = (
          globalThis as unknown as {
            document: { activeElement: { id: string; textContent: string | null; closest(s: string): unknown } | null };
          }
        ).document.activeElement;
        return el === null ? '' : `${el.closest('[role="dialog"]') === null ? 'page' : 'dialog'}:${el.id || (el.textContent ?? '').trim()}`;
      });
    try {
      await visit(page, '#/settings', 'Settings');
      await page.keyboard.press('/');
      await page.getByRole('heading', { name: 'Discover', level: 1 }).waitFor();
      await page.waitForFunction(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ===
          'catalogue-search',
      );
      await page.keyboard.type('board');
      await page.locator('[data-results-for="board"]').waitFor();
      await page.keyboard.press('ArrowDown');
      expect(await focused()).toContain('Task board');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Task board', level: 1 }).waitFor();
      for (let i = 0; i < 30 && (await focused()) !== 'page:Install'; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe('page:Install');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').getByRole('button', { name: 'Install', exact: true }).waitFor();
      expect(await focused()).toBe('dialog:Cancel');
      // Tab and Shift+Tab stay inside the dialog.
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
        expect(await focused()).toMatch(/^dialog:/);
      }
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await focused()).toBe('page:Install');
    } finally {
      await app.close();
    }
  });

  it('needs no horizontal scrolling at 800 px wide, and the window itself never scrolls', async () => {
    const app = await openApp(ui, { width: 800, height: 800 });
    try {
      const overflowing: string[] = [];
      for (const screen of SCREENS) {
        await screen.open(app.page);
        const widths = await app.page.evaluate(() => {
          type Box = { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number };
          const doc = (globalThis as unknown as { document: { documentElement: Box; querySelector(s: string): Box | null } }).document;
          const main = doc.querySelector('.screen');
          // The window itself never scrolls (only the screen does), in either direction.
          const page = Math.max(
            doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
            doc.documentElement.scrollHeight - doc.documentElement.clientHeight,
          );
          return { page, screen: main === null ? 0 : main.scrollWidth - main.clientWidth };
        });
        if (widths.page > 0 || widths.screen > 0) overflowing.push(`${screen.name}: ${JSON.stringify(widths)}`);
      }
      expect(overflowing).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
