import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findElectronBinary, startChoice } from '../../../electron/main/binary.js';

async function repoWith(options: { electron?: boolean; pathTxt?: string; binary?: boolean }): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'adcap-bin-'));
  const dir = join(repo, 'node_modules', 'electron');
  if (options.electron === true) {
    await mkdir(join(dir, 'dist'), { recursive: true });
    await writeFile(join(dir, 'package.json'), '{"name":"electron"}');
  }
  if (options.pathTxt !== undefined) await writeFile(join(dir, 'path.txt'), options.pathTxt);
  if (options.binary === true) {
    await writeFile(join(dir, 'dist', 'electron'), '#!/bin/sh\n');
    await chmod(join(dir, 'dist', 'electron'), 0o755);
  }
  return repo;
}

describe('finding an Electron binary without downloading one', () => {
  it('takes ARCOTHEON_ELECTRON_PATH when it names a file, and says why not otherwise', async () => {
    const repo = await repoWith({ electron: true, pathTxt: 'electron', binary: true });
    const file = join(repo, 'node_modules', 'electron', 'dist', 'electron');
    // The variable's own handling is what this test checks.
    expect(findElectronBinary({ ARCOTHEON_ELECTRON_PATH: file }, '/nowhere')).toEqual({ path: file, source: 'ARCOTHEON_ELECTRON_PATH' });
    // The variable's own handling is what this test checks.
    const missing = findElectronBinary({ ARCOTHEON_ELECTRON_PATH: join(repo, 'nope') }, repo);
    expect(missing.path).toBeNull();
    if (missing.path === null) expect(missing.reason).toContain('is not a file');
  });

  it('uses the downloaded binary under node_modules/electron, and nothing else', async () => {
    const ready = await repoWith({ electron: true, pathTxt: 'electron', binary: true });
    expect(findElectronBinary({}, ready)).toEqual({
      path: join(ready, 'node_modules', 'electron', 'dist', 'electron'),
      source: 'node_modules/electron',
    });
    // What `npm ci` leaves here: the package without its binary (Electron 45 downloads on first use).
    for (const repo of [await repoWith({ electron: true }), await repoWith({ electron: true, pathTxt: 'electron' }), await repoWith({})]) {
      const found = findElectronBinary({}, repo);
      expect(found.path).toBeNull();
      if (found.path === null) expect(found.reason).toMatch(/not installed|install-electron/);
    }
  });

  it('chooses the window, the browser or the bare URL, with one line each', () => {
    const binary = { path: '/x/electron', source: 'node_modules/electron' };
    const none = { path: null, reason: 'the Electron binary was not downloaded ("npx install-electron" fetches it)' };
    expect(startChoice(binary, true)).toEqual({
      mode: 'electron',
      line: 'Opening the Arcotheon window (Electron from node_modules/electron).',
    });
    const browser = startChoice(none, true);
    expect(browser.mode).toBe('browser');
    expect(browser.line).toBe(
      'No Electron window: the Electron binary was not downloaded ("npx install-electron" fetches it); ' +
        'opening "arcotheon ui" in your browser instead.',
    );
    expect(startChoice(binary, false).mode).toBe('url');
    expect(startChoice(none, false).mode).toBe('url');
    for (const c of [startChoice(binary, true), browser, startChoice(none, false)]) expect(c.line).not.toContain('\n');
  });
});
