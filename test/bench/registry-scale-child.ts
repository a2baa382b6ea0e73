/**
 * Child process of the registry-scale bench, one per registry size so each gets a fresh
 * heap and its own peak-memory figure:
 *
 *   build <count> <outDir>   builds a synthetic registry of <count> capabilities in memory with the
 *                            real builder functions (fold documents, catalogue payload, sign), writes
 *                            the signed v1 catalogue to <outDir>/catalog.json and the v2 prototype's
 *                            files to <outDir>/v2/, measures search, and simulates one publish.
 *   load-v1 <file> <rootKey> a client's verify-and-load of a v1 catalogue (verifyCatalogue + search
 *                            index), as a client does after downloading it.
 *   load-v2 <dir> <rootKey>  a client's cold start on the v2 prototype (top level, every mid node,
 *                            every search pack, search index).
 *   baseline                 loads the same modules and does nothing (the RSS floor).
 *
 * Each prints one JSON line. The v2 layout is a prototype that lives only in the bench (see
 * docs/scaling.md for the design it measures).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { buildCataloguePayload, verifyCatalogue } from '../../sdk/src/registry/catalogue.js';
import { foldPackageDocument, packageDocumentBytes } from '../../sdk/src/registry/documents.js';
import { SearchIndex } from '../../sdk/src/registry/search.js';
import type {
  CatalogueCapability,
  CataloguePayload,
  CataloguePublisher,
  PackageDocument,
  VersionEntry,
} from '../../sdk/src/registry/types.js';
import { CATALOG_CONTEXT, signEnvelope, verifyEnvelope } from '../../sdk/src/trust/envelope.js';
import { generateKey, type KeyFile } from '../../sdk/src/trust/keys.js';
import { entryFor, publisherCount, publishers } from './registry-synthetic.js';

const QUERIES = ['pdf', 'index vector', 'tool 1234', 'summ', 'pub-42/sql-chart-42', 'nothing-matches-this'];
// The prototype signs its top level in the v1 catalogue context (the envelope module accepts only
// the contexts of the 1.0 format); its payload says spec 2. The design gives it a context of its own.
const V2_CONTEXT = CATALOG_CONTEXT;

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

interface Doc {
  doc: PackageDocument;
  bytes: Buffer;
}

function buildV1(count: number, root: KeyFile, docs: Doc[], sequence: number): { payload: CataloguePayload; bytes: Buffer } {
  const payload = buildCataloguePayload({
    registry: 'scale',
    sequence,
    generatedAt: '2026-11-30T12:00:00Z',
    publishers: publishers(count),
    documents: docs,
  });
  const bytes = Buffer.from(`${JSON.stringify(signEnvelope(payload, CATALOG_CONTEXT, [root]))}\n`);
  return { payload, bytes };
}

// ---- The v2 prototype: hashed bins under a two-level tree, and search packs -------------------------

interface V2File {
  path: string;
  bytes: Buffer;
}

interface V2Layout {
  fanout: number;
  top: V2File;
  mids: V2File[];
  leaves: V2File[];
  packs: V2File[];
  publisherLeaves: V2File[];
}

/** Fan-out per level: the smallest power of two whose square gives leaves of at most ~32 records. */
export function fanoutFor(count: number): number {
  let fanout = 4;
  while (fanout * fanout * 32 < count) fanout *= 2;
  return fanout;
}

function binOf(id: string, bins: number): number {
  return parseInt(sha256(id).slice(0, 8), 16) % bins;
}

function contentFile(dir: string, bytes: Buffer, ext: string): V2File {
  return { path: `${dir}/${sha256(bytes)}${ext}`, bytes };
}

function pin(file: V2File): [string, number] {
  return [file.path, file.bytes.length];
}

/** A search record: what search needs and nothing else (no pins: those are in the leaves). */
function searchRecord(id: string, c: CatalogueCapability): unknown[] {
  const flags = (c.tier === 'pro' ? 1 : 0) | (c.access === 'entitled' ? 2 : 0) | (c.deprecated ? 4 : 0);
  return [id, c.name, c.summary, c.keywords, c.latest ?? null, c.latestPrerelease ?? null, flags];
}

