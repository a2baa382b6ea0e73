/**
 * Which Electron binary `npm start` and the Electron journeys use, found without ever
 * downloading one: `ARCOTHEON_ELECTRON_PATH` names a binary; else the binary that
 * `npx install-electron` put under node_modules/electron/dist (its path.txt names it). Requiring
 * the `electron` package from Node is exactly what must not happen: it would try to download.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const ELECTRON_PATH_ENV = 'ARCOTHEON_ELECTRON_PATH';

export type ElectronBinary = { path: string; source: string } | { path: null; reason: string };

const isFile = (file: string): boolean => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

export function findElectronBinary(env: Readonly<Record<string, string | undefined>>, repoRoot: string): ElectronBinary {
  const named = env[ELECTRON_PATH_ENV];
  if (named !== undefined && named !== '') {
    return isFile(named)
      ? { path: path.resolve(named), source: ELECTRON_PATH_ENV }
      : { path: null, reason: `${ELECTRON_PATH_ENV} names ${named}, which is not a file` };
  }
  const dir = path.join(repoRoot, 'node_modules', 'electron');
  if (!existsSync(path.join(dir, 'package.json'))) return { path: null, reason: 'the electron package is not installed' };
  let relative: string;
  try {
    relative = readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
  } catch {
    return { path: null, reason: 'the Electron binary was not downloaded ("npx install-electron" fetches it)' };
  }
  const binary = path.join(dir, 'dist', relative);
  return relative !== '' && isFile(binary)
    ? { path: binary, source: 'node_modules/electron' }
    : { path: null, reason: 'the Electron binary was not downloaded ("npx install-electron" fetches it)' };
}

type StartMode = 'electron' | 'browser' | 'url';

/** How `npm start` opens Arcotheon, and the one line it prints to say so. */
export function startChoice(binary: ElectronBinary, display: boolean): { mode: StartMode; line: string } {
  if (binary.path !== null && display) return { mode: 'electron', line: `Opening the Arcotheon window (Electron from ${binary.source}).` };
  if (binary.path === null && display)
    return { mode: 'browser', line: `No Electron window: ${binary.reason}; opening "arcotheon ui" in your browser instead.` };
  return {
    mode: 'url',
    line: 'No display found (DISPLAY / WAYLAND_DISPLAY unset): open the address below in a browser that can reach this machine.',
  };
}
