// The adcap bin keeps Node's compile cache in a per-user folder (sdk/src/cli/compile-cache.ts),
// never in the shared temporary folder where another user could plant code.
import { describe, expect, it } from 'vitest';
import { compileCacheDir } from '../../../sdk/src/cli/compile-cache.js';

describe('compileCacheDir', () => {
  it('uses XDG_CACHE_HOME on Linux when it is absolute, else ~/.cache', () => {
    expect(compileCacheDir('linux', { XDG_CACHE_HOME: '/var/cache/u' }, '/home/u')).toBe('/var/cache/u/arcotheon/node-compile-cache');
    expect(compileCacheDir('linux', {}, '/home/u')).toBe('/home/u/.cache/arcotheon/node-compile-cache');
    expect(compileCacheDir('linux', { XDG_CACHE_HOME: 'relative/cache' }, '/home/u')).toBe('/home/u/.cache/arcotheon/node-compile-cache');
    expect(compileCacheDir('freebsd', { XDG_CACHE_HOME: '' }, '/home/u')).toBe('/home/u/.cache/arcotheon/node-compile-cache');
  });

  it('uses ~/Library/Caches on macOS and LOCALAPPDATA on Windows', () => {
    expect(compileCacheDir('darwin', { XDG_CACHE_HOME: '/x' }, '/Users/u')).toBe('/Users/u/Library/Caches/Arcotheon/node-compile-cache');
    const windows = compileCacheDir('win32', { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u');
    expect(windows.replaceAll('\\', '/')).toBe('C:/Users/u/AppData/Local/Arcotheon/node-compile-cache');
  });

  it('never points into the temporary folder', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(compileCacheDir(platform, {}, '/home/u')).not.toMatch(/tmp|temp/i);
    }
  });
});
