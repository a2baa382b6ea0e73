/**
 * The v2/ half of `adcap registry build` (docs/scaling.md "Version 2", docs/deploy.md "Upload
 * order"): writes the content-addressed files of a snapshot that are not on disk yet, then the
 * signed top level, then collects files no snapshot has referenced for longer than the grace
 * period. Because every file but the top level is named by its hash, a client that read any top
 * level still served finds every file it pins, however the upload interleaves with its reads.
 */
import { access, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { asAdcapError } from '../../errors.js';
import { canonicalJson } from '../../format/canonical-json.js';
import { CATALOG_V2_CONTEXT, signEnvelope } from '../../trust/envelope.js';
import type { KeyFile } from '../../trust/keys.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import { sha256Hex } from '../../util/hash.js';
import {
  binOf,
  buildV2Snapshot,
  checkPin,
  parseBin,
  parseNode,
  parsePublisherBin,
  parseSearchPack,
  searchRecordOf,
  type Pin,
  type SearchRecord,
  type SegmentPin,
  type TopLevelPayload,
  type V2File,
  type V2Snapshot,
  type V2SnapshotInput,
} from '../layout-v2.js';
import { encodeWireSegment, nodesPerSegment } from '../search-index/wire-segment.js';
import type { CatalogueCapability, CataloguePublisher, PublisherFile } from '../types.js';

/** The top level's file name under v2/. */
export const V2_TOP_LEVEL = 'catalog.json';
/** Folders of content-addressed files under v2/ (garbage-collected after the grace period). */
export const V2_CONTENT_DIRS = ['docs', 'bins', 'nodes', 'publishers', 'search', 'index'] as const;
/** Where the builder remembers since when a file is referenced by no snapshot (a dot-file: never served). */
const RETIRED_FILE = '.retired.json';
/** Default grace period: longer than any cache keeps a top level, and than a client takes between a top level and its files. */
export const DEFAULT_GC_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** What the v2 half of a build wrote. */
export interface V2BuildResult {
  /** F: nodes, search packs and bins per node. */
  fanout: number;
  /** F², the number of bins. */
  bins: number;
  /** Content-addressed files written in this build, by folder (files already on disk are not touched). */
  written: Record<'docs' | 'bins' | 'nodes' | 'publishers' | 'search' | 'index', number>;
  /** Whether the top level was written (false when keepUnchanged kept it). */
  topLevelWritten: boolean;
  /** Files removed because no snapshot had referenced them for longer than the grace period. */
  collected: number;
  /** Where the top level is (v2/catalog.json). */
  topLevelPath: string;
  /**
   * True when only the bins whose sources changed were recomputed from the previous build's files
   * (docs/deploy.md "Incremental builds"); false for a full build.
   */
  incremental: boolean;
  /** Bins recomputed from their sources (all F² in a full build). */
  binsRecomputed: number;
}

export function v2Path(root: string, relative: string): string {
  return join(root, 'v2', ...relative.split('/'));
}

/** The signed top level on disk, parsed (this builder's own; used for keepUnchanged and the sequence floor). */
export async function previousTopLevel(root: string): Promise<{ payload: TopLevelPayload; keyIds: string[]; sha256: string } | null> {
  try {
    const bytes = await readFile(v2Path(root, V2_TOP_LEVEL));
    const envelope = JSON.parse(bytes.toString('utf8')) as {
      payload?: TopLevelPayload;
      signatures?: { keyId?: unknown }[];
    };
    if (typeof envelope.payload?.sequence !== 'number' || !Array.isArray(envelope.signatures)) return null;
    return { payload: envelope.payload, keyIds: envelope.signatures.map((s) => String(s.keyId)), sha256: sha256Hex(bytes) };
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** True when a payload equals the top level on disk (same sequence, same pins). */
export function sameTopLevel(payload: TopLevelPayload, previous: { payload: TopLevelPayload } | null): boolean {
  return previous !== null && canonicalJson(previous.payload) === canonicalJson(payload);
}

/** A content-addressed file, as layout-v2.ts names them: <dir>/<sha256 of the bytes><extension>. */
function contentFile(dir: string, bytes: Buffer, extension: string): V2File {
  return { path: `${dir}/${sha256Hex(bytes)}${extension}`, bytes };
}

function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

function pinOf(file: V2File): Pin {
  return [file.path, file.bytes.length];
}

/** Writes one content-addressed file unless it is on disk already (its name is its hash: same name, same bytes). */
async function writeContent(root: string, file: V2File, written: V2BuildResult['written']): Promise<void> {
  const path = v2Path(root, file.path);
  if (await exists(path)) return;
  await writeFileAtomic(path, file.bytes).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot write ${path}`);
  });
  written[file.path.slice(0, file.path.indexOf('/')) as keyof V2BuildResult['written']]++;
}

function noneWritten(): V2BuildResult['written'] {
  return { docs: 0, bins: 0, nodes: 0, publishers: 0, search: 0, index: 0 };
}

/** The display name a client's search matches for a publisher (snapshot-v2.ts publisherNameIn): its name, else its id. */
function publisherNameIn(publishers: Readonly<Record<string, { name: string }>>): (publisher: string) => string {
  return (publisher) => (Object.hasOwn(publishers, publisher) ? publishers[publisher]?.name : undefined) ?? publisher;
}

/** The wire segment of `records` (one client segment's nodes), gzipped: level 9, no timestamp (same records, same name). */
function wireSegmentFile(records: readonly SearchRecord[], publisherName: (publisher: string) => string): V2File {
  return contentFile('index', gzipSync(encodeWireSegment(records, publisherName), { level: 9 }), '.seg.gz');
}

/**
 * The snapshot with its wire segments (docs/scaling.md "Wire segments"): one per client segment
 * (nodesPerSegment's groups of consecutive nodes), pinned in the top level with its node range.
 */
export function withWireSegments(snapshot: V2Snapshot, publishers: readonly PublisherFile[]): V2Snapshot {
  const names: Record<string, { name: string }> = Object.create(null) as Record<string, { name: string }>;
  for (const file of publishers) names[file.id] = { name: file.name };
  const nameOf = publisherNameIn(names);
  const fanout = snapshot.payload.fanout;
  const group = nodesPerSegment(snapshot.payload);
  const segments: V2File[] = [];
  const pins: SegmentPin[] = [];
  for (let first = 0; first < fanout; first += group) {
    const file = wireSegmentFile(snapshot.searchRecords.slice(first, first + group).flat(), nameOf);
    segments.push(file);
    pins.push([file.path, file.bytes.length, first, group]);
  }
  return { ...snapshot, segments, payload: { ...snapshot.payload, segments: pins } };
}

/** buildV2Snapshot with its wire segments: every file of one v2 build but the signed top level. */
export function buildV2SnapshotWithIndex(input: V2SnapshotInput): V2Snapshot {
  return withWireSegments(buildV2Snapshot(input), input.publishers);
}

/** Writes every immutable file of a snapshot that is missing (documents, bins, publisher bins, nodes, search packs, wire segments). */
export async function writeV2Files(root: string, snapshot: V2Snapshot): Promise<{ written: V2BuildResult['written']; live: Set<string> }> {
  const written = noneWritten();
  const files: V2File[] = [
    ...snapshot.docs,
    ...snapshot.bins,
    ...snapshot.publisherBins,
    ...snapshot.nodes,
    snapshot.publishersNode,
    ...snapshot.packs,
    ...snapshot.segments,
  ];
  const live = new Set<string>();
  const unique: V2File[] = [];
  for (const file of files) {
    if (live.has(file.path)) continue; // equal content, one name (empty bins share one file)
    live.add(file.path);
    unique.push(file);
  }
  await inParallel(unique, (file) => writeContent(root, file, written));
  return { written, live };
}

/** Files written at once: each write is fsynced (DESIGN §6), and the file system commits parallel fsyncs together. */
export const WRITE_CONCURRENCY = 32;

/** Runs `task` over `items`, WRITE_CONCURRENCY at a time; the first failure is thrown once all have settled. */
export async function inParallel<T>(items: readonly T[], task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === undefined) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/** Signs and writes the top level (after every file it pins is on disk); returns its bytes. */
export async function writeV2TopLevel(root: string, payload: TopLevelPayload, rootKeys: readonly KeyFile[]): Promise<Buffer> {
  const topLevelPath = v2Path(root, V2_TOP_LEVEL);
  const bytes = Buffer.from(`${JSON.stringify(signEnvelope(payload, CATALOG_V2_CONTEXT, rootKeys))}\n`, 'utf8');
  await writeFileAtomic(topLevelPath, bytes).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot write ${topLevelPath}`);
  });
  return bytes;
}

