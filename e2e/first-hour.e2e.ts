// The first hour, exactly as the README's Quick start runs it: the built `arcotheon ui` and
// `npm start`, from node_modules/.bin and npm, on a fresh home, in an environment that holds no
// ARCOTHEON_* variable at all (the UI journeys set some for their own registries; a user sets none).
// Discover must list the eight bundled examples, and stopping `npm start` with SIGTERM must stop
// the server it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userEnv } from './helpers/user-env.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';

/** Resolves with the first stdout line that is an address, while collecting stderr for messages. */
function firstUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no address printed in time; stderr: ${stderr()}`)), 60_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const found = /^(https?:\/\/127\.0\.0\.1:\d+\/\S*)$/m.exec(buffer);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing an address; stderr: ${stderr()}`));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let browser: Browser;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'arcotheon-first-hour-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser.close();
  await rm(work, { recursive: true, force: true });
});

describe('the first hour, as the README says', () => {
  it('arcotheon ui on a fresh home with no ARCOTHEON_ variable: Discover lists the eight examples', { timeout: 120_000 }, async () => {
    const home = join(work, 'fresh-home');
    const child = spawn(join(REPO, 'node_modules', '.bin', 'arcotheon'), ['ui', '--home', home, '--no-open', '--port', '0'], {
      env: userEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    try {
      const url = await firstUrl(child, () => stderr);
      // Tall enough that the virtualised list draws all eight cards.
      const context = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
      const page = await context.newPage();
      await page.goto(url);
      await page.getByText('8 capabilities', { exact: true }).waitFor({ timeout: 30_000 });
      // The list of every capability (the first screen's sections above it repeat some cards).
      const cards = page.getByRole('list', { name: 'Capabilities' }).locator('a.card');
      await cards.nth(7).waitFor({ timeout: 30_000 });
      const ids = await cards.evaluateAll((links) => links.map((a) => a.getAttribute('data-id')));
      expect(ids.sort()).toEqual([
        'acme/contract-review',
        'acme/csv-summary',
        'acme/data-report',
        'acme/github-repo',
        'arcotheon/commit-messages',
        'arcotheon/http-reference',
        'arcotheon/todo-finder',
        'arcotheon/workspace-stats',
      ]);
      await expect(page.getByText('No capabilities here yet').count()).resolves.toBe(0);
      await context.close();
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });

  it('npm start, stopped with SIGTERM to npm, stops the server it started', { timeout: 120_000 }, async () => {
    // npm start's own demo home is .tmp/demo-home in the checkout; the test's run must not share it
    // with a person's, so it names another through the variable npm start documents for that.
    const env = { ...userEnv(), ARCOTHEON_HOME: join(work, 'start-home'), DISPLAY: '', WAYLAND_DISPLAY: '' };
    const npm = spawn('npm', ['start'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    npm.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const url = await firstUrl(npm, () => stderr);
    const port = Number(new URL(url).port);
    const server = await fetch(`http://127.0.0.1:${port}/`);
    expect(server.status).toBeLessThan(500);
    // Whatever npm runs under it (a shell, then node build/start.mjs) is found by the port it serves.
    npm.kill('SIGTERM');
    await exitOf(npm);
    const deadline = Date.now() + 10_000;
    let serving = true;
    while (serving && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      serving = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
    }
    expect(serving, `still serving on ${port} after npm stopped; stderr: ${stderr}`).toBe(false);
    expect(alive(npm.pid as number)).toBe(false);
  });
});
