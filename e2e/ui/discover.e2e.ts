/**
 * Discover as a person uses it (docs/ui.md "Navigation", "Fast"), in Chromium against a real
 * `arcotheon ui` child on a signed HTTPS test registry: the search runs in the page (or, over a
 * catalogue of more than 30,000, its worker) over the index the host sent once
 * (sdk/src/registry/search-rank.ts rules, the order `adcap search` gives), so the publisher's display
 * name finds its capabilities, one typo is forgiven, and a deprecated capability comes after its
 * replacement; sort and categories reorder and narrow the list; the first screen shows what was
 * updated lately and what the organisation requires. axe in both themes at 1280 and 800 px, and
 * screenshots (E2E_SCREENSHOTS=<dir> keeps them).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deprecateCapability } from '../../sdk/src/registry/builder/maintain.js';
import { CATALOG_CONTEXT, signEnvelope } from '../../sdk/src/trust/envelope.js';
import { generateKey } from '../../sdk/src/trust/keys.js';
import { syntheticCatalogue } from '../../test/bench/registry.bench.js';
import { adcap, assertBuilt, ok } from '../helpers/adcap.js';
import { closeBrowser, openApp, seriousA11yViolations, startUi, type UiProcess } from './helpers/app.js';
import { manifest, UiRegistry } from './helpers/registry.js';

let reg: UiRegistry;
let ui: UiProcess;

const cap = (id: string, name: string, summary: string, keywords: string[]) => ({
  manifest: manifest(id, '1.0.0', { name, summary, keywords }),
});

beforeAll(async () => {
  assertBuilt();
  reg = await UiRegistry.create();
  // The publisher's display name, as its registry record says it ("Acme Tools"), not its id.
  await reg.registry.addPublisher('acme');
  const record = join(reg.registry.dir, 'publishers', 'acme.json');
  await writeFile(record, JSON.stringify({ ...JSON.parse(await readFile(record, 'utf8')), name: 'Acme Tools' }, null, 2));
  await reg.publish(
    cap('acme/weather', 'Weather', 'Current weather for any city.', ['weather']),
    cap('acme/forecast', 'Forecast', 'Weather forecasts for the week, replacing acme/weather.', ['weather', 'forecast']),
    cap('zeta/notes', 'Meeting notes', 'Finds action items in meeting notes.', ['notes', 'meetings']),
    cap('zeta/pdf', 'PDF reader', 'Reads text out of PDF files.', ['pdf', 'documents']),
    cap('beta/charts', 'Charts', 'Draws charts from tables.', ['charts', 'documents']),
  );
  await deprecateCapability(reg.registry.dir, 'acme/weather', 'Use acme/forecast.');
  await reg.registry.build();
  await reg.registry.mount(reg.server);
  ui = await startUi(await reg.newHome(), reg.env);
}, 180_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
  await reg?.close();
});

async function search(page: Page, text: string): Promise<string[]> {
  const box = page.getByRole('searchbox', { name: 'Search capabilities' });
  await box.fill(text);
  await page.locator(`.card-list[data-results-for="${text.replaceAll('"', '\\"')}"]`).waitFor();
  return listed(page);
}

/** The ids of the cards in the list, in order (the list is virtualised; five fit at once). */
async function listed(page: Page): Promise<string[]> {
  return page
    .locator('[role="list"][aria-label="Capabilities"] a.card')
    .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id') ?? ''));
}

