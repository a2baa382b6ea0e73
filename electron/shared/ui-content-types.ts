import { extname } from 'node:path';

/**
 * Content types of the built renderer's files (renderer/dist), for the two servers of it: the
 * `arcotheon ui` web host and the Electron window's `app://` protocol.
 */
const UI_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function uiContentType(file: string): string {
  return UI_CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}