/**
 * Garbage collection after a full build: every file under the content folders that the snapshot
 * does not reference (`live`) is retired, and deleted once retired for longer than the grace period.
 */
export async function collectV2Garbage(root: string, live: ReadonlySet<string>, now: Date, graceMs = DEFAULT_GC_GRACE_MS): Promise<number> {
  const unreferenced: string[] = [];
  for (const dir of V2_CONTENT_DIRS) {
    let names: string[];
    try {
      names = await readdir(v2Path(root, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue; // temp files of a concurrent atomic write
      const path = `${dir}/${name}`;
      if (!live.has(path)) unreferenced.push(path);
    }
  }
  return retireAndCollect(root, unreferenced, now, graceMs);
}

/** Thrown when the previous build's files do not match what its state file and pins say: build in full. */
export class StalePreviousBuild extends Error {
  /** Files the abandoned incremental build had already written (a full build finds them on disk). */
  written: V2BuildResult['written'] | undefined;
  constructor(message: string, written?: V2BuildResult['written']) {
    super(message);
    this.written = written;
  }
}

/** A capability recomputed from its sources: its package document's bytes and its bin record (document pinned under docs/). */
export interface BuiltCapability {
  id: string;
  bytes: Buffer;
  record: CatalogueCapability;
  /** The newest publishedAt of its versions (the order of the v1 subset past the cap). */
  publishedAt: string;
}

export interface IncrementalV2Input {
  /** The previous top level (its file hashed to the SHA-256 the state file recorded). */
  previous: TopLevelPayload;
  /** Bins whose sources changed, ascending. */
  dirty: readonly number[];
  /** The ids under each bin (sorted), from the source walk. */
  idsByBin: readonly (readonly string[])[];
  /** Recomputes one capability from its sources (null: it has no version). */
  build: (id: string) => Promise<BuiltCapability | null>;
  /** The publishers, when publishers/ changed; null keeps the previous publishers' node. */
  publishers: readonly PublisherFile[] | null;
}

export interface IncrementalV2Result {
  /** The new top level's payload, with the previous registry, sequence and date (the caller sets them). */
  payload: TopLevelPayload;
  written: V2BuildResult['written'];
  /** The capabilities of the recomputed bins. */
  built: BuiltCapability[];
  /** How many capabilities each recomputed bin holds now. */
  counts: Map<number, number>;
  /** Files of the previous snapshot that the rebuilt parts replaced (candidates for retirement). */
  replaced: Set<string>;
  /** Files of the rebuilt parts. */
  referenced: Set<string>;
}

async function readPinned(root: string, pin: Pin): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(v2Path(root, pin[0]));
  } catch {
    throw new StalePreviousBuild(`v2/${pin[0]} is missing`);
  }
  try {
    checkPin(bytes, pin);
  } catch {
    throw new StalePreviousBuild(`v2/${pin[0]} does not hash to its pin`);
  }
  return bytes;
}

