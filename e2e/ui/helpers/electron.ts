/**
 * The Electron driver for the UI journeys: the same specs, with the page in
 * the desktop window through Playwright's `_electron` instead of Chromium on `arcotheon ui`.
 * `openApp` (app.ts) uses it when ARCOTHEON_UI_TARGET=electron (e2e/ui/electron.e2e.ts sets it
 * when ARCOTHEON_ELECTRON_PATH names a binary). The journeys then check outcomes through `adcap`
 * on the same home, exactly as in the browser; the `arcotheon ui` process the specs start keeps
 * running beside the window (its clean stop is still checked).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright-core';
import type { ElectronBinary } from '../../../electron/main/binary.js';
import type { AppDriver } from './driver.js';

const repo = join(import.meta.dirname, '..', '..', '..');

/** True when this run of the journeys drives the Electron window. */
export const ELECTRON_TARGET = process.env['ARCOTHEON_UI_TARGET'] === 'electron';

/** The binary the journeys run under: only the one ARCOTHEON_ELECTRON_PATH names (never a download). */
export async function journeysElectron(): Promise<ElectronBinary> {
  const { findElectronBinary, ELECTRON_PATH_ENV } = await import('../../../electron/main/binary.js');
  if ((process.env[ELECTRON_PATH_ENV] ?? '') === '') return { path: null, reason: `${ELECTRON_PATH_ENV} is not set` };
  return findElectronBinary(process.env, repo);
}

export async function openInElectron(
  home: string,
  env: NodeJS.ProcessEnv = {},
  options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<AppDriver & { electron: ElectronApplication }> {
  const binary = await journeysElectron();
  if (binary.path === null) throw new Error(`No Electron binary: ${binary.reason}.`);
  const bundled = spawnSync(process.execPath, [join(repo, 'build', 'electron.mjs')], { encoding: 'utf8' });
  if (bundled.status !== 0) throw new Error(`build/electron.mjs failed: ${bundled.stderr}`);
  const electron = await _electron.launch({
    executablePath: binary.path,
    // Chromium refuses to run as root with its sandbox (CI runs as root); the app's own
    // sandbox: true still applies to the renderer's JavaScript (no Node, context isolation).
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), repo],
    env: { ...process.env, ARCOTHEON_HOME: home, ARCOTHEON_EMBEDDED_REGISTRY: '', ...env } as Record<string, string>,
    timeout: 60_000,
  });
  const page = await electron.firstWindow();
  await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 800 });
  await page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.getByRole('heading', { name: 'Discover' }).waitFor({ timeout: 60_000 });
  return { page, dialogs, errors, electron, close: () => electron.close() };
}
