#!/usr/bin/env node
// `npm start`: the manager UI on the bundled example registry, in a demo home (ARCOTHEON_HOME,
// else .tmp/demo-home in this repository, so your real Arcotheon home is never touched).
// It serves the UI on 127.0.0.1 and opens it in the browser; on a machine without a display it
// prints the address and keeps serving until Ctrl-C. `npm run tour` is the terminal tour.
//
// launch() is the one place that decides how the app opens (a later Electron window goes here,
// preferred when its binary exists).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(repo, 'out', 'electron', 'cli.js');

/** How `npm start` opens Arcotheon: today, `arcotheon ui` in the browser (or only the URL without a display). */
export async function launch({ home, env = process.env }) {
  if (!existsSync(compiled)) {
    console.error('Arcotheon is not built yet; run "npm install" (or "npm run build") first.');
    return 1;
  }
  const { main, hasDisplay } = await import(pathToFileURL(compiled).href);
  const args = ['ui', '--home', home];
  if (!hasDisplay(env)) {
    console.error('No display found (DISPLAY / WAYLAND_DISPLAY unset): open the address below in a browser that can reach this machine.');
    args.push('--no-open');
  }
  return main(args);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = process.env.ARCOTHEON_HOME || join(repo, '.tmp', 'demo-home');
  process.exitCode = await launch({ home });
}
