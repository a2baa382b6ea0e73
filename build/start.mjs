#!/usr/bin/env node
// `npm start`: the manager UI on the bundled example registry, in a demo home (ARCOTHEON_HOME,
// else .tmp/demo-home in this repository, so your real Arcotheon home is never touched).
// It serves the UI on 127.0.0.1 and opens it in the browser; on a machine without a display it
// prints the address and keeps serving until Ctrl-C. `npm run tour` is the terminal tour.
//
// launch() is the one place that decides how the app opens: the Electron window when its binary
// exists (ARCOTHEON_ELECTRON_PATH, or "npx install-electron"), else the browser.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
// The `arcotheon` command's bundle (build/bundle-cli.mjs): the exports of out/electron/cli.js in one module.
const compiled = join(repo, 'out', 'electron', 'arcotheon.mjs');

/**
 * How `npm start` opens Arcotheon: the Electron window when a binary exists and there is a display,
 * else `arcotheon ui` in the browser (or only its URL without a display); one line says
 * which and why.
 */
export async function launch({ home, env = process.env }) {
  if (!existsSync(compiled)) {
    console.error('Arcotheon is not built yet; run "npm install" (or "npm run build") first.');
    return 1;
  }
  const { main, hasDisplay } = await import(pathToFileURL(compiled).href);
  const { findElectronBinary, startChoice } = await import(pathToFileURL(join(repo, 'out', 'electron', 'main', 'binary.js')).href);
  const choice = startChoice(findElectronBinary(env, repo), hasDisplay(env));
  console.error(choice.line);
  if (choice.mode === 'electron') return openWindow(findElectronBinary(env, repo).path, { ...env, ARCOTHEON_HOME: home });
  const args = ['ui', '--home', home];
  if (choice.mode === 'url') args.push('--no-open');
  return main(args);
}

/** Bundles the desktop entry points (build/electron.mjs) and runs the window until it closes. */
async function openWindow(binary, env) {
  const bundled = spawnSync(process.execPath, [join(repo, 'build', 'electron.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (bundled.status !== 0) return bundled.status ?? 1;
  const child = spawn(binary, [repo], { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

/**
 * The processes `npm start` runs us under: npm, and the shell npm starts us with (sh -c does not
 * exec the command, and npm passes a SIGTERM only to that shell). When either ends, Arcotheon ends
 * too, as a child of the command the user stopped, instead of serving on as an orphan. The pids
 * are read once at start; liveness is checked with signal 0 every second.
 */
export function stopWithParents({ pids = launchingPids(), intervalMs = 1000, stop = () => process.kill(process.pid, 'SIGTERM') } = {}) {
  const timer = setInterval(() => {
    if (pids.some((pid) => !alive(pid))) {
      clearInterval(timer);
      stop();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Our parent, and its parent while that is npm's own process (npm_execpath runs it); pid 1 never. */
function launchingPids() {
  const pids = [process.ppid];
  if (process.env.npm_execpath !== undefined && process.platform !== 'win32') {
    const listed = spawnSync('ps', ['-o', 'ppid=', '-p', String(process.ppid)], { encoding: 'utf8' });
    const grandparent = Number.parseInt(listed.stdout ?? '', 10);
    if (Number.isSafeInteger(grandparent) && grandparent > 1) pids.push(grandparent);
  }
  return pids.filter((pid) => pid > 1);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = process.env.ARCOTHEON_HOME || join(repo, '.tmp', 'demo-home');
  stopWithParents();
  process.exitCode = await launch({ home });
}
