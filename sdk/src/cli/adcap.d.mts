// The CLI bundled into one module by the build (build/bundle-cli.mjs writes dist/cli/adcap.mjs from
// dist/cli/main.js): the same exports as main.ts. The bin imports it.
export * from './main.js';
