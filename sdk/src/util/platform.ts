import { posix, win32 } from 'node:path';

/**
 * The platform string of this process in the `os-arch` form of spec §11 (`linux-x64`): the key of
 * `compat.platforms`, `tool.platforms` and `runtime.entries`. The one copy in the SDK.
 */
export function hostPlatform(): string {
  return `${process.platform}-${process.arch}`;
}

/**
 * The per-user data directory (DESIGN §6): Linux (and other Unix) `$XDG_DATA_HOME/arcotheon`, else
 * `~/.local/share/arcotheon`; macOS `~/Library/Application Support/Arcotheon`; Windows
 * `%APPDATA%\Arcotheon`. The CLI, the desktop app and `arcotheon ui` all use this one.
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
