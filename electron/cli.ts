/**
 * The `arcotheon` command (DESIGN §2):
 *
 *   arcotheon ui [--home DIR] [--port N] [--no-open]
 *
 * serves the built renderer (renderer/dist/) and the host API (web.ts) on 127.0.0.1, prints a
 * one-time sign-in address `http://127.0.0.1:<port>/signin?code=…` as its first line on stdout
 * (scripts and the e2e suite read it; each Enter on stdin prints a new one), opens the browser
 * unless --no-open, and stops cleanly on SIGINT and SIGTERM (exit 0). Everything else it says goes
 * to stderr.
 *
 * No secret goes on a command line, where other local users can read it (SECURITY.md, the local
 * UI server): the browser is opened on a file in the home, readable only by the user, that sends
 * it on to its own one-time address.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, fstatSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isAdcapError } from '@arcotheon/sdk';
import { startHost } from './host/root.js';
import type { HostService } from './host/service.js';
import type { StartUpOutcome } from './host/startup.js';
import { defaultHome as desktopDefaultHome } from './shared/paths.js';
import { startWebHost, type WebHost } from './web.js';
import { writePrivateFileAtomic } from './web-sessions.js';

/** The repository (or installed app) root: the folder whose package.json is the app's. */
export function appRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'arcotheon') return dir;
    if (dirname(dir) === dir) return resolve(from, '..', '..');
  }
}

/** Where the renderer's Vite build lands (renderer/vite.config.ts `outDir`), served at /. */
export const RENDERER_DIST = join('renderer', 'dist');

export interface UiOptions {
  home: string;
  port: number;
  open: boolean;
  staticDir?: string;
  /** The environment read for the embedded registry and ARCOTHEON_POLICY (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface RunningUi {
  /** The first one-time sign-in address (`web.signInUrl()` makes more). */
  url: string;
  web: WebHost;
  service: HostService;
  /**
   * The organisation policy applied once at start-up, in the background (the UI is
   * served meanwhile and follows it through the operation's events and policy.show).
   */
  startup: Promise<StartUpOutcome>;
  stop(): Promise<void>;
}

function appVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Starts the service and the web host (no printing, no signals): for `arcotheon ui` and `npm start`. */
export async function startUi(options: UiOptions, log: (message: string) => void = () => undefined): Promise<RunningUi> {
  // docs/admin.md: the organisation policy is applied once, now; a failure is logged and shown in
  // the UI, never fatal.
  const { service, startup } = await startHost({
    home: options.home,
    appVersion: appVersion(),
    env: options.env ?? process.env,
    doctorAtStart: false,
    log,
  });
  let web: WebHost;
  try {
    web = await startWebHost({
      service,
      port: options.port,
      staticDir: options.staticDir ?? join(appRoot(), RENDERER_DIST),
      sessionFile: uiSessionFile(options.home),
      log,
    });
  } catch (error) {
    // Nothing is served: start-up's operations are cancelled and the service closed before failing.
    await service.close();
    throw error;
  }
  // docs/ui.md "Fast": the catalogues are read and checked, and Discover's search index built, while the
  // browser opens the page rather than after it asks (a 20,000-entry catalogue takes a second or more).
  void service.api.catalogue.index({ limit: 1 }).catch(() => undefined);
  return {
    url: web.signInUrl(),
    web,
    service,
    startup,
    async stop() {
      await web.close();
      await service.close();
    },
  };
}

/** The per-user data folder, as `adcap` chooses it (one rule: shared/paths.ts defaultHome, the SDK's platformDataDir). */
export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return desktopDefaultHome(env, platform);
}

/** Where `arcotheon ui` keeps its sessions (hashes only) and its last port: `<home>/ui/`, mode 0700. */
export const uiSessionFile = (home: string): string => join(home, 'ui', 'sessions.json');

/**
 * Writes the page the browser is opened on: `<home>/ui/signin-<port>.html` (mode 0600 in a 0700
 * folder), which sends the browser on to `signInUrl` (a meta refresh, and a link). The browser's
 * command line, which every local user can read, then names only this file.
 */
export async function writeSignInPage(home: string, port: number, signInUrl: string): Promise<string> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\/signin\?code=[A-Za-z0-9_-]+$/.test(signInUrl)) throw new Error('not a sign-in address');
  const file = join(home, 'ui', `signin-${port}.html`);
  await writePrivateFileAtomic(
    file,
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
      `<meta http-equiv="refresh" content="0;url=${signInUrl}"><title>Arcotheon</title></head>` +
      `<body><p><a href="${signInUrl}">Open Arcotheon</a></p></body></html>\n`,
  );
  return file;
}

/** Opens `url` in the user's browser; failures are reported, never fatal (the URL is printed). */
export function openBrowser(url: string, log: (message: string) => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => log(`Could not open a browser (${command}); open the address above yourself.`));
    child.unref();
  } catch {
    log(`Could not open a browser (${command}); open the address above yourself.`);
  }
}

/** Whether a browser window can be shown here (Linux and the BSDs need an X11 or Wayland display). */
export function hasDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

const USAGE = `Usage: arcotheon ui [--home DIR] [--port N] [--no-open]

Serves the Arcotheon manager UI and its API on 127.0.0.1 and opens it in your browser.
The first line printed is a sign-in address: it works once, for 5 minutes. Press Enter
for a new one (to sign in another browser, or after it expired).

  --home DIR   Arcotheon home (default: $ARCOTHEON_HOME, else the platform data folder)
  --port N     port to listen on (default: a free port)
  --no-open    do not open a browser
`;

interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIo: Io = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

export function parseUiArgs(argv: string[]): { home?: string; port: number; open: boolean } | string {
  let home: string | undefined;
  let port = 0;
  let open = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string | undefined => {
      const eq = arg.indexOf('=');
      if (eq >= 0) return arg.slice(eq + 1);
      i++;
      return argv[i];
    };
    if (arg === '--no-open') open = false;
    else if (arg === '--home' || arg.startsWith('--home=')) {
      home = value();
      if (home === undefined || home === '') return '--home needs a folder.';
    } else if (arg === '--port' || arg.startsWith('--port=')) {
      const text = value() ?? '';
      port = Number(text);
      if (!/^\d+$/.test(text) || port > 65535) return `--port needs a port number from 0 to 65535, not "${text.slice(0, 20)}".`;
    } else return `Unknown option "${arg.slice(0, 40)}".`;
  }
  return { ...(home === undefined ? {} : { home }), port, open };
}

/** `arcotheon <args>`: resolves with the exit code once the server stopped (or at once on a usage error). */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version') {
    io.stdout(`${appVersion()}\n`);
    return 0;
  }
  if (command !== 'ui') {
    io.stderr(`Unknown command "${command.slice(0, 40)}".\n\n${USAGE}`);
    return 2;
  }
  const parsed = parseUiArgs(rest);
  if (typeof parsed === 'string') {
    io.stderr(`${parsed}\n\n${USAGE}`);
    return 2;
  }
  const log = (message: string): void => io.stderr(`arcotheon: ${message}\n`);
  let ui: RunningUi;
  try {
    ui = await startUi({ home: resolve(parsed.home ?? defaultHome()), port: parsed.port, open: parsed.open }, log);
  } catch (error) {
    const reason = isAdcapError(error) ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);
    io.stderr(`arcotheon ui could not start: ${reason}\n`);
    return 1;
  }
  // The handlers are in place before the URL is printed: whoever reads it may send SIGINT at once, and
  // a signal that arrives before a listener exists ends the process by the signal, not with exit 0.
  const home = resolve(parsed.home ?? defaultHome());
  const page = join(home, 'ui', `signin-${ui.web.port}.html`);
  const stopReading = stdinCanAsk() ? printAddressOnEnter(ui.web, io) : null;
  const exited = waitForSignal(ui, io).finally(async () => {
    stopReading?.();
    await rm(page, { force: true });
  });
  io.stdout(`${ui.url}\n`);
  io.stderr(
    `Arcotheon is serving on 127.0.0.1:${ui.web.port} (home ${home}). The address above works once, for 5 minutes` +
      `${stopReading === null ? '' : '; press Enter for a new one'}. Press Ctrl-C to stop.\n`,
  );
  if (parsed.open) {
    // The browser gets its own one-time address, through a file only this user can read.
    try {
      openBrowser(pathToFileURL(await writeSignInPage(home, ui.web.port, ui.web.signInUrl())).href, log);
      io.stderr('Opened your browser on a sign-in page. If it shows an error, open the address above instead.\n');
    } catch (error) {
      log(`Could not write the sign-in page (${error instanceof Error ? error.message : String(error)}); open the address above.`);
    }
  }
  return exited;
}

/**
 * Whether stdin can ask for new addresses: a pipe or socket (a script, the tests), or a terminal
 * this process has in the foreground. A background job that reads its terminal is stopped by the
 * kernel (SIGTTIN), so `arcotheon ui &` must not read it; /dev/null and files have nothing to say.
 */
function stdinCanAsk(): boolean {
  let stats;
  try {
    stats = fstatSync(0);
  } catch {
    return false;
  }
  if (stats.isFIFO() || stats.isSocket()) return true;
  if (!process.stdin.isTTY) return false;
  try {
    // The terminal's foreground process group is ours (/proc/self/stat fields 5 and 8; ps elsewhere).
    if (existsSync('/proc/self/stat')) {
      const fields = readFileSync('/proc/self/stat', 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ');
      return fields[2] === fields[5];
    }
    const [pgid, tpgid] = execFileSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(process.pid)], { encoding: 'utf8', timeout: 2000 })
      .trim()
      .split(/\s+/);
    return pgid !== undefined && pgid === tpgid;
  } catch {
    return false;
  }
}

/** Each line on stdin (Enter in the terminal) prints a new one-time sign-in address on stdout. */
function printAddressOnEnter(web: WebHost, io: Io, input: Readable = process.stdin): () => void {
  const lines = createInterface({ input, terminal: false });
  const stop = (): void => {
    process.off('SIGTTIN', stop);
    lines.close();
    input.destroy();
  };
  lines.on('line', () => io.stdout(`${web.signInUrl()}\n`));
  // stdin closed (or /dev/null): nothing more to read, and nothing to keep the process alive for.
  lines.on('close', () => input.destroy());
  // Sent to the background later (Ctrl-Z, bg): stop reading rather than be stopped by the kernel.
  process.on('SIGTTIN', stop);
  return stop;
}

function waitForSignal(ui: RunningUi, io: Io): Promise<number> {
  return new Promise((resolveExit) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      io.stderr(`Stopping (${signal}).\n`);
      // A second signal while closing, or a close that hangs, still ends the process.
      const force = setTimeout(() => resolveExit(0), 5000);
      force.unref();
      void ui
        .stop()
        .catch(() => undefined)
        .then(() => {
          clearTimeout(force);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolveExit(0);
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