function buildV2(payload: CataloguePayload, root: KeyFile): V2Layout {
  const ids = Object.keys(payload.capabilities);
  const fanout = fanoutFor(ids.length);
  const bins = fanout * fanout;
  const byBin: Array<Array<[string, CatalogueCapability]>> = Array.from({ length: bins }, () => []);
  for (const id of ids) byBin[binOf(id, bins)]?.push([id, payload.capabilities[id] as CatalogueCapability]);
  const leaves = byBin.map((records) => contentFile('v2/bins', Buffer.from(JSON.stringify(Object.fromEntries(records))), '.json'));
  const mids: V2File[] = [];
  const packs: V2File[] = [];
  for (let m = 0; m < fanout; m++) {
    const group = leaves.slice(m * fanout, (m + 1) * fanout);
    mids.push(contentFile('v2/nodes', Buffer.from(JSON.stringify(group.map(pin))), '.json'));
    const records = byBin
      .slice(m * fanout, (m + 1) * fanout)
      .flat()
      .map(([id, c]) => searchRecord(id, c));
    packs.push(contentFile('v2/search', gzipSync(Buffer.from(JSON.stringify(records)), { level: 9 }), '.json.gz'));
  }
  const pubIds = Object.keys(payload.publishers);
  const pubBins = Math.max(1, Math.ceil(pubIds.length / 64));
  const pubByBin: Array<Array<[string, CataloguePublisher]>> = Array.from({ length: pubBins }, () => []);
  for (const id of pubIds) pubByBin[binOf(id, pubBins)]?.push([id, payload.publishers[id] as CataloguePublisher]);
  const publisherLeaves = pubByBin.map((records) =>
    contentFile('v2/publishers', Buffer.from(JSON.stringify(Object.fromEntries(records))), '.json'),
  );
  const topPayload = {
    registry: payload.registry,
    spec: 2,
    sequence: payload.sequence,
    generatedAt: payload.generatedAt,
    bins,
    nodes: mids.map(pin),
    search: packs.map(pin),
    publishers: contentFile('v2/nodes', Buffer.from(JSON.stringify(publisherLeaves.map(pin))), '.json').path,
  };
  const top = { path: 'v2/catalog.json', bytes: Buffer.from(`${JSON.stringify(signEnvelope(topPayload, V2_CONTEXT, [root]))}\n`) };
  return { fanout, top, mids, leaves, packs, publisherLeaves };
}

function changedBytes(before: readonly V2File[], after: readonly V2File[]): { files: number; bytes: number } {
  const old = new Set(before.map((f) => f.path));
  const fresh = after.filter((f) => !old.has(f.path));
  return { files: fresh.length, bytes: fresh.reduce((sum, f) => sum + f.bytes.length, 0) };
}

async function build(count: number, outDir: string): Promise<void> {
  const root = generateKey();
  publishers(count);
  const entries = Array.from({ length: count }, (_, i) => entryFor(i, `1.${i % 10}.0`, count));
  const fold = timed(() =>
    entries.map((entry) => {
      const doc = foldPackageDocument(entry.id, [entry], {});
      return { doc, bytes: packageDocumentBytes(doc) };
    }),
  );
  const docs = fold.value;
  const v1 = timed(() => buildV1(count, root, docs, 1));
  const catalogue = v1.value.bytes;
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'catalog.json'), catalogue);
  await writeFile(join(outDir, 'root.json'), JSON.stringify({ keyId: root.keyId, publicKey: root.publicKey }));
  const catalogueGzip = gzipSync(catalogue, { level: 6 }).length;

  // Search over the whole catalogue, as the client does offline.
  const index = new SearchIndex(v1.value.payload.capabilities);
  const perQuery = QUERIES.map((q) => {
    const times: number[] = [];
    for (let r = 0; r < 9; r++) times.push(timed(() => index.search(q, { limit: 50 })).ms);
    return median(times);
  });

  // One publish: a new version of one capability (its document changes, so does the catalogue).
  const target = Math.floor(count / 2);
  const newEntry = entryFor(target, '9.0.0', count);
  const oldEntry = entries[target] as VersionEntry;
  const newDoc = foldPackageDocument(oldEntry.id, [oldEntry, { ...newEntry, id: oldEntry.id }], {});
  const newDocBytes = packageDocumentBytes(newDoc);
  const docsAfter = docs.map((d, i) => (i === target ? { doc: newDoc, bytes: newDocBytes } : d));
  const v1After = buildV1(count, root, docsAfter, 2);
  const v1Refresh = v1After.bytes.length + newDocBytes.length;
  const v1RefreshGzip = gzipSync(v1After.bytes, { level: 6 }).length + gzipSync(newDocBytes).length;

  // The v2 prototype, before and after the same publish.
  const v2Build = timed(() => buildV2(v1.value.payload, root));
  const v2 = v2Build.value;
  const v2After = buildV2(v1After.payload, root);
  // The top level is the one mutable file (new sequence on every build): always downloaded again.
  const refreshFiles = [
    { files: 1, bytes: v2After.top.bytes.length },
    changedBytes(v2.mids, v2After.mids),
    changedBytes(v2.leaves, v2After.leaves),
  ];
  const v2Refresh = refreshFiles.reduce((sum, f) => sum + f.bytes, 0) + newDocBytes.length;
  const packsBytes = v2.packs.reduce((s, f) => s + f.bytes.length, 0);
  const packsRaw = v2.packs.reduce((s, f) => s + gunzipSync(f.bytes).length, 0);
  const midsBytes = v2.mids.reduce((s, f) => s + f.bytes.length, 0);
  const v2Cold = v2.top.bytes.length + midsBytes + packsBytes;
  for (const file of [v2.top, ...v2.mids, ...v2.packs]) {
    await mkdir(join(outDir, file.path, '..'), { recursive: true });
    await writeFile(join(outDir, file.path), file.bytes);
  }
  const leafSizes = v2.leaves.map((f) => f.bytes.length);
  console.log(
    JSON.stringify({
      count,
      publishers: publisherCount(count),
      catalogueBytes: catalogue.length,
      catalogueGzipBytes: catalogueGzip,
      docBytesMedian: median(docs.slice(0, 1000).map((d) => d.bytes.length)),
      buildMs: fold.ms + v1.ms,
      search: { medianMs: median(perQuery), worstMs: Math.max(...perQuery), queries: QUERIES.length },
      v1: { refreshBytes: v1Refresh, refreshGzipBytes: v1RefreshGzip },
      v2: {
        fanout: v2.fanout,
        bins: v2.leaves.length,
        buildMs: v2Build.ms,
        topBytes: v2.top.bytes.length,
        midBytesMedian: median(v2.mids.map((f) => f.bytes.length)),
        leafBytesMedian: median(leafSizes),
        leafBytesMax: Math.max(...leafSizes),
        refresh: { bytes: v2Refresh, top: refreshFiles[0], mids: refreshFiles[1], leaves: refreshFiles[2], doc: newDocBytes.length },
        coldStart: { bytes: v2Cold, top: v2.top.bytes.length, mids: midsBytes, packsGzip: packsBytes, packsRaw },
        publisherLeaves: v2.publisherLeaves.length,
      },
    }),
  );
}

