// build/bundle-cli.mjs: the lazyPackages plugin (a CommonJS package is evaluated on its first use,
// not when the bundle loads; every way the SDK uses one still works), then the built `adcap` bin
// itself doing what needs each package it loads that way. Real esbuild builds, real child processes.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAZY_PACKAGES, lazyPackages } from '../../build/bundle-cli.mjs';
import { assertBuilt } from '../helpers/built.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/lazy-packages/', import.meta.url));
const BIN = fileURLToPath(new URL('../../sdk/dist/cli/bin.js', import.meta.url));
const run = promisify(execFile);
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-bundle-cli-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Bundles a fixture entry as the adcap bundle is bundled (ES module for node, the same banner). */
async function bundleFixture(entry: string): Promise<string> {
  const outfile = join(work, `${entry}.bundle.mjs`);
  await build({
    entryPoints: [join(FIXTURES, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
    plugins: [lazyPackages(['counted-lib', 'counted-fn'])],
  });
  return outfile;
}

describe('the lazyPackages plugin', () => {
  it('loads a package at its first use; named functions, classes, the default object and a callable default all work', async () => {
    const { stdout } = await run(process.execPath, [await bundleFixture('entry.mjs')]);
    // Not loaded at import; both loaded by the end (one evaluation each); every use as without the plugin.
    expect(JSON.parse(stdout)).toEqual([0, 42, 1, 2, true, '1.2.3', true, true, 'hi you', 'X', 2]);
  });

  it('refuses to build a named import of a value that is not a function (it would be read before loading)', async () => {
    await expect(bundleFixture('named-value.mjs')).rejects.toThrow(/No matching export.*version/s);
  });

  it('covers the packages only some adcap commands use', () => {
    expect([...LAZY_PACKAGES].sort()).toEqual(['ajv-formats', 'ajv/dist/2020.js', 'cli-progress', 'ignore', 'semver', 'yaml', 'yauzl']);
  });
});

describe('the built adcap bin, with its packages loaded on first use', () => {
  it('builds (ignore), installs (semver), checks a tool input (ajv), adds skills (yaml) and reads a zip (yauzl)', async () => {
    await assertBuilt('sdk');
    const home = join(work, 'home');
    const adcap = (...args: string[]) => run(process.execPath, [BIN, '--home', home, ...args]).then((r) => r.stdout);
    const failing = (...args: string[]) =>
      run(process.execPath, [BIN, '--home', home, ...args]).then(
        () => 'succeeded',
        (error: { stderr: string }) => error.stderr,
      );
    const src = join(work, 'src');
    await mkdir(join(src, 'tools'), { recursive: true });
    await writeFile(join(src, 'tools', 'echo.mjs'), "process.stdout.write('unused\\n');\n");
    await writeFile(join(src, 'notes.tmp'), 'left out by .adcapignore\n');
    await writeFile(join(src, '.adcapignore'), '*.tmp\n');
    await writeFile(
      join(src, 'capability.json'),
      JSON.stringify({
        adcap: '1.0',
        id: 'local/lazy-check',
        version: '1.0.0',
        name: 'Lazy check',
        summary: 'A tool whose input schema the CLI checks.',
        compat: { agents: { arcotheon: '*' } },
        permissions: [],
        tools: [
          {
            name: 'echo',
            description: 'Echoes.',
            runtime: { type: 'node', entry: 'tools/echo.mjs' },
            inputSchema: { type: 'object', properties: { text: { type: 'string', format: 'email' } }, required: ['text'] },
          },
        ],
      }),
    );
    const pkg = join(work, 'lazy.adcap');
    await adcap('build', src, '-o', pkg);
    const entries = await adcap('inspect', pkg);
    expect(entries).toContain('tools/echo.mjs');
    expect(entries).not.toContain('notes.tmp');
    expect(await adcap('install', pkg, '--yes', '--allow-unsigned')).toContain('installed local/lazy-check@1.0.0');
    // The input is checked (a publisher schema compiled by Ajv, with ajv-formats) before anything runs.
    expect(await failing('run', 'local/lazy-check', 'echo', '--input', '{"text":"not an address"}')).toMatch(/E_INPUT.*format/s);
    const skills = join(work, 'skills-folder', 'skills', 'pdf');
    await mkdir(skills, { recursive: true });
    await writeFile(join(skills, 'SKILL.md'), '---\nname: pdf\ndescription: Works with PDF files. Use when a PDF is given.\n---\n# PDF\n');
    expect(await adcap('add', join(work, 'skills-folder'), '--yes')).toContain('1 skill');
    await writeFile(join(work, 'not-a-zip.mcpb'), 'this is no zip archive\n');
    expect(await failing('import', join(work, 'not-a-zip.mcpb'), '-o', join(work, 'never.adcap'))).toMatch(
      /not a readable zip archive \(End of central directory/,
    );
  }, 120_000);
});
