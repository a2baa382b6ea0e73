/**
 * Both servers of the built renderer (the `arcotheon ui` web host and the window's app://
 * protocol) serve files through one module, shared/static-files.ts: the same path rules and the
 * same realpath containment, so a symlink inside the build that leads outside it is refused by both.
 */
import { request } from 'node:http';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { openStaticFile, staticRelativePath } from '../../../electron/shared/static-files.js';
import { serveAppRequest } from '../../../electron/main/policy.js';
import { startWebHost, type WebHost } from '../../../electron/web.js';

let work: string;
let dist: string;
let web: WebHost;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-static-'));
  dist = join(work, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>Arcotheon</title>');
  await writeFile(join(dist, 'assets', 'app.js'), 'export {}');
  await writeFile(join(work, 'secret.txt'), 'the secret outside the build');
  await symlink(join(work, 'secret.txt'), join(dist, 'assets', 'leak.txt'));
  await symlink(work, join(dist, 'up'));
  // A link that stays inside the build is fine.
  await symlink(join(dist, 'assets', 'app.js'), join(dist, 'alias.js'));
  const home = await mkdtemp(join(work, 'home-'));
  web = await startWebHost({
    service: createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [] })),
    staticDir: dist,
  });
});

afterAll(async () => {
  await web.close();
  await rm(work, { recursive: true, force: true });
});

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: web.port, path, headers: { Host: `127.0.0.1:${web.port}` } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('one static-file rule for the web host and app://', () => {
  it('serves files inside the root, links that stay inside included', async () => {
    expect(await get('/assets/app.js')).toEqual({ status: 200, body: 'export {}' });
    expect(await get('/alias.js')).toEqual({ status: 200, body: 'export {}' });
    const app = await serveAppRequest('GET', 'app://arcotheon/assets/app.js', dist);
    expect(app.status).toBe(200);
    expect(String(app.body)).toBe('export {}');
    expect((await serveAppRequest('GET', 'app://arcotheon/alias.js', dist)).status).toBe(200);
  });

  it('refuses a symlink out of the root in both servers (realpath containment)', async () => {
    for (const path of ['/assets/leak.txt', '/up/secret.txt']) {
      const res = await get(path);
      expect(res.status, `web ${path}`).toBe(403);
      expect(res.body).not.toContain('secret');
      const app = await serveAppRequest('GET', `app://arcotheon${path}`, dist);
      expect(app.status, `app:// ${path}`).toBe(403);
      expect(app.body).toBeNull();
      expect(app.headers['Content-Security-Policy']).toBeDefined();
    }
  });

  it('answers missing files and folders with 404 in both', async () => {
    expect((await get('/missing.js')).status).toBe(404);
    expect((await get('/assets')).status).toBe(404);
    expect((await serveAppRequest('GET', 'app://arcotheon/missing.js', dist)).status).toBe(404);
    expect((await serveAppRequest('GET', 'app://arcotheon/assets', dist)).status).toBe(404);
  });

  it('has one path rule: NUL, backslashes and dot segments are refused', async () => {
    for (const path of ['/a\0b', '/..\\x', '/../x', '/./index.html', '/assets/../index.html'])
      expect(staticRelativePath(path), JSON.stringify(path)).toBeNull();
    expect(staticRelativePath('/')).toBe('index.html');
    expect(staticRelativePath('//assets//app.js')).toBe('assets/app.js');
    expect(await openStaticFile(dist, '../secret.txt')).toEqual({ status: 403 });
    expect(await openStaticFile(join(work, 'no-such-dist'), 'index.html')).toEqual({ status: 404 });
  });
});
