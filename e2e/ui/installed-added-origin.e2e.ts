/**
 * A capability brought in with `adcap add` says so in the manager UI as in `adcap list`
 * (docs/skills.md): "Added by you from <source>" on its Installed row and on its page. The folder is
 * added by the built CLI into the home `arcotheon ui` then serves; Chromium reads both screens.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap, assertBuilt } from '../helpers/adcap.js';
import { closeBrowser, openApp, startUi, type UiProcess } from './helpers/app.js';
import { tempDir } from './helpers/registry.js';

let ui: UiProcess;
let folder: string;

beforeAll(async () => {
  await assertBuilt();
  const work = await tempDir('arcotheon-ui-added-');
  folder = join(work, 'notes-skills');
  await mkdir(join(folder, 'skills', 'meeting-notes'), { recursive: true });
  await writeFile(
    join(folder, 'skills', 'meeting-notes', 'SKILL.md'),
    '---\nname: meeting-notes\ndescription: Turns a meeting transcript into short notes with decisions and owners.\n---\n\n# Notes\n',
  );
  const home = join(work, 'home');
  // Not a user's run: a HOME and config folder of the test's own, so no agent of this machine gets
  // links and the user's own publisher key is made here, not in the real config folder.
  const env = { ...process.env, HOME: join(work, 'user'), XDG_CONFIG_HOME: join(work, 'user', '.config') };
  const added = await adcap(['add', folder, '--id', 'me/notes', '--yes', '--home', home], { env });
  expect(added.code, added.stderr).toBe(0);
  // Not a user's run: no built-in registry, so only what the test added is there.
  ui = await startUi(home, { ARCOTHEON_EMBEDDED_REGISTRY: '' });
}, 120_000);

afterAll(async () => {
  await closeBrowser();
  await ui?.stop();
});

describe('a capability added with adcap add', () => {
  it('says where it came from on the Installed list and on its page', async () => {
    const app = await openApp(ui);
    try {
      const page = app.page;
      await page.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/installed'));
      const row = page.locator('[data-added-from]').first();
      await row.waitFor();
      await expect(row.textContent()).resolves.toBe(`Added by you from ${folder}`);
      await page.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/installed/me/notes'));
      await page.getByRole('heading', { name: /notes/i, level: 1 }).waitFor();
      await expect(page.locator('p[data-added-from]').textContent()).resolves.toBe(`Added by you from ${folder}.`);
      expect(app.errors).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
