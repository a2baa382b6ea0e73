/**
 * Where the desktop app finds its parts and its data. The home is the CLI's (DESIGN §6): the
 * window and `adcap` see the same installs. ARCOTHEON_HOME overrides it, as for the CLI.
 */
import os from 'node:os';
import path from 'node:path';
import { platformDataDir } from '@arcotheon/sdk';

export function defaultHome(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, homedir = os.homedir()): string {
  const fromEnv = env.ARCOTHEON_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
  return platformDataDir(platform, env, homedir);
}

interface AppLayout {
  /** The bundled entry points: main.mjs, utility.mjs, preload.cjs. */
  bundleDir: string;
  /** The built renderer served at app://arcotheon/. */
  rendererDir: string;
  /** The bundled example registry (ARCOTHEON_EMBEDDED_REGISTRY for the utility process). */
  registryDir: string;
}

/**
 * `appPath` is `app.getAppPath()` (the repository in development, app.asar when packaged);
 * `resourcesPath` is `process.resourcesPath` (packaged extraResources live there).
 */
export function appLayout(appPath: string, resourcesPath: string, isPackaged: boolean): AppLayout {
  return {
    bundleDir: path.join(appPath, 'out', 'electron'),
    rendererDir: path.join(appPath, 'renderer', 'dist'),
    registryDir: isPackaged ? path.join(resourcesPath, 'registry') : path.join(appPath, 'examples', 'registry'),
  };
}
