import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdkDir = fileURLToPath(new URL('./sdk/', import.meta.url));

/**
 * Unit tests import `@arcotheon/sdk` (and every subpath export, e.g. `@arcotheon/sdk/internal`)
 * from source, so no unit test runs against a stale `sdk/dist`: each export of sdk/package.json
 * that points into dist/ maps to the matching file under src/; other exports (the JSON Schemas,
 * package.json) map to the file itself; a subpath not in the map yet maps to src/<subpath>.ts.
 * The e2e suite keeps the built package (node_modules/@arcotheon/sdk → sdk/dist).
 */
function sdkSourceAliases(): Array<{ find: RegExp; replacement: string }> {
  const pkg = JSON.parse(readFileSync(`${sdkDir}package.json`, 'utf8')) as { exports?: Record<string, string | Record<string, string>> };
  const aliases: Array<{ find: RegExp; replacement: string }> = [];
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    const file = typeof target === 'string' ? target : (target['default'] ?? target['import']);
    if (file === undefined) continue;
    const specifier = key === '.' ? '@arcotheon/sdk' : `@arcotheon/sdk/${key.slice(2)}`;
    const source = file.replace(/^\.\/dist\/(.+)\.js$/, './src/$1.ts');
    const pattern = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
    aliases.push({ find: pattern, replacement: `${sdkDir}${source.slice(2)}` });
  }
  aliases.push({ find: /^@arcotheon\/sdk\/(.+?)(?:\.js)?$/, replacement: `${sdkDir}src/$1.ts` });
  return aliases;
}

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        resolve: { alias: sdkSourceAliases() },
        test: {
          name: 'unit',
          // Test files run one after another in a few long-lived workers instead of a fresh worker
          // (and a fresh import of the SDK's source) each: 175 s → about 110 s for the unit suite on
          // two cores. Each file still gets its own TMPDIR (setup/worker.ts runs before every file);
          // helpers that cache per process check that what they cached still exists (helpers/tls.ts).
          isolate: false,
          // One worker more than the cores: a unit test file waits on child processes, servers and
          // the disk part of the time (two cores were 1.6 busy with two workers, 1.8 with three:
          // 112 s → 101 s).
          maxWorkers: availableParallelism() + 1,
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/setup/global.ts'],
          setupFiles: ['test/setup/worker.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          // After the unit tests when both projects run in one vitest (each group keeps its own
          // number of workers): two files at a time.
          sequence: { groupOrder: 1 },
          maxWorkers: Math.max(2, availableParallelism()),
          include: ['e2e/**/*.e2e.ts'],
          // The same temporary folders as the unit tests: one per file, removed after it, and the
          // run fails if anything is left.
          globalSetup: ['test/setup/global.ts'],
          setupFiles: ['test/setup/worker.ts'],
          // End-to-end specs drive real child processes and a real browser, each file with its own
          // homes, temp folders and ports (0: the system picks), so two files run side by side:
          // much of their time is spent waiting on those processes.
          fileParallelism: true,
        },
      },
    ],
  },
});