/** A parse of the previous snapshot's own file; any malformation means a full rebuild. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new StalePreviousBuild((error as Error).message);
  }
}

const EMPTY_BIN = contentFile('bins', jsonBytes({}), '.json');

/**
 * An incremental build of v2/ (docs/deploy.md "Incremental builds"): only the dirty bins are
 * recomputed from their sources; the other pins of their nodes come from the previous nodes, and
 * the search records of the other bins of their packs from the previous packs, each file checked
 * against its pin first. The bytes are those buildV2Snapshot gives for the same sources: records
 * of a bin in code-unit order of ids, a pack's records bin after bin, the same JSON and gzip.
 */
export async function buildV2Incremental(root: string, input: IncrementalV2Input): Promise<IncrementalV2Result> {
  const previous = input.previous;
  const fanout = previous.fanout;
  const bins = fanout * fanout;
  const written = noneWritten();
  const replaced = new Set<string>();
  const referenced = new Set<string>();
  const built: BuiltCapability[] = [];
  const counts = new Map<number, number>();
  const nodes = previous.nodes.map((pin): Pin => [pin[0], pin[1]]);
  const search = previous.search.map((pin): Pin => [pin[0], pin[1]]);
  /** The search records of each recomputed node (its new pack's). */
  const nodeRecords = new Map<number, SearchRecord[]>();
  let capabilities = previous.capabilities;
  const write = async (file: V2File): Promise<void> => {
    referenced.add(file.path);
    await writeContent(root, file, written);
  };
  const byNode = new Map<number, number[]>();
  for (const bin of input.dirty) {
    const node = Math.floor(bin / fanout);
    byNode.set(node, [...(byNode.get(node) ?? []), bin]);
  }
  for (const [node, dirtyBins] of byNode) {
    const nodePin = previous.nodes[node] as Pin;
    const packPin = previous.search[node] as Pin;
    const nodeBytes = await readPinned(root, nodePin);
    const binPins = parsed(() => parseNode(nodeBytes, fanout, 'bins', nodePin[0]));
    const packBytes = await readPinned(root, packPin);
    const packRecords = parsed(() => parseSearchPack(gunzipSync(packBytes), node, fanout, packPin[0]));
    const recordsByBin = new Map<number, SearchRecord[]>();
    for (const record of packRecords) {
      const bin = binOf(record[0], bins);
      const list = recordsByBin.get(bin);
      if (list === undefined) recordsByBin.set(bin, [record]);
      else list.push(record);
    }
    replaced.add(nodePin[0]);
    replaced.add(packPin[0]);
    for (const bin of dirtyBins) {
      const oldPin = binPins[bin % fanout] as Pin;
      const binBytes = await readPinned(root, oldPin);
      const oldRecords = parsed(() => parseBin(binBytes, bin, bins, oldPin[0]));
      replaced.add(oldPin[0]);
      const records: [string, CatalogueCapability][] = [];
      for (const id of input.idsByBin[bin] ?? []) {
        const capability = await input.build(id);
        if (capability === null) continue;
        await write({ path: capability.record.doc.path, bytes: capability.bytes });
        records.push([id, capability.record]);
        built.push(capability);
      }
      for (const record of Object.values(oldRecords)) replaced.add(record.doc.path);
      capabilities += records.length - Object.keys(oldRecords).length;
      counts.set(bin, records.length);
      const binFile = contentFile('bins', jsonBytes(Object.fromEntries(records)), '.json');
      await write(binFile);
      binPins[bin % fanout] = pinOf(binFile);
      recordsByBin.set(
        bin,
        records.map(([id, capability]) => searchRecordOf(id, capability)),
      );
    }
    const packList: SearchRecord[] = [];
    for (let bin = node * fanout; bin < (node + 1) * fanout; bin++) packList.push(...(recordsByBin.get(bin) ?? []));
    nodeRecords.set(node, packList);
    // The same bytes as buildV2Snapshot: level 9, no timestamp.
    const packFile = contentFile('search', gzipSync(JSON.stringify(packList), { level: 9 }), '.json.gz');
    const nodeFile = contentFile('nodes', jsonBytes(binPins), '.json');
    await write(packFile);
    await write(nodeFile);
    nodes[node] = pinOf(nodeFile);
    search[node] = pinOf(packFile);
  }
  let publishersPin: Pin = [previous.publishers[0], previous.publishers[1]];
  if (input.publishers !== null) {
    const publishersBytes = await readPinned(root, previous.publishers);
    const oldPins = parsed(() => parseNode(publishersBytes, fanout, 'publishers', previous.publishers[0]));
    for (const pin of oldPins) replaced.add(pin[0]);
    replaced.add(previous.publishers[0]);
    // The publishers' half of buildV2Snapshot, over no capabilities.
    const snapshot = buildV2Snapshot({ registry: 'r', sequence: 0, generatedAt: '', publishers: input.publishers, documents: [], fanout });
    for (const file of snapshot.publisherBins) await write(file);
    await write(snapshot.publishersNode);
    publishersPin = pinOf(snapshot.publishersNode);
  }
  const payload: TopLevelPayload = { ...previous, capabilities, nodes, search, publishers: publishersPin };
  payload.segments = await rebuildWireSegments(root, {
    previous,
    payload,
    nodeRecords,
    publishers: input.publishers,
    write,
    replaced,
  });
  return { payload, written, built, counts, replaced, referenced };
}

