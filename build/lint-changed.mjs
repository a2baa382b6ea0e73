#!/usr/bin/env node
// `npm run lint:changed`: the inner loop's lint. ESLint over the files that differ from the branch
// point with main (committed since, staged, changed or new), with the repository's whole
// eslint.config.js — the layer rules, the typed rules and the rest — but not over the other
// ~900 files, which `npm run lint` (and so `npm run check` and `npm test`) still covers. A typed
// rule can depend on a file that did not change (a union grew elsewhere): before pushing, run
// `npm run check`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .filter(Boolean);
const CODE = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/;

/** The branch point with main, or HEAD when there is no main (a detached clone). */
function base() {
  for (const ref of ['origin/main', 'main']) {
    try {
      return git('merge-base', 'HEAD', ref)[0];
    } catch {
      // try the next name
    }
  }
  return 'HEAD';
}

const changed = new Set([...git('diff', '--name-only', base()), ...git('ls-files', '--others', '--exclude-standard')]);
const files = [...changed].filter((f) => CODE.test(f) && existsSync(`${root}/${f}`)).sort();
if (files.length === 0) {
  console.log('lint:changed: no changed source files since the branch point with main.');
  process.exit(0);
}
console.log(`lint:changed: ${files.length} file${files.length === 1 ? '' : 's'}`);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
// --no-warn-ignored: a changed file that eslint.config.js ignores (generated code, fixtures) is not a warning.
const result = spawnSync(npx, ['eslint', '--max-warnings', '0', '--no-warn-ignored', ...files], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
