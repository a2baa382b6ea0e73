#!/usr/bin/env node
// Bundles the Electron entry points into out/electron/:
//   main.mjs     the main process (ESM; node_modules stay external and load at run time)
//   utility.mjs  the utility process that runs the SDK and the host service (ESM; the SDK stays
//                external because it reads its JSON Schemas beside its own files)
//   preload.cjs  the sandboxed preload: one CommonJS file, since a sandboxed preload can require
//                only `electron` and a few built-ins, never a local module
// Run by `npm run build:desktop`, `npm start` (when an Electron binary exists) and `npm run dist`.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// tsconfig.electron.json, not tsconfig.json: the latter maps @arcotheon/sdk to its source for the typecheck,
// and the bundles must load the SDK as the external package it is.
const common = {
  absWorkingDir: root,
  tsconfig: 'tsconfig.electron.json',
  bundle: true,
  target: 'node22',
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
};

await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: 'out/electron/main.mjs',
    platform: 'node',
    format: 'esm',
    packages: 'external',
  }),
  build({
    ...common,
    entryPoints: ['electron/utility.ts'],
    outfile: 'out/electron/utility.mjs',
    platform: 'node',
    format: 'esm',
    packages: 'external',
  }),
  // The preload runs in Chromium's sandbox: everything bundled, `electron` provided by the runtime.
  build({
    ...common,
    entryPoints: ['electron/preload.ts'],
    outfile: 'out/electron/preload.cjs',
    platform: 'node',
    format: 'cjs',
    external: ['electron'],
    target: 'chrome140',
  }),
]);
console.log('bundled out/electron/main.mjs, utility.mjs, preload.cjs');
