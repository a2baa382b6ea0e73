/**
 * Drives the real app for the UI journeys: `arcotheon ui` as a child process (the built bin in
 * node_modules/.bin, on a temp home), and a browser page on the URL it prints.
 *
 * The browser is Debian's Chromium through playwright-core (no browser download): set
 * ARCOTHEON_CHROMIUM_PATH to use another one. The specs only use `AppDriver` (a page on the app,
 * and how to stop it), so an Electron driver (`_electron.launch` with ARCOTHEON_ELECTRON_PATH)
 * can be added beside `openInBrowser` without touching them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AppDriver } from './driver.js';
import { ELECTRON_TARGET, openInElectron } from './electron.js';

const repo = join(import.meta.dirname, '..', '..', '..');
/** The `arcotheon` launcher (what node_modules/.bin/arcotheon runs). */
export const ARCOTHEON_BIN = join(repo, 'electron', 'bin', 'arcotheon.mjs');
export const CHROMIUM_PATH = process.env['ARCOTHEON_CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export interface UiProcess {
  /** The one-time sign-in address it printed first. */
  url: string;
  /**
   * A sign-in address no one has used: the printed one the first time, then a new one each call,
   * which `arcotheon ui` prints when Enter is pressed on its stdin (as a user would in its terminal).
   */
  signInUrl(): Promise<string>;
  /** The home and extra environment it was started with (the Electron window opens the same). */
  home: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts `arcotheon ui --home <home> [--no-open] --port 0` and resolves with the sign-in address from its first stdout line. */
export function startUi(home: string, env: NodeJS.ProcessEnv = {}, options: { open?: boolean } = {}): Promise<UiProcess> {
  // open: let it open "the browser" (the sign-in journey puts a fake xdg-open first on PATH).
  const args = ['ui', '--home', home, ...(options.open === true ? [] : ['--no-open']), '--port', '0'];
  const child = spawn(process.execPath, [ARCOTHEON_BIN, ...args], {
    env: { ...process.env, ARCOTHEON_EMBEDDED_REGISTRY: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let buffer = '';
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      const next = waiting.shift();
      if (next === undefined) lines.push(line);
      else next(line);
    }
  });
  const nextLine = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const ready = lines.shift();
      if (ready !== undefined) return resolve(ready);
      const timer = setTimeout(() => reject(new Error(`arcotheon ui printed no address in 30 s; stderr: ${stderr}`)), 30_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`arcotheon ui exited ${code} before printing an address: ${stderr}`));
      });
    });
  return nextLine().then((url) => {
    let printedUsed = false;
    return {
      url,
      signInUrl: async () => {
        if (!printedUsed) {
          printedUsed = true;
          return url;
        }
        child.stdin.write('\n');
        return nextLine();
      },
      home,
      env,
      child,
      stderr: () => stderr,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    };
  });
}

export type { AppDriver } from './driver.js';

let browser: Browser | null = null;

export async function sharedBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = null;
}

/**
 * Opens a sign-in address in a fresh browser context (1280×800 unless told otherwise), as a user
 * does: the browser follows it, keeps the session cookie it sets, and lands on Discover.
 */
export async function openInBrowser(
  url: string,
  options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<AppDriver> {
  const context: BrowserContext = await (
    await sharedBrowser()
  ).newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.getByRole('heading', { name: 'Discover' }).waitFor();
  return { page, dialogs, errors, close: () => context.close() };
}

/**
 * The app under test, as the specs open it. Today: the page `arcotheon ui` serves, in Chromium.
 * The Electron window joins here (`_electron.launch` from playwright-core when
 * ARCOTHEON_ELECTRON_PATH is set), returning the same AppDriver, so the specs need no change.
 */
export function openApp(
  ui: UiProcess,
  options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<AppDriver> {
  // ARCOTHEON_UI_TARGET=electron (set by e2e/ui/electron.e2e.ts): the desktop window on the same home.
  return ELECTRON_TARGET ? openInElectron(ui.home, ui.env, options) : ui.signInUrl().then((url) => openInBrowser(url, options));
}

const requireFromHere = createRequire(import.meta.url);
let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it is and returns its serious and critical violations. axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern, so the app's
 * strict CSP stays on.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(requireFromHere.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    type AxeResult = { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> };
    const g = globalThis as unknown as { axe: { run(context: unknown, options: object): Promise<AxeResult> }; document: unknown };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
