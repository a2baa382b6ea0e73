import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApi, followSignIn, SIGN_IN_URL, startUiProcess, stopUiProcess, type UiProcess } from '../../helpers/ui-process.js';

/**
 * The attack (SECURITY.md, the local UI server): `arcotheon ui` opened the browser with
 * `http://127.0.0.1:<port>/#token=…` on its command line, which every local user can read in
 * /proc/<pid>/cmdline, and the token granted everything for the server's life. Here a fake
 * browser (an `xdg-open` placed first on PATH, which is what the CLI runs on Linux) records its
 * arguments: none may carry a usable secret, the session cookie never appears in them, and the
 * one-time codes (the browser's and the printed one) cannot be used twice.
 */
let ui: UiProcess;
let recorded: string[];
let fakeBin: string;

beforeAll(async () => {
  fakeBin = await mkdtemp(join(tmpdir(), 'arcotheon-fake-browser-'));
  const log = join(fakeBin, 'arguments.json');
  // The fake browser is a Node script: it writes its arguments as JSON and exits.
  await writeFile(
    join(fakeBin, 'xdg-open'),
    // Written to a temporary name and renamed, so the test never reads a half-written file.
    `#!${process.execPath}\nconst fs = require('node:fs');\n` +
      `fs.writeFileSync(${JSON.stringify(`${log}.tmp`)}, JSON.stringify(process.argv.slice(2)));\n` +
      `fs.renameSync(${JSON.stringify(`${log}.tmp`)}, ${JSON.stringify(log)});\n`,
  );
  await chmod(join(fakeBin, 'xdg-open'), 0o755);
  // PATH starts with the fake browser; a user's run finds their real xdg-open there.
  ui = await startUiProcess({ open: true, signIn: false, env: { PATH: `${fakeBin}:${process.env['PATH'] ?? ''}` } });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await readFile(log, 'utf8').catch(() => null);
    if (text !== null) {
      recorded = JSON.parse(text) as string[];
      break;
    }
    if (Date.now() > deadline) throw new Error(`the browser was not opened; stderr: ${ui.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

afterAll(async () => {
  await stopUiProcess(ui);
});

describe('arcotheon ui puts no usable secret on the browser command line', () => {
  it('opens the browser on a file only this user can read, with no code in its arguments', async () => {
    expect(recorded).toHaveLength(1);
    const [argument] = recorded as [string];
    expect(argument).toMatch(/^file:\/\/\//);
    expect(argument).not.toMatch(/code=|token=|session/);
    const page = fileURLToPath(argument);
    expect(page.startsWith(join(ui.home, 'ui'))).toBe(true);
    expect((await stat(page)).mode & 0o777).toBe(0o600);
    expect((await stat(join(ui.home, 'ui'))).mode & 0o777).toBe(0o700);
  });

  it('the page leads to its own one-time address; once used, it grants nothing, and the cookie is in no argument', async () => {
    const html = await readFile(fileURLToPath(recorded[0] as string), 'utf8');
    const target = /content="0;url=([^"]+)"/.exec(html)?.[1] ?? '';
    expect(target).toMatch(SIGN_IN_URL);
    expect(target).not.toBe(ui.url);
    const first = await followSignIn(target);
    expect(first.status).toBe(303);
    const cookie = first.setCookie as string;
    const value = cookie.split('=')[1] as string;
    for (const argument of recorded) expect(argument).not.toContain(value);
    expect(ui.url).not.toContain(value);
    const ws = await connectApi(ui.port, cookie);
    ws.close();
    const second = await followSignIn(target);
    expect(second.status).toBe(403);
    expect(second.setCookie).toBeNull();
    expect(second.body).toContain('This sign-in address was already used');
  });

  it('the printed address is one-time too, and Enter prints a fresh one', async () => {
    const first = await followSignIn(ui.url);
    expect(first.status).toBe(303);
    const again = await followSignIn(ui.url);
    expect(again.status).toBe(403);
    expect(again.body).toMatch(/press Enter in its terminal for a new address/);
    const fresh = await ui.newAddress();
    expect(fresh).toMatch(SIGN_IN_URL);
    expect(fresh).not.toBe(ui.url);
    expect((await followSignIn(fresh)).status).toBe(303);
  });

  it('removes the sign-in page when it stops', async () => {
    const page = fileURLToPath(recorded[0] as string);
    expect(await stopUiProcess(ui)).toEqual({ code: 0, signal: null });
    await expect(stat(page)).rejects.toThrow(/ENOENT/);
  });
});
