import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasDisplay, parseUiArgs } from '../../../electron/cli.js';
import { createHostService } from '../../../electron/host/service.js';
import { NOT_BUILT_PAGE, startWebHost } from '../../../electron/web.js';
import { Arcotheon } from '@arcotheon/sdk';
import { assertBuilt } from '../../helpers/built.js';
import {
  BIN,
  callOver,
  closedWithin,
  connectApi,
  rawSocket,
  rawWebSocket,
  SIGN_IN_URL,
  startUiProcess,
  stillServes,
  stopUiProcess,
  upgradeRequest,
} from '../../helpers/ui-process.js';

/**
 * `arcotheon ui` as the built bin npm links into node_modules/.bin: a one-time sign-in
 * address is the first stdout line, the UI and the API are served on 127.0.0.1, and SIGTERM and
 * SIGINT stop it cleanly with exit code 0.
 */
function get(
  port: number,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// The bin runs out/electron/ and sdk/dist: refuse to test a stale build.
beforeAll(() => assertBuilt('sdk', 'electron'));

describe('the arcotheon bin', () => {
  it('prints the URL first, serves the UI with a strict CSP and the API, and exits 0 on SIGTERM', async () => {
    const ui = await startUiProcess({ bin: true });
    expect(ui.url).toMatch(SIGN_IN_URL);
    const page = await get(ui.port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${ui.port} ws://localhost:${ui.port};`);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const ws = await connectApi(ui.port, ui.cookie);
    expect(await callOver(ws, 1, 'host.info', [])).toMatchObject({ ok: true, value: { home: ui.home } });
    ws.close();
    expect(await stopUiProcess(ui)).toEqual({ code: 0, signal: null });
    expect(ui.stderr()).toMatch(/Stopping \(SIGTERM\)/);
  });

  it('survives hostile clients (a reset refused upgrade, an oversized message, a malformed frame) and still exits 0', async () => {
    const ui = await startUiProcess({ bin: true });
    const reset = await rawSocket(ui.port);
    reset.on('error', () => undefined);
    reset.write(upgradeRequest(ui.port, null));
    reset.resetAndDestroy();
    const big = await connectApi(ui.port, ui.cookie);
    big.on('error', () => undefined);
    const bigClosed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.send('x'.repeat(5 * 1024 * 1024));
    expect(await bigClosed).toBe(1009);
    const frames = await rawWebSocket(ui.port, ui.cookie);
    frames.on('error', () => undefined);
    frames.write(Buffer.from([0x83, 0x80, 1, 2, 3, 4]));
    expect(await closedWithin(frames, 5000)).toBe(true);
    expect(ui.alive(), ui.stderr()).toBe(true);
    expect(await stillServes(ui.port, ui.cookie)).toBe(true);
    expect(await stopUiProcess(ui)).toEqual({ code: 0, signal: null });
  });

  it('exits 0 on SIGINT (Ctrl-C)', async () => {
    const ui = await startUiProcess({ bin: true });
    ui.child.kill('SIGINT');
    expect(await ui.exited).toEqual({ code: 0, signal: null });
  });

  it('refuses bad usage with exit code 2 and says why', () => {
    const bad = spawnSync(BIN, ['ui', '--port', 'eighty'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port needs a port number/);
    const unknown = spawnSync(BIN, ['serve'], { encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command "serve"/);
    const help = spawnSync(BIN, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: arcotheon ui \[--home DIR\] \[--port N\] \[--no-open\]/);
  });

  it('parses its options', () => {
    expect(parseUiArgs(['--home', '/x', '--port=8080', '--no-open'])).toEqual({ home: '/x', port: 8080, open: false });
    expect(parseUiArgs([])).toEqual({ port: 0, open: true });
    expect(parseUiArgs(['--port', '70000'])).toMatch(/port number/);
    expect(parseUiArgs(['--home'])).toMatch(/--home needs a folder/);
    expect(parseUiArgs(['--open-sesame'])).toMatch(/Unknown option/);
  });

  it('serves a page that says how to build the UI when the renderer is not built', async () => {
    const home = await mkdtemp(join(tmpdir(), 'arcotheon-unbuilt-'));
    const web = await startWebHost({
      service: createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } } })),
      staticDir: await mkdtemp(join(tmpdir(), 'arcotheon-empty-dist-')),
    });
    try {
      const page = await get(web.port, '/');
      expect(page).toMatchObject({ status: 200, body: NOT_BUILT_PAGE });
      expect(page.body).toMatch(/npm run build/);
      expect(page.body).not.toMatch(/<script/);
      expect((await get(web.port, '/assets/app.js')).status).toBe(404);
    } finally {
      await web.close();
    }
  });

  it('npm start opens a browser only where there is a display', () => {
    expect(hasDisplay({}, 'linux')).toBe(false);
    expect(hasDisplay({ DISPLAY: ':0' }, 'linux')).toBe(true);
    expect(hasDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBe(true);
    expect(hasDisplay({}, 'darwin')).toBe(true);
  });
});
