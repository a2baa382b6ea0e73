// Bidirectional controls that reach the UI (a registry catalogue is not a manifest, so its names
// and summaries can carry them) used to be shown raw: an unclosed U+202E (RIGHT-TO-LEFT OVERRIDE)
// at the end of a capability name reversed the rest of the line, so "Reads your files" read
// backwards next to it. The stylesheet makes every text element a bidi isolate (SECURITY.md
// "Bidirectional controls"); this test renders the real stylesheet in Chromium and measures where
// the words land.
import { readFile } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const STYLES = new URL('../../renderer/src/styles.css', import.meta.url);
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/** In the page (a string: this test's TypeScript has no DOM types): is "Reads" drawn left of "files"? */
const MEASURE = `(() => {
  const left = (word) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const at = node.textContent.indexOf(word);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      return range.getBoundingClientRect().left;
    }
    throw new Error(word + ' not found');
  };
  return left('Reads') < left('files');
})()`;

/** Renders `html` with (or without) the stylesheet; returns whether "Reads" is drawn left of "files". */
async function readsInOrder(html: string, withStyles: boolean): Promise<boolean> {
  const css = withStyles ? await readFile(STYLES, 'utf8') : '';
  await page.setContent(`<!doctype html><html><head><style>${css}</style></head><body>${html}</body></html>`);
  return page.evaluate<boolean>(MEASURE);
}

const NAME = 'Invoice viewer \u202e';
const cases: Array<[string, string]> = [
  ['a name in <strong> before UI text', `<p><strong>${NAME}</strong> Reads your files</p>`],
  ['a name in a <span> of a card', `<div><span class="name">${NAME}</span> Reads your files</div>`],
  ['a publisher in a link', `<div><a href="#">${NAME}</a> Reads your files</div>`],
  ['an id in <code>', `<li><code>${NAME}</code> Reads your files</li>`],
];

describe('package text with an unclosed RIGHT-TO-LEFT OVERRIDE stays inside its element', () => {
  it.each(cases)('%s', async (_what, html) => {
    expect(await readsInOrder(html, false), 'without the stylesheet the attack works (the test can fail)').toBe(false);
    expect(await readsInOrder(html, true)).toBe(true);
  });
  it('a control: ordinary text reads in order either way', async () => {
    expect(await readsInOrder('<p><strong>Invoice viewer</strong> Reads your files</p>', false)).toBe(true);
    expect(await readsInOrder('<p><strong>Invoice viewer</strong> Reads your files</p>', true)).toBe(true);
  });
});
