#!/usr/bin/env node
// `npm run pack:sdk [-- --pack-destination DIR]`: the @arcotheon/sdk tarball a user installs with
// `npm install -g ./arcotheon-sdk-<version>.tgz` (README "The commands on your PATH"), or that is
// published with `npm publish <tarball>`. Besides the package's own files it carries the built
// example registry as registry/ (its v1/ folder and the embedded-remote.json pin), which the
// installed SDK and its `adcap` use as their built-in remote (sdk/src/registry/embedded.ts).
// Only public files are copied: the catalogue, package documents, archives and mirrored blobs, all
// signed; the signing keys stay in examples/.keys/.
//
// The package is packed from a staged copy, so the checkout never holds a registry/ folder in sdk/
// (tests and commands reading sdk/ meanwhile see it as it is), and the packed package.json has no
// lifecycle script pointing into this repository: nothing runs when the tarball is installed.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const sdk = join(root, 'sdk');
const registry = join(root, 'examples', 'registry');

const args = process.argv.slice(2);
const at = args.indexOf('--pack-destination');
const destination = resolve(at >= 0 && args[at + 1] !== undefined ? args[at + 1] : process.cwd());

if (!existsSync(join(sdk, 'dist', 'cli', 'adcap.mjs'))) {
  console.error('pack-sdk: the SDK is not built; run "npm install" (or "npm run build") first.');
  process.exit(1);
}
if (!existsSync(join(registry, 'embedded-remote.json')) || !existsSync(join(registry, 'v1', 'catalog.json'))) {
  console.error(`pack-sdk: ${registry} holds no built registry; run "npm run examples" first.`);
  process.exit(1);
}

const stage = mkdtempSync(join(tmpdir(), 'arcotheon-pack-sdk-'));
let status;
try {
  const { files } = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
  cpSync(join(sdk, 'package.json'), join(stage, 'package.json'));
  for (const entry of files) {
    if (entry !== 'registry' && existsSync(join(sdk, entry))) cpSync(join(sdk, entry), join(stage, entry), { recursive: true });
  }
  cpSync(join(registry, 'v1'), join(stage, 'registry', 'v1'), { recursive: true });
  cpSync(join(registry, 'embedded-remote.json'), join(stage, 'registry', 'embedded-remote.json'));
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', destination], { cwd: stage, stdio: 'inherit' });
  status = packed.status ?? 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
process.exit(status ?? 1);