/**
 * The wire segments of an incremental build: the segment of each recomputed node is made again
 * from its nodes' packs (the new ones, and the previous ones checked against their pins); every
 * segment when the grouping changed (the count passed a boundary of nodesPerSegment), the
 * publishers changed (segments hold display names), or the previous build had none.
 */
async function rebuildWireSegments(
  root: string,
  input: {
    previous: TopLevelPayload;
    payload: TopLevelPayload;
    nodeRecords: ReadonlyMap<number, SearchRecord[]>;
    publishers: readonly PublisherFile[] | null;
    write: (file: V2File) => Promise<void>;
    replaced: Set<string>;
  },
): Promise<SegmentPin[]> {
  const { previous, payload, nodeRecords } = input;
  const fanout = payload.fanout;
  const group = nodesPerSegment(payload);
  const old = previous.segments ?? [];
  const samePlan = input.publishers === null && old.length === fanout / group && old.every((pin) => pin[3] === group);
  let names: Record<string, { name: string }>;
  if (input.publishers !== null) {
    names = Object.create(null) as Record<string, { name: string }>;
    for (const file of input.publishers) names[file.id] = { name: file.name };
  } else names = await readPreviousPublishers(root, previous);
  const nameOf = publisherNameIn(names);
  const pins: SegmentPin[] = [];
  for (let first = 0; first < fanout; first += group) {
    const previousPin = samePlan ? old[first / group] : undefined;
    let changed = false;
    for (let n = first; n < first + group; n++) if (nodeRecords.has(n)) changed = true;
    if (previousPin !== undefined && !changed) {
      pins.push(previousPin);
      continue;
    }
    const records: SearchRecord[] = [];
    for (let n = first; n < first + group; n++) {
      const fresh = nodeRecords.get(n);
      if (fresh !== undefined) records.push(...fresh);
      else {
        const packPin = previous.search[n] as Pin;
        const packBytes = await readPinned(root, packPin);
        records.push(...parsed(() => parseSearchPack(gunzipSync(packBytes), n, fanout, packPin[0])));
      }
    }
    const file = wireSegmentFile(records, nameOf);
    await input.write(file);
    pins.push([file.path, file.bytes.length, first, group]);
  }
  for (const pin of old) if (!pins.some((p) => p[0] === pin[0])) input.replaced.add(pin[0]);
  return pins;
}

