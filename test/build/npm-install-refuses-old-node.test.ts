// `npm install` on a Node.js older than package.json "engines" stops before it downloads anything
// (.npmrc engine-strict): without it npm fetched every dependency (~470 MB), printed a warning per
// package and only then reached the root preinstall script (build/check-node.cjs).
//
// The test copies the files npm reads to plan the install into an empty folder and raises the
// required version above the Node.js running the test, which stands for a machine whose Node.js
// is too old (the machine's own Node.js version cannot be chosen here). `--offline` makes any
// download fail with ENOTCACHED, so seeing EBADENGINE instead proves nothing was fetched first.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/ui-process.js';

describe('npm install in this repository', () => {
  it('refuses an unsupported Node.js before anything is downloaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'npm-engine-'));
    for (const file of [
      '.npmrc',
      'package-lock.json',
      join('build', 'check-node.cjs'),
      join('sdk', 'package.json'),
      join('electron', 'package.json'),
    ]) {
      await mkdir(join(dir, file, '..'), { recursive: true });
      await copyFile(join(REPO, file), join(dir, file));
    }
    const manifest = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe('>=22.12');
    const major = Number(process.versions.node.split('.')[0]);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ ...manifest, engines: { node: `>=${major + 1}` } }, null, 2));
    const run = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      // A user's shell: none of the npm_config_* settings the test runner's own npm passes down
      // (npm run --silent would silence the refusal; an engine-strict one would override .npmrc).
      env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key))),
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).not.toBe(0);
    expect(output).toContain('EBADENGINE');
    expect(output).not.toContain('ENOTCACHED');
    expect(output).toContain(`Required: {"node":">=${major + 1}"}`);
    // Nothing was unpacked.
    expect(await readdir(dir)).not.toContain('node_modules');
  }, 150_000);
});
