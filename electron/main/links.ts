/**
 * What the operating system hands the app: `arcotheon://` links and
 * `.adcap` files, on the command line (Linux, Windows, a second instance) or through macOS's
 * `open-url` / `open-file` events. Both are hostile input: a web page can make the browser open
 * any `arcotheon://` link, and a downloaded file can be named anything. Parsing is strict and
 * nothing here installs: the result is shown in the verified install dialog.
 */
import path from 'node:path';
import { isIdPart } from '@arcotheon/sdk';

export const LINK_SCHEME = 'arcotheon';
export const PACKAGE_EXTENSION = '.adcap';
/** The files the app opens: packages, and MCP Bundles (imported first; docs/spec/mcp-runtime.md "MCP Bundles"). */
export const OPENED_EXTENSIONS = [PACKAGE_EXTENSION, '.mcpb'] as const;

/** Whether a path names a file the app opens (by its extension, any case). */
export function isOpenedFile(file: string): boolean {
  const lower = file.toLowerCase();
  return OPENED_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * A semver range as npm writes them: versions, x-ranges, ^ ~ < > = operators, hyphen ranges and
 * || alternatives. Anything else (quotes, slashes, control characters) is refused.
 */
const RANGE = /^[0-9A-Za-z.*^~<>=|+\- ]{1,128}$/;

type LinkResult = { ok: true; spec: string; id: string; range: string | null } | { ok: false; message: string };

const refuse = (message: string): LinkResult => ({ ok: false, message });

/**
 * Parses `arcotheon://install/<publisher>/<name>[@range]`. The only action is `install`; no user,
 * port, query or fragment; exactly two path segments; the id by DESIGN §3's rule; the range
 * (percent-decoded once) limited to semver's characters. Returns `publisher/name[@range]`.
 */
export function parseInstallLink(link: string): LinkResult {
  if (typeof link !== 'string' || link.length === 0) return refuse('The link is empty.');
  if (link.length > 512) return refuse('The arcotheon:// link is longer than 512 characters, so it was not opened.');
  // Control characters and spaces never belong in the raw link (a space in a range is %20).
  if ([...link].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f))
    return refuse('The arcotheon:// link contains spaces or control characters, so it was not opened.');
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return refuse('The arcotheon:// link is malformed, so it was not opened.');
  }
  if (url.protocol !== `${LINK_SCHEME}:`) return refuse('Only arcotheon:// links are opened by Arcotheon.');
  if (url.username !== '' || url.password !== '' || url.port !== '')
    return refuse('The arcotheon:// link carries a user name, password or port, so it was not opened.');
  if (url.search !== '' || url.hash !== '' || link.includes('?') || link.includes('#'))
    return refuse('The arcotheon:// link carries a query or fragment, so it was not opened.');
  if (url.hostname !== 'install')
    return refuse(`Arcotheon links name an action; only "install" exists (arcotheon://install/<publisher>/<name>[@range]).`);
  const segments = url.pathname.split('/');
  // "/pub/name" splits into ['', 'pub', 'name']; a trailing slash or more segments is refused.
  if (segments.length !== 3 || segments[0] !== '')
    return refuse('An install link names exactly one capability: arcotheon://install/<publisher>/<name>[@range].');
  const publisher = segments[1] as string;
  const rest = segments[2] as string;
  const at = rest.indexOf('@');
  const name = at === -1 ? rest : rest.slice(0, at);
  if (!isIdPart(publisher)) return refuse('The publisher in the link is not a valid id (lowercase letters, digits and single hyphens).');
  if (!isIdPart(name)) return refuse('The capability name in the link is not a valid id (lowercase letters, digits and single hyphens).');
  const id = `${publisher}/${name}`;
  if (at === -1) return { ok: true, spec: id, id, range: null };
  let range: string;
  try {
    range = decodeURIComponent(rest.slice(at + 1));
  } catch {
    return refuse('The version range in the link is malformed.');
  }
  if (!RANGE.test(range) || range.trim() === '' || range !== range.trim())
    return refuse('The version range in the link is not a semver range.');
  return { ok: true, spec: `${id}@${range}`, id, range };
}

export type OpenTarget = { kind: 'link'; url: string } | { kind: 'file'; path: string };

/**
 * The files and links in a command line (the first launch's `process.argv`, or the argv a second
 * instance hands over). Skips the executable, the app path in development (`electron .`), and
 * switches (`--foo`, which Chromium and Electron add); keeps `arcotheon:` links and paths ending
 * in `.adcap` or `.mcpb`, made absolute against the launching process's `cwd`. At most 16 targets.
 */
export function openTargetsFromArgv(argv: readonly string[], cwd: string, options: { skip: number }): OpenTarget[] {
  const targets: OpenTarget[] = [];
  for (const arg of argv.slice(options.skip)) {
    if (typeof arg !== 'string' || arg === '' || arg.startsWith('-')) continue;
    if (arg.toLowerCase().startsWith(`${LINK_SCHEME}:`)) targets.push({ kind: 'link', url: arg });
    else if (isOpenedFile(arg)) targets.push({ kind: 'file', path: path.resolve(cwd, arg) });
    if (targets.length === 16) break;
  }
  return targets;
}

/** How many leading argv entries are not the user's: the executable, and the app path in development. */
export function argvSkip(isPackaged: boolean, defaultApp: boolean): number {
  return isPackaged || !defaultApp ? 1 : 2;
}