/** The previous snapshot's publishers (their display names), each file checked against its pin. */
async function readPreviousPublishers(root: string, previous: TopLevelPayload): Promise<Record<string, CataloguePublisher>> {
  const nodeBytes = await readPinned(root, previous.publishers);
  const pins = parsed(() => parseNode(nodeBytes, previous.fanout, 'publishers', previous.publishers[0]));
  const out: Record<string, CataloguePublisher> = Object.create(null) as Record<string, CataloguePublisher>;
  for (let b = 0; b < pins.length; b++) {
    const pin = pins[b] as Pin;
    const bytes = await readPinned(root, pin);
    Object.assign(
      out,
      parsed(() => parsePublisherBin(bytes, b, pins.length, pin[0])),
    );
  }
  return out;
}

/**
 * The bin records of some capabilities in the previous snapshot (the v1 subset's lookahead), each
 * node and bin read once and checked against its pin.
 */
export async function readPreviousRecords(
  root: string,
  previous: TopLevelPayload,
  ids: readonly string[],
): Promise<Map<string, CatalogueCapability>> {
  const fanout = previous.fanout;
  const bins = fanout * fanout;
  const byBin = new Map<number, string[]>();
  for (const id of ids) {
    const bin = binOf(id, bins);
    byBin.set(bin, [...(byBin.get(bin) ?? []), id]);
  }
  const nodes = new Map<number, Pin[]>();
  const out = new Map<string, CatalogueCapability>();
  for (const [bin, wanted] of byBin) {
    const node = Math.floor(bin / fanout);
    let pins = nodes.get(node);
    if (pins === undefined) {
      const nodePin = previous.nodes[node] as Pin;
      const nodeBytes = await readPinned(root, nodePin);
      const parsedPins = parsed(() => parseNode(nodeBytes, fanout, 'bins', nodePin[0]));
      nodes.set(node, parsedPins);
      pins = parsedPins;
    }
    const pin = pins[bin % fanout] as Pin;
    const binBytes = await readPinned(root, pin);
    const records = parsed(() => parseBin(binBytes, bin, bins, pin[0]));
    for (const id of wanted) {
      const record = records[id];
      if (record !== undefined) out.set(id, record);
    }
  }
  return out;
}

