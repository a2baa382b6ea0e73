/**
 * The user's own publisher key (docs/skills.md): `adcap add` signs what it builds from a repository with
 * it. It is made on first use in the user's configuration folder (never in a repository or in the
 * Arcotheon home, which a workspace or a backup may expose), mode 0600, and is trusted only for the
 * packages `adcap add` itself builds (install request `added`), never for a registry's or a file's.
 */
import { posix, win32 } from 'node:path';
import { AdcapError, isAdcapError } from '../errors.js';
import { generateKey, publicKeyOf, readKeyFile, writeKeyFile, type KeyFile, type TrustedKey } from '../trust/keys.js';

export const OWN_KEY_FILE = 'own-publisher-key.json';

/**
 * The per-user configuration folder: Linux (and other Unix) `$XDG_CONFIG_HOME/arcotheon`, else
 * `~/.config/arcotheon` (XDG Base Directory spec); macOS `~/Library/Preferences/Arcotheon`; Windows
 * `%APPDATA%\Arcotheon\Config`.
 */
export function userConfigDir(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, homedir: string): string {
  if (platform === 'win32') {
    const appData = env.APPDATA;
    return win32.join(appData !== undefined && appData !== '' ? appData : win32.join(homedir, 'AppData', 'Roaming'), 'Arcotheon', 'Config');
  }
  if (platform === 'darwin') return posix.join(homedir, 'Library', 'Preferences', 'Arcotheon');
  const xdg = env.XDG_CONFIG_HOME;
  // XDG Base Directory spec: a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const base = xdg !== undefined && xdg !== '' && posix.isAbsolute(xdg) ? xdg : posix.join(homedir, '.config');
  return posix.join(base, 'arcotheon');
}

export interface OwnKey {
  key: KeyFile;
  trusted: TrustedKey;
  file: string;
  /** True when this call made the key. */
  created: boolean;
}

/** Reads the user's own key from `configDir`, making it (0600, never replacing a file) when there is none. */
export async function ownPublisherKey(configDir: string): Promise<OwnKey> {
  const file = (configDir.includes('\\') ? win32 : posix).join(configDir, OWN_KEY_FILE);
  const read = async (): Promise<KeyFile | null> =>
    readKeyFile(file).catch((error: unknown) => {
      if (isAdcapError(error) && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return null;
      throw new AdcapError(
        'E_USAGE',
        `Your own publisher key ${file} cannot be used (${(error as Error).message}); ` +
          'move it away and run the command again to make a new one.',
        { cause: error },
      );
    });
  const existing = await read();
  if (existing !== null) return { key: existing, trusted: publicKeyOf(existing), file, created: false };
  const key = generateKey();
  try {
    await writeKeyFile(file, key);
  } catch (error) {
    // Another process made it at the same moment: use theirs.
    const raced = await read();
    if (raced !== null) return { key: raced, trusted: publicKeyOf(raced), file, created: false };
    throw error;
  }
  return { key, trusted: publicKeyOf(key), file, created: true };
}
