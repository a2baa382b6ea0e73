/**
 * `npm run bench`: imports every test/bench/*.bench.ts, runs the benchmarks they register, prints
 * each result with its ratio and target, and exits non-zero if a target was missed.
 * `npm run bench -- <filter>` runs only the benchmarks whose name contains <filter>.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatResult, registeredBenches, type BenchResult } from './registry.js';

const here = dirname(fileURLToPath(import.meta.url));
for (const file of (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort()) {
  await import(pathToFileURL(join(here, file)).href);
}

const filter = process.argv[2];
const results: BenchResult[] = [];
for (const bench of registeredBenches()) {
  if (filter !== undefined && !bench.name.includes(filter)) continue;
  console.log(`\n== ${bench.name}`);
  await bench.run((result) => {
    results.push(result);
    console.log(`  ${formatResult(result)}`);
  });
}

const missed = results.filter(
  (r) => r.target !== undefined && (r.baseline === undefined ? r.value : r.value / r.baseline.value) > r.target,
);
console.log(`\n${results.length} results, ${missed.length} missed target${missed.length === 1 ? '' : 's'}.`);
for (const r of missed) console.log(`  MISSED: ${formatResult(r)}`);
process.exitCode = missed.length > 0 ? 1 : 0;
