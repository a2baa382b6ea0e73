#!/usr/bin/env node
// `npm run tour`: a narrated terminal tour of the main job on the bundled example registry,
// through the real `adcap` command: search, show, install (with the permission plan), run a
// sandboxed tool, run a workflow to its agent step, list, doctor. Each command is printed
// before it runs, so the tour doubles as a CLI tutorial. It works offline.
//
// The tour uses its own home (ARCOTHEON_HOME, else .tmp/demo-home in this repository), so it never
// changes your real Arcotheon home. Extra arguments are passed to adcap instead of the tour:
//   npm run tour -- search csv
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'sdk', 'dist', 'cli', 'bin.js'); // the package's bin: checks the Node version first
if (!existsSync(cli)) {
  console.error('The SDK is not built yet; run "npm install" first.');
  process.exit(1);
}
const home = process.env.ARCOTHEON_HOME || join(repo, '.tmp', 'demo-home');
const env = { ...process.env, ARCOTHEON_HOME: home };

function adcap(args, { allowFailure = false } = {}) {
  console.log(`\n$ adcap ${args.map((a) => (/[\s"{}]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit', env });
  if (result.status !== 0 && !allowFailure) process.exit(result.status ?? 1);
  return result.status;
}

const passThrough = process.argv.slice(2);
if (passThrough.length > 0) process.exit(adcap(passThrough, { allowFailure: true }) ?? 1);

console.log(`Arcotheon tour, on the bundled example registry (home: ${home})`);
const workspace = join(repo, '.tmp', 'demo-workspace');
mkdirSync(workspace, { recursive: true });
writeFileSync(join(workspace, 'notes.md'), '# Launch plan\nTODO: write the announcement\nFIXME: the pricing table is out of date\n');
writeFileSync(
  join(workspace, 'sales.csv'),
  'region,month,units,revenue\nnorth,jan,12,1200\nsouth,jan,,800\nnorth,feb,15,1500\nsouth,feb,9,950\n',
);

adcap(['search']);
adcap(['show', 'arcotheon/workspace-stats']);
// The plan (versions, each new permission in plain language with its reason, the download) is
// printed; on a terminal the tour asks you, as adcap does; elsewhere --yes approves what it printed.
adcap(['install', 'arcotheon/workspace-stats', 'acme/data-report', ...(process.stdin.isTTY ? [] : ['--yes'])]);
adcap(['grants', 'arcotheon/workspace-stats']);
adcap(['run', 'arcotheon/workspace-stats', 'find_todos', '--input', '{"path":"."}', '--workspace', workspace]);
adcap(['workflow', 'acme/data-report', 'csv-report', '--inputs', '{"path":"sales.csv"}', '--workspace', workspace]);
adcap(['list']);
adcap(['doctor']);
console.log('\nNext: "npm run tour -- --help", the README (to put adcap on your PATH), and sdk/README.md for hosts.');
