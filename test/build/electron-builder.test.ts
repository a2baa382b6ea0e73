// The installers' configuration: loaded as electron-builder loads it, checked
// against electron-builder's own schema, and the parts the issue names checked one by one.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config, { PACKAGE_MIME_TYPE } from '../../build/electron-builder.config.js';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const targets = (platform: { target?: unknown } | null | undefined): string[] =>
  ((platform?.target ?? []) as Array<string | { target: string }>).map((t) => (typeof t === 'string' ? t : t.target));

describe('electron-builder configuration', () => {
  it('passes electron-builder schema validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(c: unknown, l: unknown): Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(structuredClone(config), new DebugLogger(false))).resolves.toBeUndefined();
    // A broken configuration is refused by the same check (so the check above means something).
    await expect(
      validateConfiguration({ ...structuredClone(config), deb: { depends: 'bubblewrap', notAnOption: true } }, new DebugLogger(false)),
    ).rejects.toThrow();
  });

  it('builds AppImage and deb, dmg, and nsis', () => {
    expect(targets(config.linux)).toEqual(['AppImage', 'deb']);
    expect(targets(config.mac)).toEqual(['dmg']);
    expect(targets(config.win)).toEqual(['nsis']);
  });

  it('registers the arcotheon scheme and the .adcap file association everywhere', () => {
    expect(config.protocols).toEqual([{ name: 'Arcotheon install link', schemes: ['arcotheon'] }]);
    const associations = [config.fileAssociations].flat();
    expect(associations).toHaveLength(1);
    expect(associations[0]).toMatchObject({ ext: 'adcap', mimeType: PACKAGE_MIME_TYPE, role: 'Viewer' });
    // Linux desktop files learn both through MimeType=.
    expect(config.linux?.mimeTypes).toEqual(expect.arrayContaining([PACKAGE_MIME_TYPE, 'x-scheme-handler/arcotheon']));
  });

  it('names bubblewrap as a dependency of the deb, next to electron-builder defaults', () => {
    expect(config.deb?.depends).toContain('bubblewrap');
    expect(config.deb?.depends).toContain('libsecret-1-0');
  });

  it('ships the bundles, the renderer and the example registry; hardens the binary', () => {
    expect(config.files).toEqual(expect.arrayContaining(['out/electron/**', 'renderer/dist/**', 'package.json']));
    expect(config.extraResources).toEqual([{ from: 'examples/registry', to: 'registry', filter: ['**/*'] }]);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
    });
    expect(config.mac?.hardenedRuntime).toBe(true);
    expect(existsSync(`${root}${config.mac?.entitlements as string}`)).toBe(true);
  });

  it('matches package.json: main is the bundled main process, electron stays a dev dependency', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      main: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkg.main).toBe('out/electron/main.mjs');
    expect(pkg.devDependencies['electron']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies['electron']).toBeUndefined();
    expect(pkg.dependencies['@arcotheon/sdk']).toBeDefined();
    expect(pkg.scripts['dist']).toContain('electron-builder --config build/electron-builder.config.ts');
  });
});
