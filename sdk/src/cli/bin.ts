#!/usr/bin/env node
// The `adcap` bin (sdk/package.json "bin"). It checks the Node.js version before loading the CLI:
// ES module imports are all loaded before a module's first line runs, so the check cannot live in
// main.ts, whose imports (and their dependencies) may need a newer Node.
import { enableCliCompileCache } from './compile-cache.js';
import { nodeVersionProblem } from './node-check.js';

const problem = nodeVersionProblem(process.versions.node);
const args = process.argv.slice(2);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `adcap --version` alone prints what the CLI's --version prints (sdkVersion: the version in
  // sdk/package.json) without loading the CLI: a script that checks it pays for node alone.
  // node:fs is imported here, not at the top: the ES module of a Node module reads every export,
  // and node:fs's getters load its streams and promises API (~10 ms that other commands need not pay).
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  enableCliCompileCache();
  // Once the event loop has nothing left to do (every write flushed, every file closed, every child
  // reaped), exit at once: Node's own teardown of the loaded CLI after that took longer than most
  // commands' work (measured 80-240 ms on a loaded machine, against 40-75 ms this way). 'exit'
  // listeners still run, and the exit code is process.exitCode as set by runAsBin.
  process.once('beforeExit', () => process.exit());
  // The CLI bundled into one module by the build (build/bundle-cli.mjs; types: adcap.d.mts): half the
  // start-up time of loading dist/cli/main.js and the modules it imports one by one.
  void import('./adcap.mjs').then((main) => main.runAsBin());
}
