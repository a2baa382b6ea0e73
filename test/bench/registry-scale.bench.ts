/**
 * `npm run bench -- registry-scale`: synthetic registries of 20,000, 100,000 and
 * 500,000 capabilities (metadata only: every version points at one small blob), each built in a
 * child process of its own (registry-scale-child.ts), reporting:
 *   - catalogue bytes (raw and gzip) and build time (fold documents, catalogue payload, sign);
 *   - a client's verify-and-load time and peak memory (a second child; RSS over a child that only
 *     loads the same modules);
 *   - search latency (median and worst of several queries over the whole catalogue);
 *   - the bytes a client downloads to refresh after one new version is published;
 *   - the same for the v2 prototype of docs/scaling.md (hashed bins under a signed top level), and
 *     its cold start;
 *   - the built v2 layout and the real client (registry-v2-child.ts) against its targets:
 *     files a build writes after one publish, refresh and cold-start bytes, cold start time and
 *     memory to a searchable index (the stored search index of sdk/src/registry/search-index/),
 *     warm search through the SDK and a new process's first search (min / median / max), the
 *     index's size on disk, with the load average printed beside them.
 * ARCOTHEON_SCALE_SIZES=20000,100000 picks other sizes. Results go to stdout and, as JSON, to
 * .tmp/registry-scale.json, from which docs/scaling.md's table was written.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerBench } from './registry.js';

const child = join(import.meta.dirname, 'registry-scale-child.ts');
const repo = join(import.meta.dirname, '..', '..');
/** The client's cap on catalogue bytes (sdk/src/registry/client: 64 MiB). */
const CLIENT_CATALOGUE_CAP = 64 * 1024 * 1024;
const KiB = 1024;
const MiB = 1024 * 1024;

function runChild(args: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', child, ...args], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  if (result.status !== 0) throw new Error(`registry-scale child ${args[0]} failed (${result.status}): ${result.stderr}`);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Record<string, unknown>;
}

const v2Child = join(import.meta.dirname, 'registry-v2-child.ts');

interface V2Real {
  build: { touched: Record<string, number>; buildMs: number; fanout: number };
  client: {
    coldBytes: number;
    coldUpdateMs: number;
    coldMs: number;
    coldRss: number;
    searchMedianMs: number;
    searchWorstMs: number;
    searchBestMs: number;
    searchCpuMedianMs: number;
    coldCpuMs: number;
    newProcessCpuMs: number;
    newProcessSearchMs: number;
    newProcessMinMs: number;
    newProcessMaxMs: number;
    newProcessRss: number;
    lookupMinMs: number;
    lookupMs: number;
    lookupMaxMs: number;
    lookupCpuMs: number;
    lookupRss: number;
    indexBytes: number;
    refreshBytes: number;
  };
  baselineRss: number;
}

