/**
 * Child process of the registry-scale bench for the real v2 layout (docs/scaling.md "Version 2":
 * sdk/src/registry/layout-v2.ts, builder/build-v2.ts, client/snapshot-v2.ts), one per size so each
 * gets a fresh heap and its own peak memory:
 *
 *   build <count> <dir>         the synthetic registry (registry-synthetic.ts) through buildV2Snapshot
 *                               and its wire segments (buildV2SnapshotWithIndex), its files written to
 *                               <dir>/v2/ with a signed top level; then one publish (a new version of
 *                               one capability): which files change, and the new top level kept as
 *                               <dir>/top-after.json. <dir>/top-packs.json is the first top level
 *                               without its wire segments (a registry built before them: a client
 *                               then builds its index from the packs), to measure the two side by side.
 *   client <dir> <root> <home>  a RegistryClient on <dir>/v1/'s URL: cold start (update() through
 *                               v2/, which writes the stored search index, then the first search),
 *                               warm searches through the SDK (min / median / max over the queries),
 *                               new processes' first search (`search` below, 5 runs), then the
 *                               publish: refresh and the bytes it downloaded.
 *   search <dir> <root> <home>  a new process: a RegistryClient on the warm home, one search, its time
 *                               from the client's creation and the process's peak RSS.
 *   lookup <dir> <root> <home> <id>  the same for two lookups: <id> (listed) and an id not listed.
 *   baseline                    loads the same modules and does nothing (the RSS floor).
 *
 * Each prints one JSON line.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RegistryClient } from '../../sdk/src/registry/client/registry-client.js';
import { foldPackageDocument, packageDocumentBytes } from '../../sdk/src/registry/documents.js';
import { buildV2SnapshotWithIndex } from '../../sdk/src/registry/builder/build-v2.js';
import type { V2File } from '../../sdk/src/registry/layout-v2.js';
import type { VersionEntry } from '../../sdk/src/registry/types.js';
import { CATALOG_V2_CONTEXT, signEnvelope } from '../../sdk/src/trust/envelope.js';
import { generateKey } from '../../sdk/src/trust/keys.js';
import { entryFor, publishers } from './registry-synthetic.js';

const QUERIES = ['pdf', 'index vector', 'tool 1234', 'summ', 'pub-42/sql-chart-42', 'nothing-matches-this'];

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

async function timedAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** This process's CPU time so far (user + system), in ms. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function writeFiles(dir: string, files: readonly V2File[], only?: ReadonlySet<string>): Promise<void> {
  const made = new Set<string>();
  for (const file of files) {
    if (only !== undefined && !only.has(file.path)) continue;
    const folder = join(dir, 'v2', file.path.slice(0, file.path.indexOf('/')));
    if (!made.has(folder)) await mkdir(folder, { recursive: true });
    made.add(folder);
    await writeFile(join(dir, 'v2', file.path), file.bytes);
  }
}

async function build(count: number, dir: string): Promise<void> {
  const root = generateKey();
  const pubs = publishers(count);
  const entries = Array.from({ length: count }, (_, i) => entryFor(i, `1.${i % 10}.0`, count));
  const documents = entries.map((entry) => {
    const doc = foldPackageDocument(entry.id, [entry], {});
    return { doc, bytes: packageDocumentBytes(doc) };
  });
  const input = { registry: 'scale', sequence: 1, generatedAt: new Date().toISOString().slice(0, 19) + 'Z', publishers: pubs, documents };
  const before = timed(() => buildV2SnapshotWithIndex(input));
  const snapshot = before.value;
  // Package documents are fetched only when a capability is opened: the bench writes the
  // structure (nodes, bins, publishers, packs, wire segments) and the one document it opens.
  await writeFiles(dir, [
    ...snapshot.nodes,
    ...snapshot.bins,
    ...snapshot.packs,
    ...snapshot.segments,
    ...snapshot.publisherBins,
    snapshot.publishersNode,
  ]);
  await mkdir(join(dir, 'v1'), { recursive: true });
  await writeFile(join(dir, 'v2', 'catalog.json'), `${JSON.stringify(signEnvelope(snapshot.payload, CATALOG_V2_CONTEXT, [root]))}\n`);
  await writeFile(join(dir, 'root.json'), JSON.stringify({ publicKey: root.publicKey }));
  const { segments: _segments, ...packsOnly } = snapshot.payload;
  await writeFile(join(dir, 'top-packs.json'), `${JSON.stringify(signEnvelope(packsOnly, CATALOG_V2_CONTEXT, [root]))}\n`);

  // One publish: a new version of one capability.
  const target = Math.floor(count / 2);
  const old = entries[target] as VersionEntry;
  const newer = { ...entryFor(target, '9.0.0', count), id: old.id };
  const doc = foldPackageDocument(old.id, [old, newer], {});
  const afterDocs = documents.map((d, i) => (i === target ? { doc, bytes: packageDocumentBytes(doc) } : d));
  const after = timed(() => buildV2SnapshotWithIndex({ ...input, sequence: 2, documents: afterDocs }));
  const kinds = ['docs', 'bins', 'nodes', 'packs', 'segments', 'publisherBins'] as const;
  const touched: Record<string, number> = {};
  const fresh = new Set<string>();
  for (const kind of kinds) {
    const had = new Set(snapshot[kind].map((file) => file.path));
    const added = after.value[kind].filter((file) => !had.has(file.path));
    touched[kind] = new Set(added.map((file) => file.path)).size;
    for (const file of added) fresh.add(file.path);
  }
  if (after.value.publishersNode.path !== snapshot.publishersNode.path) touched['publishersNode'] = 1;
  await writeFiles(
    dir,
    [...after.value.nodes, ...after.value.bins, ...after.value.packs, ...after.value.segments, ...after.value.docs],
    fresh,
  );
  await writeFile(join(dir, 'top-after.json'), `${JSON.stringify(signEnvelope(after.value.payload, CATALOG_V2_CONTEXT, [root]))}\n`);
  const sizes = (files: readonly V2File[]): number => files.reduce((sum, file) => sum + file.bytes.length, 0);
  console.log(
    JSON.stringify({
      count,
      fanout: snapshot.payload.fanout,
      buildMs: before.ms,
      rebuildMs: after.ms,
      touched,
      bytes: { nodes: sizes(snapshot.nodes), bins: sizes(snapshot.bins), packs: sizes(snapshot.packs), segments: sizes(snapshot.segments) },
      target: old.id,
    }),
  );
}

async function client(dir: string, rootKey: string, home: string): Promise<void> {
  const make = (): RegistryClient =>
    new RegistryClient({
      home,
      remote: { name: 'scale', url: `${pathToFileURL(join(dir, 'v1')).href}/`, rootKeys: [rootKey] },
    });
  const started = performance.now();
  const arc = make();
  const cold = await arc.update();
  const coldUpdateMs = performance.now() - started;
  const first = await timedAsync(() => arc.search('pdf', { limit: 20 }));
  const coldMs = performance.now() - started;
  const coldRss = process.resourceUsage().maxRSS * 1024;
  // CPU time (user + system) says more than wall time on a loaded machine.
  const coldCpuMs = cpuMs();
  const perQuery: number[] = [];
  const perQueryCpu: number[] = [];
  for (const query of QUERIES) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < 9; r++) {
      const before = cpuMs();
      times.push((await timedAsync(() => arc.search(query, { limit: 20 }))).ms);
      cpu.push(cpuMs() - before);
    }
    perQuery.push(median(times));
    perQueryCpu.push(median(cpu));
  }
  // New processes on the same home: the stored snapshot, its index and the first search.
  const newProcess: Array<{ ms: number; cpuMs: number; rss: number }> = [];
  for (let r = 0; r < 5; r++) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'search', dir, rootKey, home], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`search child failed: ${run.stderr}`);
    newProcess.push(JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as { ms: number; cpuMs: number; rss: number });
  }
  const newTimes = newProcess.map((p) => p.ms);
  const newCpu = newProcess.map((p) => p.cpuMs);
  // New processes looking one capability up (a tool run's revocation check, `list`): the stored
  // snapshot and one segment or bin, not the index. The first stores the listed id's bin.
  const lookups: Array<{ ms: number; cpuMs: number; rss: number }> = [];
  for (let r = 0; r < 6; r++) {
    const listed = entryFor(0, '1.0.0', cold.capabilityCount).id;
    const run = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'lookup', dir, rootKey, home, listed], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`lookup child failed: ${run.stderr}`);
    if (r > 0) lookups.push(JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as { ms: number; cpuMs: number; rss: number });
  }
  await copyFile(join(dir, 'top-after.json'), join(dir, 'v2', 'catalog.json'));
  const refresh = await timedAsync(() => make().update());
  console.log(
    JSON.stringify({
      layout: cold.layout,
      capabilities: cold.capabilityCount,
      coldBytes: cold.downloadedBytes,
      coldUpdateMs,
      firstSearchMs: first.ms,
      coldMs,
      coldRss,
      coldCpuMs,
      searchMedianMs: median(perQuery),
      searchWorstMs: Math.max(...perQuery),
      searchBestMs: Math.min(...perQuery),
      searchCpuMedianMs: median(perQueryCpu),
      newProcessSearchMs: median(newTimes),
      newProcessMinMs: Math.min(...newTimes),
      newProcessMaxMs: Math.max(...newTimes),
      newProcessRss: median(newProcess.map((p) => p.rss)),
      /** The whole process's CPU time (start-up, modules, loading the stored state and index, the search). */
      newProcessCpuMs: median(newCpu),
      lookupMinMs: Math.min(...lookups.map((p) => p.ms)),
      lookupMs: median(lookups.map((p) => p.ms)),
      lookupMaxMs: Math.max(...lookups.map((p) => p.ms)),
      lookupCpuMs: median(lookups.map((p) => p.cpuMs)),
      lookupRss: median(lookups.map((p) => p.rss)),
      indexBytes: await directoryBytes(join(home, 'remotes', 'scale', 'search-index')),
      refreshBytes: refresh.value.downloadedBytes,
      refreshMs: refresh.ms,
      hits: first.value.length,
    }),
  );
}

