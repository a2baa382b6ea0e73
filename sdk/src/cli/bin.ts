#!/usr/bin/env node
// The `adcap` bin (sdk/package.json "bin"). It checks the Node.js version before loading the CLI:
// ES module imports are all loaded before a module's first line runs, so the check cannot live in
// main.ts, whose imports (and their dependencies) may need a newer Node (issue 12 item 15).
import { enableCliCompileCache } from './compile-cache.js';
import { nodeVersionProblem } from './node-check.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else {
  enableCliCompileCache();
  // The CLI bundled into one module by the build (build/bundle-cli.mjs; types: adcap.d.mts): half the
  // start-up time of loading dist/cli/main.js and the modules it imports one by one.
  void import('./adcap.mjs').then((main) => main.runAsBin());
}
