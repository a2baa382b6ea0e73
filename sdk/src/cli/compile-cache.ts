/**
 * Node's compile cache for the `adcap` bin: V8 keeps the compiled code of the CLI bundle
 * on disk, so a start does not compile its 2.8 MB again (measured: ~115 ms of a `--version`).
 *
 * The cache lives in a per-user folder, never in the shared temporary folder (Node's default): a
 * code cache is executable code, and another user of the machine must not be able to plant one.
 * NODE_COMPILE_CACHE still wins (Node enables it before this runs) and NODE_DISABLE_COMPILE_CACHE=1
 * turns it off. Imports only Node built-ins, like node-check.ts: it runs before the CLI is loaded.
 */
// A namespace import: a named import of enableCompileCache would fail to link on a Node without it,
// before the bin's version check could say so.
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The per-user cache folder: Linux `$XDG_CACHE_HOME` or `~/.cache`, macOS `~/Library/Caches`, Windows `%LOCALAPPDATA%`. */
export function compileCacheDir(
  platform: NodeJS.Platform = process.platform,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA;
    return join(local !== undefined && local !== '' ? local : join(home, 'AppData', 'Local'), 'Arcotheon', 'node-compile-cache');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'Arcotheon', 'node-compile-cache');
  const xdg = env.XDG_CACHE_HOME;
  // XDG Base Directory spec: a relative XDG_CACHE_HOME is invalid and must be ignored.
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(home, '.cache');
  return join(base, 'arcotheon', 'node-compile-cache');
}

/** Turns the cache on for the modules loaded after this call; a failure only means no cache. */
export function enableCliCompileCache(): void {
  if (typeof nodeModule.enableCompileCache !== 'function') return;
  try {
    nodeModule.enableCompileCache(compileCacheDir());
  } catch {
    // No home folder, a read-only one: the CLI runs as without the cache.
  }
}
