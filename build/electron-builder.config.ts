/**
 * Installers for the desktop app: AppImage and deb on Linux, dmg on macOS,
 * nsis on Windows; every one registers `.adcap` files and `arcotheon://` links with the system.
 * `npm run dist` builds the installers of the platform it runs on (an Electron binary must be
 * downloadable or cached there). Loaded by electron-builder (TypeScript configs are supported) and
 * by test/build/electron-builder.test.ts.
 */
import { existsSync } from 'node:fs';
import type { Configuration } from 'electron-builder';

/**
 * The Electron binary to package: ARCOTHEON_ELECTRON_DIST, else the one `npx install-electron`
 * put in node_modules/electron/dist (for this platform); without either, electron-builder
 * downloads the release zip itself.
 */
const electronDist =
  process.env.ARCOTHEON_ELECTRON_DIST ?? (existsSync('node_modules/electron/dist') ? 'node_modules/electron/dist' : undefined);

/** electron-builder's own deb dependencies (FpmTarget), plus what the SDK needs. */
const DEB_DEFAULT_DEPENDS = [
  'libgtk-3-0',
  'libnotify4',
  'libnss3',
  'libxss1',
  'libxtst6',
  'xdg-utils',
  'libatspi2.0-0',
  'libuuid1',
  'libsecret-1-0',
];

export const PACKAGE_MIME_TYPE = 'application/vnd.arcotheon.adcap';

const config: Configuration = {
  appId: 'dev.arcotheon.desktop',
  productName: 'Arcotheon',
  copyright: 'Copyright © Arcotheon contributors',
  directories: { output: 'out/dist', buildResources: 'build' },
  // The bundles (build/electron.mjs), the built renderer and package.json; production
  // dependencies (the SDK and what it needs) are added by electron-builder. Not the `arcotheon`
  // command's bundle (build/bundle-cli.mjs): the desktop app does not run it.
  files: ['out/electron/**', 'renderer/dist/**', 'package.json', '!**/*.map', '!out/electron/arcotheon.mjs'],
  // The bundled example registry, the utility's ARCOTHEON_EMBEDDED_REGISTRY when packaged.
  extraResources: [{ from: 'examples/registry', to: 'registry', filter: ['**/*'] }],
  asar: true,
  ...(electronDist === undefined ? {} : { electronDist }),
  protocols: [{ name: 'Arcotheon install link', schemes: ['arcotheon'] }],
  // Opening a package shows the install dialog; it never installs by itself (electron/main/opens.ts).
  fileAssociations: [
    { ext: 'adcap', name: 'Arcotheon package', description: 'Arcotheon capability package', mimeType: PACKAGE_MIME_TYPE, role: 'Viewer' },
  ],
  // Electron's fuses: no ELECTRON_RUN_AS_NODE, NODE_OPTIONS or --inspect on the shipped binary, the
  // app only from its integrity-checked asar. (The SDK runs node tools with a node from PATH.)
  electronFuses: {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
  },
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Development',
    executableName: 'arcotheon-desktop',
    synopsis: 'The capability manager for AI agents',
    mimeTypes: [PACKAGE_MIME_TYPE, 'x-scheme-handler/arcotheon'],
  },
  // Tools run under bubblewrap on Linux (DESIGN §5; SECURITY.md): the deb pulls it in. AppImage
  // users install it themselves (README).
  deb: { depends: [...DEB_DEFAULT_DEPENDS, 'bubblewrap'] },
  mac: {
    target: ['dmg'],
    category: 'public.app-category.developer-tools',
    hardenedRuntime: true,
    entitlements: 'build/entitlements.mac.plist',
    entitlementsInherit: 'build/entitlements.mac.plist',
  },
  dmg: { title: 'Arcotheon ${version}' },
  win: { target: ['nsis'] },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true, deleteAppDataOnUninstall: false },
};

export default config;