/** The built v2 layout and the real client (registry-v2-child.ts), each step in a child of its own. */
function runV2(count: number): V2Real {
  const run = (args: string[]): Record<string, unknown> => {
    const result = spawnSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', v2Child, ...args], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 16 * MiB,
    });
    if (result.status !== 0) throw new Error(`registry-v2 child ${args[0]} failed (${result.status}): ${result.stderr}`);
    return JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as Record<string, unknown>;
  };
  const dir = mkdtempSync(join(tmpdir(), `adcap-v2-${count}-`));
  const home = mkdtempSync(join(tmpdir(), `adcap-v2-home-${count}-`));
  try {
    const build = run(['build', String(count), dir]) as unknown as V2Real['build'];
    const root = (JSON.parse(readFileSync(join(dir, 'root.json'), 'utf8')) as { publicKey: string }).publicKey;
    const client = run(['client', dir, root, home]) as unknown as V2Real['client'];
    const baselineRss = (run(['baseline']) as { maxRss: number }).maxRss;
    return { build, client, baselineRss };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

function sizes(): number[] {
  const env = process.env['ARCOTHEON_SCALE_SIZES'];
  if (env === undefined || env === '') return [20_000, 100_000, 500_000];
  return env
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

interface BuildOut {
  count: number;
  catalogueBytes: number;
  catalogueGzipBytes: number;
  buildMs: number;
  search: { medianMs: number; worstMs: number };
  v1: { refreshBytes: number; refreshGzipBytes: number };
  v2: {
    buildMs: number;
    topBytes: number;
    leafBytesMedian: number;
    refresh: { bytes: number };
    coldStart: { bytes: number; packsRaw: number };
  };
}

registerBench({
  name: 'registry-scale: catalogue size, load, search and refresh at 20k / 100k / 500k capabilities',
  async run(report) {
    const baseline = runChild(['baseline']) as { maxRss: number };
    const all: unknown[] = [];
    for (const count of sizes()) {
      const dir = await mkdtemp(join(tmpdir(), `adcap-scale-${count}-`));
      try {
        const built = runChild(['build', String(count), dir]) as unknown as BuildOut;
        const root = JSON.parse(await readFile(join(dir, 'root.json'), 'utf8')) as { publicKey: string };
        const v1 = runChild(['load-v1', join(dir, 'catalog.json'), root.publicKey]) as {
          verifyMs: number;
          indexMs: number;
          maxRss: number;
        };
        const v2 = runChild(['load-v2', dir, await readFile(join(dir, 'root.json'), 'utf8')]) as {
          loadMs: number;
          indexMs: number;
          maxRss: number;
        };
        const n = count.toLocaleString('en-US');
        const overCap = built.catalogueBytes > CLIENT_CATALOGUE_CAP;
        report({
          label:
            `${n}: v1 catalogue (gzip ${(built.catalogueGzipBytes / MiB).toFixed(1)} MiB` +
            `${overCap ? "; OVER the client's 64 MiB cap, refused" : ''})`,
          value: built.catalogueBytes / MiB,
          unit: 'MiB',
        });
        report({ label: `${n}: v1 build (fold documents, payload, sign; in memory)`, value: built.buildMs / 1000, unit: 's' });
        report({
          label: `${n}: v1 client verify-and-load (verifyCatalogue + search index)`,
          value: (v1.verifyMs + v1.indexMs) / 1000,
          unit: 's',
        });
        report({
          label: `${n}: v1 client peak memory over a bare child (${(baseline.maxRss / MiB).toFixed(0)} MiB)`,
          value: (v1.maxRss - baseline.maxRss) / MiB,
          unit: 'MiB',
        });
        report({
          label: `${n}: search median of ${6} queries (worst ${built.search.worstMs.toFixed(1)} ms)`,
          value: built.search.medianMs,
          unit: 'ms',
        });
        report({
          label: `${n}: v1 refresh after one publish (gzip ${(built.v1.refreshGzipBytes / KiB).toFixed(0)} KiB)`,
          value: built.v1.refreshBytes / KiB,
          unit: 'KiB',
        });
        report({
          label: `${n}: v2 refresh after one publish (top, one node, one bin, one document)`,
          value: built.v2.refresh.bytes / KiB,
          unit: 'KiB',
          target: 64,
        });
        report({
          label: `${n}: v2 cold start (top, nodes, gzip search packs; packs raw ${(built.v2.coldStart.packsRaw / MiB).toFixed(1)} MiB)`,
          value: built.v2.coldStart.bytes / MiB,
          unit: 'MiB',
          target: 50,
        });
        report({
          label: `${n}: v2 cold-start load (verify, check pins, unpack) + search index`,
          value: (v2.loadMs + v2.indexMs) / 1000,
          unit: 's',
        });
        report({ label: `${n}: v2 cold-start peak memory over a bare child`, value: (v2.maxRss - baseline.maxRss) / MiB, unit: 'MiB' });
        const real = runV2(count);
        report({
          label:
            `${n}: v2 (built) registry build after one publish: files written besides the top level ` +
            `(bins ${real.build.touched['bins']}, nodes ${real.build.touched['nodes']}, ` +
            `packs ${real.build.touched['packs']}, wire segments ${real.build.touched['segments']}, ` +
            `documents ${real.build.touched['docs']})`,
          value:
            (real.build.touched['bins'] ?? 0) +
            (real.build.touched['nodes'] ?? 0) +
            (real.build.touched['packs'] ?? 0) +
            (real.build.touched['segments'] ?? 0),
          unit: 'files',
          target: 4,
        });
        report({
          label: `${n}: v2 (client) refresh after one publish, downloaded`,
          value: real.client.refreshBytes / KiB,
          unit: 'KiB',
          target: 64,
        });
        report({ label: `${n}: v2 (client) cold start, downloaded`, value: real.client.coldBytes / MiB, unit: 'MiB', target: 50 });
        console.log(
          `  ${n}: load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
        );
        report({
          label:
            `${n}: v2 (client) cold start to a searchable index ` +
            `(update ${(real.client.coldUpdateMs / 1000).toFixed(1)} s + first search; CPU ${(real.client.coldCpuMs / 1000).toFixed(1)} s)`,
          value: real.client.coldMs / 1000,
          unit: 's',
          target: 10,
        });
        report({
          label: `${n}: v2 (client) cold start peak memory over a bare child`,
          value: (real.client.coldRss - real.baselineRss) / MiB,
          unit: 'MiB',
          target: 300,
        });
        report({
          label:
            `${n}: v2 (client) search as you type, SDK warm, min/median/max of 6 queries (each the median of 9): ` +
            `${real.client.searchBestMs.toFixed(1)} / ${real.client.searchMedianMs.toFixed(1)} / ` +
            `${real.client.searchWorstMs.toFixed(1)} ms ` +
            `(CPU median ${real.client.searchCpuMedianMs.toFixed(1)} ms)`,
          value: real.client.searchMedianMs,
          unit: 'ms',
          target: 20,
        });
        report({
          label:
            `${n}: v2 (client) a new process's first search on a warm home, min/median/max of 5: ` +
            `${(real.client.newProcessMinMs / 1000).toFixed(2)} / ${(real.client.newProcessSearchMs / 1000).toFixed(2)} / ` +
            `${(real.client.newProcessMaxMs / 1000).toFixed(2)} s (CPU ${(real.client.newProcessCpuMs / 1000).toFixed(2)} s, ` +
            `peak RSS ${(real.client.newProcessRss / MiB).toFixed(0)} MiB)`,
          value: real.client.newProcessSearchMs / 1000,
          unit: 's',
        });
        report({
          label:
            `${n}: v2 (client) a new process's lookup of one listed and one unlisted id on a warm home (a run's ` +
            `revocation check), min/median/max of 5: ${real.client.lookupMinMs.toFixed(0)} / ${real.client.lookupMs.toFixed(0)} / ` +
            `${real.client.lookupMaxMs.toFixed(0)} ms (CPU ${real.client.lookupCpuMs.toFixed(0)} ms, ` +
            `peak RSS ${(real.client.lookupRss / MiB).toFixed(0)} MiB)`,
          value: real.client.lookupMs,
          unit: 'ms',
        });
        report({ label: `${n}: v2 (client) stored search index on disk`, value: real.client.indexBytes / MiB, unit: 'MiB' });
        console.log(
          `  ${n}: load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
        );
        all.push({ built, load: { v1, v2 }, baselineRss: baseline.maxRss, v2Real: real });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    await mkdir(join(repo, '.tmp'), { recursive: true });
    await writeFile(join(repo, '.tmp', 'registry-scale.json'), `${JSON.stringify(all, null, 2)}\n`);
  },
});
