/**
 * The built `adcap` bin turns on Node's compile cache before it loads the CLI bundle
 * (sdk/src/cli/compile-cache.ts): the cache appears in the per-user cache folder, a second start
 * reads it, and NODE_DISABLE_COMPILE_CACHE=1 turns it off. `adcap --version` alone does not load
 * the CLI at all (sdk/src/cli/bin.ts) and prints what the CLI's own --version prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', 'sdk', 'dist', 'cli', 'bin.js');
const root = mkdtempSync(join(tmpdir(), 'adcap-compile-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function adcap(args: string[], cacheHome: string, extra: NodeJS.ProcessEnv = {}): { stdout: string; stderr: string } {
  // The test runner shares one NODE_COMPILE_CACHE with every child (test/setup/global.ts), which
  // would win over the bin's own folder; a user's shell normally has none.
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome, HOME: join(root, 'home'), ...extra };
  delete env['NODE_COMPILE_CACHE'];
  const run = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return { stdout: run.stdout, stderr: run.stderr };
}

describe('adcap and the compile cache', () => {
  it('writes the cache under XDG_CACHE_HOME/arcotheon and reads it on the next start', () => {
    const cacheHome = join(root, 'cache');
    const first = adcap(['--help'], cacheHome);
    expect(first.stdout).toMatch(/^Usage: adcap/);
    const dir = join(cacheHome, 'arcotheon', 'node-compile-cache');
    const [tagged] = readdirSync(dir);
    expect(tagged).toMatch(/^v\d+\.\d+\.\d+-/);
    expect(readdirSync(join(dir, tagged!)).length).toBeGreaterThan(0);
    const second = adcap(['--help'], cacheHome, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toMatch(/cache for file:.*adcap\.mjs was accepted/);
  });

  it('writes nothing when NODE_DISABLE_COMPILE_CACHE=1', () => {
    const cacheHome = join(root, 'disabled');
    adcap(['--help'], cacheHome, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(() => readdirSync(join(cacheHome, 'arcotheon'))).toThrow(/ENOENT/);
  });

  it('adcap --version alone prints the version of the CLI without loading it', () => {
    const cacheHome = join(root, 'version');
    const fast = adcap(['--version'], cacheHome, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(fast.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(fast.stderr).not.toMatch(/adcap\.mjs/);
    // With another argument the CLI itself answers (commander's --version): the same line.
    expect(adcap(['-V', '--json'], cacheHome).stdout).toBe(fast.stdout);
    expect(adcap(['-V'], cacheHome).stdout).toBe(fast.stdout);
  });
});
