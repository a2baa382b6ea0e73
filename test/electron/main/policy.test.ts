import { mkdtemp, mkdir, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_CSP,
  APP_ENTRY,
  externalLinkTarget,
  isAppUrl,
  isTrustedSender,
  navigationDecision,
  permissionDecision,
  resolveAppRequest,
} from '../../../electron/main/policy.js';

describe('sender check: only the window main frame on app://arcotheon', () => {
  const window = 7;
  const ok = { webContentsId: 7, frameUrl: 'app://arcotheon/index.html#/catalogue', isMainFrame: true };

  it('accepts the window main frame', () => {
    expect(isTrustedSender(ok, window)).toBe(true);
  });

  it.each([
    ['another WebContents', { ...ok, webContentsId: 8 }],
    ['an iframe of the window', { ...ok, isMainFrame: false }],
    ['a frame that is gone', { ...ok, frameUrl: null }],
    ['a page on another origin', { ...ok, frameUrl: 'https://evil.example/index.html' }],
    ['a file:// page', { ...ok, frameUrl: 'file:///tmp/index.html' }],
    ['another app:// host', { ...ok, frameUrl: 'app://evil/index.html' }],
    ['app:// with credentials', { ...ok, frameUrl: 'app://user:pw@arcotheon/index.html' }],
    ['an unparseable URL', { ...ok, frameUrl: 'not a url' }],
  ])('refuses %s', (_what, sender) => {
    expect(isTrustedSender(sender, window)).toBe(false);
  });

  it('refuses everything while there is no window', () => {
    expect(isTrustedSender(ok, null)).toBe(false);
  });

  it('knows its own entry URL', () => {
    expect(isAppUrl(APP_ENTRY)).toBe(true);
  });
});

describe('links leaving the app', () => {
  it('opens public https links in the system browser', () => {
    expect(navigationDecision('https://example.com/docs?q=1#x')).toEqual({
      action: 'open-external',
      url: 'https://example.com/docs?q=1#x',
    });
    expect(externalLinkTarget('https://example.com:443/')).toBe('https://example.com/');
  });

  it.each([
    'http://example.com/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'arcotheon://install/acme/x',
    'app://arcotheon/index.html',
    'smb://server/share',
    'https://user:pw@example.com/',
    'https://localhost/',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://169.254.169.254/latest/meta-data',
    'https://intranet/',
    'https://example.com:8443/',
    `https://example.com/${'a'.repeat(2100)}`,
    'not a url',
  ])('drops %s', (url) => {
    expect(externalLinkTarget(url)).toBeNull();
    expect(navigationDecision(url)).toEqual({ action: 'deny' });
  });

  it('denies every permission request but writing text to the clipboard from the app itself', () => {
    for (const permission of [
      'media',
      'notifications',
      'clipboard-read',
      'geolocation',
      'openExternal',
      'fullscreen',
      'midi',
      'pointerLock',
    ]) {
      expect(permissionDecision(permission, 'app://arcotheon/index.html')).toBe(false);
    }
    expect(permissionDecision('clipboard-sanitized-write', 'app://arcotheon/index.html')).toBe(true);
    expect(permissionDecision('clipboard-sanitized-write', 'app://arcotheon')).toBe(true);
    expect(permissionDecision('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(permissionDecision('clipboard-sanitized-write', undefined)).toBe(false);
  });
});

describe('app:// serves renderer/dist only', () => {
  it('maps paths into the root with the CSP, and refuses everything else', async () => {
    const root = await mkdtemp(join(tmpdir(), 'adcap-app-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html>');
    await writeFile(join(root, 'assets', 'app.js'), 'export {}');

    const index = resolveAppRequest('GET', 'app://arcotheon/', root);
    expect(index.status).toBe(200);
    if (index.status !== 200) throw new Error('unreachable');
    expect(await readFile(index.file, 'utf8')).toBe('<!doctype html>');
    expect(index.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(index.headers['Content-Security-Policy']).toBe(APP_CSP);

    const script = resolveAppRequest('GET', 'app://arcotheon/assets/app.js?v=1#h', root);
    expect(script).toMatchObject({
      status: 200,
      file: join(root, 'assets', 'app.js'),
      headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
    });

    // Encoded separators and dot segments survive URL parsing and are refused after decoding.
    for (const url of [
      'app://arcotheon/assets/%2e%2e%2f%2e%2e%2fsecret',
      'app://arcotheon/..%2fsecret',
      'app://arcotheon/..%5csecret',
      'app://arcotheon/a%00b',
    ]) {
      expect(resolveAppRequest('GET', url, root).status, url).toBe(403);
    }
    expect(resolveAppRequest('GET', 'app://other/index.html', root).status).toBe(404);
    expect(resolveAppRequest('GET', 'app://arcotheon/%E0%A4%A', root).status).toBe(404);
    expect(resolveAppRequest('POST', 'app://arcotheon/index.html', root).status).toBe(405);
    // Whatever the URL, a 200 never points outside the root.
    // (The URL parser resolves plain and %2e dot segments itself, against the root.)
    for (const url of [
      'app://arcotheon/../../etc/passwd',
      'app://arcotheon/%2e%2e/%2e%2e/etc/passwd',
      'app://arcotheon/./index.html',
      'app://arcotheon//etc/passwd',
    ]) {
      const r = resolveAppRequest('GET', url, root);
      expect(r.status === 200 ? r.file.startsWith(root + sep) : r.status === 403, url).toBe(true);
    }
  });

  it('has a CSP without inline script, remote connections, frames or plugins', () => {
    const directives = new Map(APP_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives.get('default-src')).toBe("'self'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('connect-src')).toBe("'none'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('frame-src')).toBe("'none'");
    expect(APP_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });
});
