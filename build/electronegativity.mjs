#!/usr/bin/env node
// Runs @doyensec/electronegativity over electron/, as part of `npm test`.
// Every finding must be fixed, or justified in a comment beside the code with the inline
// `eng-disable CHECK_ID` marker electronegativity reads. Exit 1 on any finding or parse error.
//
// Offline: electronegativity fetches updated translations over the network at start-up (with a
// 1 s timeout). The registry is the only network here, so its `got` is replaced by a function
// that fails at once and it uses the English strings it ships.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const engRequire = createRequire(require.resolve('@doyensec/electronegativity/package.json'));
const gotPath = engRequire.resolve('got');
require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: () => Promise.reject(new Error('offline')) };
const run = require('@doyensec/electronegativity');

// Its i18n prints one line when the download fails; keep the output to the findings.
const log = console.log;
console.log = (...args) => {
  if (args[0] !== 'Could not retrieve updated translations for the current locale') log(...args);
};
// The folder to scan: electron/ (default), or another one (the wrapper's own test).
const input = path.resolve(process.argv[2] ?? path.join(root, 'electron'));
const result = await run({
  input,
  isRelative: true,
  severitySet: 'informational',
  confidenceSet: 'tentative',
  electronVersionOverride: require('electron/package.json').version,
  // Needs the network (the list of Electron releases); the Electron version is pinned in
  // package.json and moves with the lockfile.
  excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
});
console.log = log;

const failures = result.errors.filter((e) => !e.tolerable);
for (const e of failures) console.error(`electronegativity could not parse ${path.relative(root, e.file)}: ${e.message}`);
for (const issue of result.issues) {
  const where = `${path.relative(root, path.join(input, issue.file))}:${issue.location.line}:${issue.location.column}`;
  console.error(`${issue.id} (${issue.severity.name}, ${issue.confidence.name}) ${where}\n  ${issue.description}`);
}
console.log(
  `electronegativity: ${result.atomicChecks + result.globalChecks} ` +
    `checks over ${path.relative(root, input) || '.'}, ` +
    `${result.issues.length} finding(s), ${failures.length} parse error(s)`,
);
process.exit(result.issues.length > 0 || failures.length > 0 ? 1 : 0);