describe('Discover', () => {
  it('searches in the page: publisher name, one typo, deprecated after its replacement', async () => {
    const app = await openApp(ui);
    try {
      const page = app.page;
      // The page answers, not the host: once the index is in, no catalogue call is made while typing.
      const calls: string[] = [];
      const requests: string[] = [];
      page.on('websocket', (ws) => ws.on('framesent', (frame) => calls.push(String(frame.payload))));
      page.on('request', (request) => requests.push(request.url()));
      await page.reload();
      await page.locator('.card-list[data-search-ready="true"]').waitFor();
      // The index came from the host once: here all of it in the first page, which the page's first
      // script asks over HTTP (renderer/src/start.ts); the socket is in use for the rest.
      expect(requests.filter((url) => url.includes('/api/catalogue-index?limit=')).length).toBe(1);
      expect(calls.length).toBeGreaterThan(0);
      calls.length = 0;
      expect(await search(page, 'Acme Tools')).toEqual(['acme/forecast', 'acme/weather']);
      expect(await search(page, 'weathr')).toEqual(['acme/forecast', 'acme/weather']);
      expect(await search(page, 'weather')).toEqual(['acme/forecast', 'acme/weather']);
      expect(await page.locator('a.card[data-id="acme/weather"]').getByText('Deprecated')).toBeTruthy();
      expect(await search(page, 'pdf redaer')).toEqual(['zeta/pdf']);
      // No search goes to the host. (The cards' risk verdicts, catalogue.risks, are asked for once per
      // card shown, whatever was typed: not a search. Nor is catalogue.known: the page asks it again
      // when the host says it has read more package documents, which it does in the background after
      // the first cards, so that answer may come while this test types.)
      const notSearches = ['catalogue.risks', 'catalogue.known'];
      expect(calls.filter((c) => c.includes('catalogue.') && !notSearches.some((m) => c.includes(`"method":"${m}"`)))).toEqual([]);
      expect(await page.locator('.card-list').getAttribute('data-search-in')).toBe('page');
      await search(page, 'no such thing here');
      await expect.poll(() => page.getByText('Nothing matches “no such thing here”').count()).toBe(1);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('sorts by name and by last publication, and narrows by category', async () => {
    const app = await openApp(ui);
    try {
      const page = app.page;
      await page.locator('.card-list[data-search-ready="true"]').waitFor();
      // The first screen: recently updated (package documents read on a small catalogue) and categories.
      await page.getByRole('heading', { name: 'Recently updated' }).waitFor();
      await expect.poll(() => page.getByRole('region', { name: 'Recently updated' }).locator('a.card').count()).toBe(4);
      const sort = page.getByRole('combobox', { name: 'Sort' });
      await sort.selectOption('name');
      await expect.poll(() => listed(page)).toEqual(['beta/charts', 'acme/forecast', 'zeta/notes', 'zeta/pdf', 'acme/weather']);
      await sort.selectOption('updated');
      // acme/weather's deprecation rebuilt nothing of the others: the newest published come first.
      await expect.poll(async () => (await listed(page)).length).toBe(5);
      await sort.selectOption('relevance');
      await page.getByRole('button', { name: 'documents' }).click();
      await expect.poll(() => listed(page)).toEqual(['beta/charts', 'zeta/pdf']);
      await page.getByRole('button', { name: 'Category documents: remove' }).click();
      await expect.poll(async () => (await listed(page)).length).toBe(5);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  const LARGE =
    'over more than 30,000 capabilities searches in its worker, in the order adcap search gives, ' +
    'and on the page when the worker cannot start';
  it(
    LARGE,
    async () => {
      // A synthetic signed catalogue (as the UI bench's) in a registry folder on this computer.
      const dir = await mkdtemp(join(tmpdir(), 'arcotheon-discover-large-'));
      const root = generateKey();
      await mkdir(join(dir, 'v1'), { recursive: true });
      await writeFile(join(dir, 'v1', 'catalog.json'), JSON.stringify(signEnvelope(syntheticCatalogue(31_000), CATALOG_CONTEXT, [root])));
      const home = join(dir, 'home');
      // Not a user's run: no built-in registry, so only the synthetic one the test added is searched.
      const env = { ...process.env, ARCOTHEON_EMBEDDED_REGISTRY: '' };
      ok(
        await adcap(['remote', 'add', 'big', `${pathToFileURL(join(dir, 'v1')).href}/`, '--root-key', root.publicKey, '--home', home], {
          env,
        }),
      );
      const sdkOrder = async (text: string): Promise<string[]> => {
        const result = ok(await adcap(['search', text, '--limit', '8', '--json', '--home', home], { env }));
        return (JSON.parse(result.stdout) as Array<{ id: string }>).map((hit) => hit.id);
      };
      const large = await startUi(home, env);
      const app = await openApp(large);
      try {
        const page = app.page;
        const first = async (text: string): Promise<string[]> => (await search(page, text)).slice(0, 8);
        await page.locator('.card-list[data-search-ready="true"]').waitFor({ timeout: 120_000 });
        expect(await page.locator('.card-list').getAttribute('data-search-in')).toBe('worker');
        for (const text of ['pdf tool 12', 'publisher 7 chart', 'summarse']) expect(await first(text)).toEqual(await sdkOrder(text));
        // The first rows come with the count; the order of the others follows (scrolled to, they are there).
        await search(page, 'p');
        await expect.poll(() => page.locator('.result-count').textContent()).toMatch(/^31,000 capabilities/);
        await page.locator('.card-list').evaluate((list) => list.scrollTo(0, list.scrollHeight));
        await page.locator('[data-index="30999"] a.card').waitFor();
        // The worker's script does not load (as where a worker is refused): the page takes over.
        await page.route('**/assets/worker-*.js', (route) => route.abort());
        await page.reload();
        await page.locator('.card-list[data-search-ready="true"]').waitFor({ timeout: 120_000 });
        expect(await page.locator('.card-list').getAttribute('data-search-in')).toBe('page');
        for (const text of ['pdf tool 12', 'summarse']) expect(await first(text)).toEqual(await sdkOrder(text));
        expect(app.errors).toEqual([]);
      } finally {
        await app.close();
        await large.stop();
        await rm(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [1280, 800]) {
      it(`has no serious or critical axe finding (${colorScheme}, ${width} px)`, async () => {
        const app = await openApp(ui, { colorScheme, width });
        try {
          const page = app.page;
          await page.locator('.card-list[data-search-ready="true"]').waitFor();
          await page.getByRole('heading', { name: 'Recently updated' }).waitFor();
          const found: string[] = [];
          for (const text of ['', 'weathr']) {
            if (text !== '') await search(page, text);
            for (const v of await seriousA11yViolations(page))
              found.push(`"${text}": ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(' ')}`);
            const dir = process.env['E2E_SCREENSHOTS'];
            if (dir !== undefined)
              await page.screenshot({ path: join(dir, `discover-${text === '' ? 'home' : 'search'}-${colorScheme}-${width}.png`) });
          }
          expect(found).toEqual([]);
          expect(app.errors).toEqual([]);
        } finally {
          await app.close();
        }
      });
    }
  }
});