/** A new process's first search on a warm home. */
async function searchOnce(dir: string, rootKey: string, home: string): Promise<void> {
  const started = performance.now();
  const client = new RegistryClient({
    home,
    remote: { name: 'scale', url: `${pathToFileURL(join(dir, 'v1')).href}/`, rootKeys: [rootKey] },
  });
  const hits = await client.search('pdf', { limit: 20 });
  if (hits.length === 0) throw new Error('no hits');
  console.log(JSON.stringify({ ms: performance.now() - started, cpuMs: cpuMs(), rss: process.resourceUsage().maxRSS * 1024 }));
}

/**
 * A new process's lookups on a warm home, as a tool run's revocation check makes them: a listed id
 * (its record, from its bin) and an id the registry does not list (a sideload: one index segment
 * says so). Timed from the client's creation; the process's CPU and peak RSS.
 */
async function lookupOnce(dir: string, rootKey: string, home: string, listed: string): Promise<void> {
  const started = performance.now();
  const client = new RegistryClient({
    home,
    remote: { name: 'scale', url: `${pathToFileURL(join(dir, 'v1')).href}/`, rootKeys: [rootKey] },
  });
  if ((await client.record(listed)) === null) throw new Error(`${listed} was not found`);
  if ((await client.record('local/not-listed-here')) !== null) throw new Error('an unlisted id was found');
  console.log(JSON.stringify({ ms: performance.now() - started, cpuMs: cpuMs(), rss: process.resourceUsage().maxRSS * 1024 }));
}

async function directoryBytes(path: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(path)) total += (await stat(join(path, name))).size;
  return total;
}

const [mode, a, b, c, d] = process.argv.slice(2);
if (mode === 'build' && a !== undefined && b !== undefined) await build(Number(a), b);
else if (mode === 'client' && a !== undefined && b !== undefined && c !== undefined) await client(a, b, c);
else if (mode === 'search' && a !== undefined && b !== undefined && c !== undefined) await searchOnce(a, b, c);
else if (mode === 'lookup' && a !== undefined && b !== undefined && c !== undefined && d !== undefined) await lookupOnce(a, b, c, d);
else if (mode === 'baseline') console.log(JSON.stringify({ maxRss: process.resourceUsage().maxRSS * 1024 }));
else
  throw new Error(
    'usage: registry-v2-child.ts build <count> <dir> | client|search <dir> <rootKey> <home> | ' +
      'lookup <dir> <rootKey> <home> <id> | baseline',
  );
