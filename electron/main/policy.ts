/**
 * The window's security decisions as plain functions (Electron's
 * security checklist): which frames may call the host, what the page may navigate to or open,
 * which links go to the system browser, and how `app://` URLs map to the built renderer. main.ts
 * only wires these to Electron's events, so they are unit-tested without the binary.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { openStaticFile, staticRelativePath } from '../shared/static-files.js';
import { uiContentType } from '../shared/ui-content-types.js';

/** The renderer is served from this origin only (a privileged, secure custom scheme). */
export const APP_SCHEME = 'app';
const APP_HOST = 'arcotheon';
const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY = `${APP_ORIGIN}/index.html`;

/**
 * The strict CSP of the UI, without the loopback WebSocket the browser transport needs:
 * in the window every host call goes through the preload, so the page may connect nowhere.
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** True for a URL of the app's own origin (`app://arcotheon/...`), nothing else. */
export function isAppUrl(url: string): boolean {
  const parsed = parse(url);
  return (
    parsed !== null && parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === ''
  );
}

/** What main.ts knows about the frame behind an IPC message (`event.senderFrame`, `event.sender`). */
export interface SenderInfo {
  /** `event.sender.id`: the WebContents that sent the message. */
  webContentsId: number;
  /** `event.senderFrame.url`; null when the frame is gone. */
  frameUrl: string | null;
  /** Whether `event.senderFrame` is that WebContents' main frame (not an iframe). */
  isMainFrame: boolean;
}

/**
 * Every IPC message is checked against the one window the app made: its WebContents, its main
 * frame, and the app's origin. A message from another WebContents (a devtools extension, a future
 * window), from an iframe, or from a page that navigated away is refused.
 */
export function isTrustedSender(sender: SenderInfo, windowWebContentsId: number | null): boolean {
  return (
    windowWebContentsId !== null &&
    sender.webContentsId === windowWebContentsId &&
    sender.isMainFrame &&
    sender.frameUrl !== null &&
    isAppUrl(sender.frameUrl)
  );
}

/** Hosts a link may never open in the system browser even over https (this machine, link-local). */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\./.test(host) ||
    host === '0.0.0.0' ||
    host === '::1' ||
    /^169\.254\./.test(host) ||
    /^fe80:/i.test(host)
  );
}

/**
 * The check before a link leaves the app for the system browser: https only, no user name or
 * password in it (phishing), a real host that is not this machine, at most 2048 characters.
 * Returns the normalised URL to open, or null to drop the link. Package text is hostile: a
 * `file:`, `javascript:`, custom-scheme or `http:` link from a readme never reaches
 * `shell.openExternal`.
 */
export function externalLinkTarget(url: string): string | null {
  if (url.length > 2048) return null;
  const parsed = parse(url);
  if (parsed === null || parsed.protocol !== 'https:') return null;
  if (parsed.username !== '' || parsed.password !== '') return null;
  if (parsed.hostname === '' || (!parsed.hostname.includes('.') && !parsed.hostname.startsWith('['))) return null;
  if (isLocalHost(parsed.hostname)) return null;
  if (parsed.port !== '' && parsed.port !== '443') return null;
  return parsed.href;
}

type NavigationDecision = { action: 'deny' } | { action: 'open-external'; url: string };

/**
 * `will-navigate`, `will-redirect` and `setWindowOpenHandler`: the window never leaves its page
 * and never opens another window. An https link the user clicked goes to the system browser
 * after `externalLinkTarget`'s check; everything else is dropped. (The renderer routes with the
 * URL hash, which is not a navigation.)
 */
export function navigationDecision(url: string): NavigationDecision {
  const target = externalLinkTarget(url);
  return target === null ? { action: 'deny' } : { action: 'open-external', url: target };
}

/**
 * Permission requests and checks (camera, notifications, clipboard-read, geolocation, ...): no.
 * The one exception is writing text to the clipboard from the app's own page (the Copy buttons
 * beside an agent step's instruction); reading the clipboard stays denied.
 */
export function permissionDecision(permission: string, requestingUrl: string | undefined): boolean {
  return permission === 'clipboard-sanitized-write' && requestingUrl !== undefined && isAppUrl(requestingUrl);
}

type AppRequest =
  { status: 200; file: string; headers: Record<string, string> } | { status: 403 | 404 | 405; headers: Record<string, string> };

/** Headers of every `app://` response: the CSP, no sniffing, no caching of the UI. */
const APP_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': APP_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Maps an `app://arcotheon/<path>` request to a file inside `root` (renderer/dist). Only GET, only
 * the app host, no `..` after decoding, no path outside `root`; `/` is index.html.
 */
export function resolveAppRequest(method: string, url: string, root: string): AppRequest {
  const headers = { ...APP_HEADERS };
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers };
  const parsed = parse(url);
  if (parsed === null || parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return { status: 404, headers };
  let decoded: string;
  try {
    decoded = decodeURIComponent(parsed.pathname);
  } catch {
    return { status: 404, headers };
  }
  const relative = staticRelativePath(decoded);
  if (relative === null) return { status: 403, headers };
  const base = path.resolve(root);
  const file = path.resolve(base, relative);
  if (!file.startsWith(base + path.sep)) return { status: 403, headers };
  return { status: 200, file, headers: { ...headers, 'Content-Type': uiContentType(file) } };
}

interface AppResponse {
  status: 200 | 403 | 404 | 405;
  headers: Record<string, string>;
  /** The file's bytes for a GET that found one; null otherwise (and for HEAD). */
  body: Buffer | null;
}

/**
 * The whole `app://` answer main.ts hands to Electron: resolveAppRequest's URL checks, then the
 * web host's own static-file rule (shared/static-files.ts), so a link inside renderer/dist that
 * leads outside it is refused here as it is by `arcotheon ui`.
 */
export async function serveAppRequest(method: string, url: string, root: string): Promise<AppResponse> {
  const resolved = resolveAppRequest(method, url, root);
  if (resolved.status !== 200) return { status: resolved.status, headers: resolved.headers, body: null };
  const found = await openStaticFile(root, path.relative(path.resolve(root), resolved.file).split(path.sep).join('/'));
  if (found.status !== 200) return { status: found.status, headers: withoutContentType(resolved.headers), body: null };
  const body = await readFile(found.file).catch(() => null);
  if (body === null) return { status: 404, headers: withoutContentType(resolved.headers), body: null };
  return { status: 200, headers: resolved.headers, body: method === 'HEAD' ? null : body };
}

/** An error answer keeps the security headers but names no content type. */
function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const { 'Content-Type': _contentType, ...rest } = headers;
  return rest;
}
