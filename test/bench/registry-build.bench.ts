/**
 * `npm run bench -- registry-build`: `adcap registry build` after one publish, incremental
 * (docs/deploy.md "Incremental builds") beside a full rebuild of the same tree and an anchor, on the
 * synthetic registries of registry-synthetic.ts written to disk as source trees (registry.json,
 * publishers/, entries/) at 20,000, 100,000 and 500,000 capabilities. Each step runs in a process
 * of its own (registry-build-child.ts), so its time and peak memory are its own:
 *   - the first build of a tree, which writes every file (only when the tree has no build yet);
 *   - a full rebuild (`full: true`): every bin, node and pack recomputed from every source file;
 *   - three times: one new version written as `registry publish` writes it, then an incremental
 *     build, which must recompute one bin and write one bin, one node, one pack, one document;
 *   - the anchor: a plain script that lists the source tree and reads and parses every file.
 * Each is reported as min/median/max with the load average (the machine is shared).
 * ARCOTHEON_BUILD_SIZES=20000,100000 picks sizes; the trees are kept in
 * $TMPDIR/arcotheon-registry-build-bench (ARCOTHEON_BUILD_BENCH_DIR) between runs, since writing a
 * 500,000-capability tree takes minutes and is not what is measured.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerBench } from './registry.js';
import { BUILD_STATE_FILE } from '../../sdk/src/registry/builder/build-state.js';

const child = join(import.meta.dirname, 'registry-build-child.ts');
const repo = join(import.meta.dirname, '..', '..');
const sizes = (process.env['ARCOTHEON_BUILD_SIZES'] ?? '20000,100000,500000').split(',').map(Number);
const base = process.env['ARCOTHEON_BUILD_BENCH_DIR'] ?? join(tmpdir(), 'arcotheon-registry-build-bench');

interface StepResult {
  ms: number;
  maxRssMiB: number;
  incremental?: boolean;
  written?: Record<string, number>;
  load: number;
}

function run(args: string[]): StepResult & Record<string, unknown> {
  const result = spawnSync(process.execPath, ['--max-old-space-size=12288', '--import', 'tsx', child, ...args], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`registry-build child ${args[0]} failed (${result.status}): ${result.stderr}`);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  return { ...(JSON.parse(line) as StepResult), load: loadavg()[0] ?? 0 };
}

function stats(values: readonly number[]): { min: number; median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0] ?? 0, median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted[sorted.length - 1] ?? 0 };
}

function line(label: string, steps: readonly StepResult[]): string {
  const s = stats(steps.map((step) => step.ms / 1000));
  const rss = Math.max(...steps.map((step) => step.maxRssMiB));
  const load = steps.map((step) => step.load.toFixed(1)).join('/');
  const times = `min ${s.min.toFixed(1)} s, median ${s.median.toFixed(1)} s, max ${s.max.toFixed(1)} s (n=${steps.length})`;
  return `${label}: ${times}; peak RSS ${rss.toFixed(0)} MiB; load ${load}`;
}

registerBench({
  name: 'registry-build: incremental build after one publish',
  async run(report) {
    for (const count of sizes) {
      const dir = join(base, `r${count}`);
      if (!existsSync(join(dir, 'registry.json'))) run(['gen', String(count), dir]);
      if (!existsSync(join(dir, BUILD_STATE_FILE))) {
        const first = run(['build', dir, 'full']);
        console.log(`  ${count}: ${line('first build (writes every file)', [first])}`);
      }
      const full: StepResult[] = [];
      for (let i = 0; i < (count <= 20_000 ? 3 : 1); i++) full.push(run(['build', dir, 'full']));
      console.log(`  ${count}: ${line('full rebuild (every bin recomputed)', full)}`);
      const incremental: StepResult[] = [];
      for (let i = 0; i < 3; i++) {
        run(['publish', dir, String(Date.now() % 100_000)]);
        const step = run(['build', dir]);
        if (step.incremental !== true) throw new Error(`the build after one publish at ${count} was not incremental`);
        const written = step.written ?? {};
        if (written['bins'] !== 1 || written['nodes'] !== 1 || written['search'] !== 1 || written['docs'] !== 1)
          throw new Error(`the build after one publish at ${count} wrote ${JSON.stringify(written)}`);
        incremental.push(step);
      }
      console.log(`  ${count}: ${line('incremental build after one publish', incremental)}`);
      const anchor: StepResult[] = [];
      for (let i = 0; i < (count <= 100_000 ? 3 : 1); i++) anchor.push(run(['read', dir]));
      console.log(`  ${count}: ${line('anchor: read and parse every source file', anchor)}`);
      const median = (steps: readonly StepResult[]): number => stats(steps.map((step) => step.ms / 1000)).median;
      report({
        label: `${count} capabilities: incremental build after one publish`,
        value: median(incremental),
        unit: 's',
        baseline: { label: 'full rebuild', value: median(full) },
      });
      report({
        label: `${count} capabilities: incremental build after one publish`,
        value: median(incremental),
        unit: 's',
        baseline: { label: 'reading the source tree', value: median(anchor) },
      });
    }
  },
});
