#!/usr/bin/env node
// The `arcotheon` command (node_modules/.bin/arcotheon): runs the compiled app in out/electron/,
// bundled into one module (build/bundle-cli.mjs: half the start-up CPU of loading out/electron/cli.js
// and the SDK module by module). `npm install` builds it (prepare → npm run build); this launcher
// only finds it.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../../out/electron/arcotheon.mjs', import.meta.url));
if (!existsSync(compiled)) {
  console.error('Arcotheon is not built yet: run "npm run build" in the Arcotheon folder, then try again.');
  process.exit(1);
}
const { main } = await import(pathToFileURL(compiled).href);
process.exitCode = await main(process.argv.slice(2));
