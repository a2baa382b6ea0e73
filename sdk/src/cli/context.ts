import { posix, resolve, win32 } from 'node:path';
import type { CliIO, Output } from './output.js';

/**
 * What a command module gets besides commander's `program`: output helpers, the I/O it must use
 * instead of `process` (so tests can run commands in-process), and the resolved home directory.
 */
export interface CliContext {
  readonly io: CliIO;
  readonly output: Output;
  /** The home directory (DESIGN §6): `--home`, else ARCOTHEON_HOME, else the platform data dir. */
  home(): string;
  /** A path from the command line, resolved against the CLI's working directory. */
  resolvePath(path: string): string;
  /** Sets the exit code for a command that finishes without throwing (e.g. `doctor` with problems left). */
  setExitCode(code: number): void;
}

export function resolveHome(homeFlag: string | undefined, io: Pick<CliIO, 'env' | 'cwd' | 'platform' | 'homedir'>): string {
  if (homeFlag !== undefined && homeFlag !== '') return resolve(io.cwd, homeFlag);
  const fromEnv = io.env.ARCOTHEON_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(io.cwd, fromEnv);
  return platformDataDir(io.platform, io.env, io.homedir);
}

/**
 * The per-user data directory: Linux (and other Unix) `$XDG_DATA_HOME/arcotheon`, else
 * `~/.local/share/arcotheon`; macOS `~/Library/Application Support/Arcotheon`; Windows
 * `%APPDATA%\Arcotheon`.
 */
export function platformDataDir(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, homedir: string): string {
  if (platform === 'win32') {
    const appData = env.APPDATA;
    return win32.join(appData !== undefined && appData !== '' ? appData : win32.join(homedir, 'AppData', 'Roaming'), 'Arcotheon');
  }
  if (platform === 'darwin') return posix.join(homedir, 'Library', 'Application Support', 'Arcotheon');
  const xdg = env.XDG_DATA_HOME;
  // XDG Base Directory spec: a relative XDG_DATA_HOME is invalid and must be ignored.
  const base = xdg !== undefined && xdg !== '' && posix.isAbsolute(xdg) ? xdg : posix.join(homedir, '.local', 'share');
  return posix.join(base, 'arcotheon');
}