/**
 * Garbage collection after an incremental build: the files the rebuilt parts replaced are retired
 * unless the new snapshot still references them, and files retired earlier are deleted once past
 * the grace period or kept, exactly as collectV2Garbage would decide, without listing docs/.
 * `isLive` says whether the new snapshot references a path.
 */
export async function collectV2GarbageIncremental(
  root: string,
  replaced: ReadonlySet<string>,
  isLive: (path: string) => boolean,
  now: Date,
  graceMs = DEFAULT_GC_GRACE_MS,
): Promise<number> {
  const retired = await readRetired(root);
  const candidates = new Set([...Object.keys(retired), ...replaced]);
  const unreferenced: string[] = [];
  for (const path of candidates) {
    if (isLive(path) || !(await exists(v2Path(root, path)))) continue;
    unreferenced.push(path);
  }
  return retireAndCollect(root, unreferenced, now, graceMs, retired);
}

/** The empty bin's path: the one bin file two bins can share (ids belong to one bin only). */
export const EMPTY_BIN_PATH = EMPTY_BIN.path;

/**
 * Garbage collection (docs/deploy.md "Upload order"): a content-addressed file the current snapshot
 * does not reference is recorded as retired with the time; it is deleted once it has been retired
 * for longer than the grace period, so a client (or a cache) that read an older top level within
 * that period still finds every file it pins. A file referenced again is no longer retired.
 * `unreferenced` are the files on disk the snapshot does not reference; the record is written with
 * its paths sorted, so a full and an incremental build write the same record.
 */
async function retireAndCollect(
  root: string,
  unreferenced: readonly string[],
  now: Date,
  graceMs: number,
  known?: Record<string, string>,
): Promise<number> {
  const recordPath = v2Path(root, RETIRED_FILE);
  const retired = known ?? (await readRetired(root));
  const next: Record<string, string> = {};
  let collected = 0;
  for (const path of [...unreferenced].sort()) {
    const since = Object.hasOwn(retired, path) ? Date.parse(retired[path] as string) : Number.NaN;
    if (Number.isNaN(since)) {
      next[path] = now.toISOString();
    } else if (now.getTime() - since > graceMs) {
      await rm(v2Path(root, path), { force: true });
      collected++;
    } else {
      next[path] = retired[path] as string;
    }
  }
  await writeJsonAtomic(recordPath, next).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot write ${recordPath}`);
  });
  return collected;
}

async function readRetired(root: string): Promise<Record<string, string>> {
  try {
    const value = JSON.parse(await readFile(v2Path(root, RETIRED_FILE), 'utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, string>;
  } catch {
    // none yet (or damaged: every unreferenced file starts its grace period now)
  }
  return {};
}