function loadV1(file: string, rootKey: string): Promise<void> {
  return readFile(file).then((bytes) => {
    const verify = timed(() => verifyCatalogue(bytes, [rootKey], {}));
    const index = timed(() => new SearchIndex(verify.value.payload.capabilities));
    console.log(JSON.stringify({ verifyMs: verify.ms, indexMs: index.ms, maxRss: process.resourceUsage().maxRSS * 1024 }));
  });
}

async function loadV2(dir: string, rootKey: string): Promise<void> {
  const started = performance.now();
  const top = verifyEnvelope<{ nodes: Array<[string, number]>; search: Array<[string, number]> }>(
    JSON.parse(await readFile(join(dir, 'v2', 'catalog.json'), 'utf8')),
    V2_CONTEXT,
    [JSON.parse(rootKey) as { keyId: string; publicKey: string }],
  );
  const check = async (path: string, size: number): Promise<Buffer> => {
    const bytes = await readFile(join(dir, path));
    if (bytes.length !== size || !path.includes(sha256(bytes))) throw new Error(`${path} does not match its pin`);
    return bytes;
  };
  let nodes = 0;
  for (const [path, size] of top.payload.nodes) nodes += (JSON.parse((await check(path, size)).toString('utf8')) as unknown[]).length;
  const capabilities: Record<string, CatalogueCapability> = {};
  for (const [path, size] of top.payload.search) {
    for (const r of JSON.parse(gunzipSync(await check(path, size)).toString('utf8')) as Array<
      [string, string, string, string[], string | null, string | null, number]
    >) {
      const [id, name, summary, keywords, latest, latestPrerelease, flags] = r;
      capabilities[id] = {
        name,
        summary,
        keywords,
        publisher: id.split('/')[0] as string,
        ...(latest === null ? {} : { latest }),
        ...(latestPrerelease === null ? {} : { latestPrerelease }),
        tier: flags & 1 ? 'pro' : 'free',
        access: flags & 2 ? 'entitled' : 'public',
        deprecated: (flags & 4) !== 0,
        // The document pin lives in the leaf bin, fetched when the capability is opened.
        doc: { path: '', sha256: '' },
      };
    }
  }
  const loadMs = performance.now() - started;
  const index = timed(() => new SearchIndex(capabilities));
  console.log(
    JSON.stringify({
      loadMs,
      indexMs: index.ms,
      nodes,
      capabilities: Object.keys(capabilities).length,
      maxRss: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'build' && a !== undefined && b !== undefined) await build(Number(a), b);
else if (mode === 'load-v1' && a !== undefined && b !== undefined) await loadV1(a, b);
else if (mode === 'load-v2' && a !== undefined && b !== undefined) await loadV2(a, b);
else if (mode === 'baseline') console.log(JSON.stringify({ maxRss: process.resourceUsage().maxRSS * 1024 }));
else
  throw new Error('usage: registry-scale-child.ts build <count> <outDir> | load-v1 <file> <rootKey> | load-v2 <dir> <rootKey> | baseline');
