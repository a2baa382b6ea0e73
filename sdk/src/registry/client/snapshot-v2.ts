/**
 * A client's copy of a registry's v2/ layout (docs/scaling.md "A refresh", "Cold start and offline
 * search"), kept under home/remotes/<name>/v2/:
 *
 *   catalog.json               the last accepted top level, byte for byte (verified again on load)
 *   files/nodes/<sha256>.json  the nodes of that snapshot, and the publishers' node
 *   files/bins/<sha256>.json   the bins fetched so far (on a refresh, or to open a capability)
 *   files/publishers/…         the publisher bins
 *
 * and beside it, in home/remotes/<name>/search-index/, the stored search index
 * (search-index/disk-index.ts): segments of a few consecutive nodes each (nodesPerSegment), holding
 * the search records of those nodes' bins and their inverted index, named by their nodes' SHA-256
 * in the manifest.
 *
 * Every file under files/ is re-hashed against its name when read, so a damaged or edited copy is
 * never used (it is fetched again). A segment is checked against its name and its nodes' pins;
 * when anything differs it is rebuilt from files that verify (the registry's wire segment of its
 * nodes, or their search packs, fetched again).
 *
 * A refresh follows changed pins only: the top level; for each node pin that changed, the node;
 * for each bin pin in it that changed, the bin; the segment of that node is rebuilt from the old
 * one's records with those of the changed bins replaced (records in, records out); a refresh never
 * downloads a wire segment. A cold start reads every node and, instead of every bin, each segment's
 * wire segment (search-index/wire-segment.ts: the index the registry built, decoded and checked),
 * or from a registry without them its nodes' search packs, each segment written before the next
 * one is read. The new top level is stored last, so a failure halfway leaves the previous snapshot
 * whole.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import { fetchCapped, resolveUrl, type FetchLike } from '../../cache/fetch.js';
import { writeFileAtomic } from '../../util/fs-atomic.js';
import {
  binOf,
  checkPin,
  parseBin,
  parseNode,
  parsePublisherBin,
  parseSearchPack,
  type Pin,
  type SearchRecord,
  type SegmentPin,
  type TopLevelPayload,
} from '../layout-v2.js';
import { finishIndex, type DiskSearchIndex, type IndexSegmentEntry, type SearchIndexStore } from '../search-index/disk-index.js';
import { encodeSegment, type Segment, type SegmentFileParts } from '../search-index/segment.js';
import { decodeWireSegment, nodesPerSegment } from '../search-index/wire-segment.js';
import type { CatalogueCapability, CataloguePublisher } from '../types.js';

/** The most a search pack may unpack to (a gzip bomb stops here): 1 GiB over all packs is far past 500,000 records. */
const MAX_PACK_RAW_BYTES = 64 * 1024 * 1024;
/** The most a wire segment may unpack to (a gzip bomb stops here): one holds about 32,768 records, a few MB. */
const MAX_WIRE_RAW_BYTES = 64 * 1024 * 1024;

/** One accepted snapshot in memory: the top level, its nodes and its publishers. */
export interface V2Snapshot {
  top: TopLevelPayload;
  /** node i → the pins of its F bins. */
  nodes: Pin[][];
  publishers: Record<string, CataloguePublisher>;
}

interface FetchContext {
  base: string;
  fetch: FetchLike | undefined;
  signal?: AbortSignal | undefined;
  /** Bytes downloaded so far in this refresh. */
  downloaded: number;
}

export class V2Store {
  constructor(readonly dir: string) {}

  get topLevelPath(): string {
    return join(this.dir, 'catalog.json');
  }

  private filePath(path: string): string {
    return join(this.dir, 'files', ...path.split('/'));
  }

  async readTopLevel(): Promise<Buffer | null> {
    return readOptional(this.topLevelPath);
  }

  /** A stored file whose bytes still match its pin, else null. */
  async readPinned(pin: Pin): Promise<Buffer | null> {
    const bytes = await readOptional(this.filePath(pin[0]));
    if (bytes === null) return null;
    try {
      checkPin(bytes, pin);
      return bytes;
    } catch {
      return null;
    }
  }

  /** The file of `pin`: the stored copy when it verifies, else downloaded, checked and stored. */
  async pinned(pin: Pin, context: FetchContext): Promise<Buffer> {
    const stored = await this.readPinned(pin);
    if (stored !== null) return stored;
    const bytes = await fetchPinned(pin, context);
    await writeFileAtomic(this.filePath(pin[0]), bytes).catch(() => undefined); // a cache: failure only costs a refetch
    return bytes;
  }

  async writeTopLevel(bytes: Uint8Array): Promise<void> {
    await writeFileAtomic(this.topLevelPath, bytes);
  }

  /** Drops stored files the snapshot `keep` no longer references. */
  async prune(keep: { files: ReadonlySet<string> }): Promise<void> {
    for (const dir of ['nodes', 'bins', 'publishers']) {
      let names: string[];
      try {
        names = await readdir(join(this.dir, 'files', dir));
      } catch {
        continue;
      }
      for (const name of names) {
        if (!keep.files.has(`${dir}/${name}`)) await rm(join(this.dir, 'files', dir, name), { force: true }).catch(() => undefined);
      }
    }
    // The search records of earlier clients (records/<node>.json, index.json): the index replaced them.
    await rm(join(this.dir, 'records'), { recursive: true, force: true }).catch(() => undefined);
    await rm(join(this.dir, 'index.json'), { force: true }).catch(() => undefined);
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Downloads a pinned file, reading at most its pinned size, and checks it against the pin. */
async function fetchPinned(pin: Pin, context: FetchContext): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await fetchCapped(resolveUrl(context.base, pin[0]), {
      maxBytes: pin[1],
      fetch: context.fetch,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
  } catch (error) {
    // More bytes than the pin says: other content than the signed top level pins (read no further).
    if (isAdcapError(error, 'E_DOWNLOAD') && error.details['maxBytes'] === pin[1]) {
      throw new AdcapError(
        'E_CATALOG',
        `The registry file v2/${pin[0]} is larger than the ${pin[1]} bytes its pin in the signed top level says; ` +
          'the registry or a mirror served other content, so it was refused.',
        { details: { path: pin[0] }, cause: error },
      );
    }
    throw error;
  }
  context.downloaded += bytes.length;
  checkPin(bytes, pin);
  return bytes;
}

function nodeSha(pin: Pin): string {
  return pin[0].slice('nodes/'.length, -'.json'.length);
}

/** Search records of one bin's catalogue records. */
function recordsOfBin(records: Record<string, CatalogueCapability>): SearchRecord[] {
  return Object.keys(records)
    .sort()
    .map((id) => {
      const c = records[id] as CatalogueCapability;
      const flags = (c.tier === 'pro' ? 1 : 0) | (c.access === 'entitled' ? 2 : 0) | (c.deprecated ? 4 : 0);
      return [id, c.name, c.summary, c.keywords, c.latest ?? null, c.latestPrerelease ?? null, flags] as SearchRecord;
    });
}

/**
 * Brings the store to the snapshot of `top` (already verified): nodes, publishers and the search
 * index, following changed pins only. `previous` is the snapshot stored before, if any. Returns
 * the snapshot, the files it references and its search index. Nothing of the previous snapshot is
 * removed here: the caller stores the top level, then prunes.
 */
export async function syncSnapshot(
  store: V2Store,
  indexStore: SearchIndexStore,
  top: TopLevelPayload,
  previous: V2Snapshot | null,
  context: FetchContext,
): Promise<{ snapshot: V2Snapshot; keep: { files: Set<string> }; index: DiskSearchIndex }> {
  const fanout = top.fanout;
  const keepFiles = new Set<string>();
  const nodes: Pin[][] = [];
  for (let n = 0; n < fanout; n++) {
    const pin = top.nodes[n] as Pin;
    keepFiles.add(pin[0]);
    nodes.push(parseNode(await store.pinned(pin, context), fanout, 'bins', pin[0]));
  }
  // Publishers: the publishers' node, then each publisher bin (stored copies that verify are
  // reused); read before the index, whose segments hold their display names.
  keepFiles.add(top.publishers[0]);
  const publisherNode = parseNode(await store.pinned(top.publishers, context), fanout, 'publishers', top.publishers[0]);
  const publishers: Record<string, CataloguePublisher> = {};
  for (let b = 0; b < publisherNode.length; b++) {
    const pin = publisherNode[b] as Pin;
    keepFiles.add(pin[0]);
    Object.assign(publishers, parsePublisherBin(await store.pinned(pin, context), b, publisherNode.length, pin[0]));
  }
  // Bins of this snapshot held already (fetched to open a capability) stay.
  for (const node of nodes) for (const pin of node) keepFiles.add(pin[0]);
  const snapshot: V2Snapshot = { top, nodes, publishers };
  const index = await syncIndex(store, indexStore, snapshot, previous, context);
  return { snapshot, keep: { files: keepFiles }, index };
}

/** The display name search matches for a publisher: its record's name, else its id. */
function publisherNameIn(publishers: Readonly<Record<string, CataloguePublisher>>): (publisher: string) => string {
  return (publisher) => (Object.hasOwn(publishers, publisher) ? publishers[publisher]?.name : undefined) ?? publisher;
}

/** Whether a segment was built with the display names `publishers` gives now. */
function sameNames(segment: Segment, publishers: Readonly<Record<string, CataloguePublisher>>): boolean {
  const nameOf = publisherNameIn(publishers);
  return segment.publishers().every((p) => nameOf(p.id) === p.name);
}

/** A node's search records from its search pack (downloaded, checked against its pin, unpacked within a cap). */
async function packRecords(top: TopLevelPayload, n: number, context: FetchContext | null): Promise<SearchRecord[]> {
  if (context === null) {
    throw new AdcapError(
      'E_DOWNLOAD',
      'The stored search index of this registry is missing or damaged and cannot be rebuilt offline; ' +
        'it is rebuilt from the registry by the next update() or search() that can reach it.',
    );
  }
  const packPin = top.search[n] as Pin;
  const gz = await fetchPinned(packPin, context);
  let raw: Buffer;
  try {
    raw = gunzipSync(gz, { maxOutputLength: MAX_PACK_RAW_BYTES });
  } catch (error) {
    throw new AdcapError(
      'E_CATALOG',
      `The search pack v2/${packPin[0]} does not unpack (${(error as Error).message}); the registry must rebuild it.`,
      {
        cause: error,
      },
    );
  }
  return parseSearchPack(raw, n, top.fanout, packPin[0]);
}

export { nodesPerSegment };

/**
 * The size to unpack a gzip stream into, from its own statement of its unpacked size (its last 4
 * bytes, ISIZE, RFC 1952 §2.3.1), one more byte, within `cap`: the output is then one buffer,
 * without a chunk of 16 KiB at a time joined at the end. A hint only: a stream that unpacks to more
 * takes more chunks (zlib refuses a single stream whose ISIZE is not its length), and
 * `maxOutputLength` still stops it at the cap.
 */
function unpackedSizeHint(gz: Buffer, cap: number): number {
  if (gz.length < 18) return 16 * 1024;
  return Math.max(64, Math.min(gz.readUInt32LE(gz.length - 4) + 1, cap));
}

/** The pin of the wire segment of nodes first … first+group-1, when the registry publishes one. */
function wireSegmentPin(top: TopLevelPayload, first: number, group: number): SegmentPin | undefined {
  return top.segments?.find((pin) => pin[2] === first && pin[3] === group);
}

/**
 * A segment's bytes from the registry's wire segment (docs/scaling.md "Wire segments"): downloaded
 * at most its pinned size and checked against its pin, unpacked within a cap, decoded with every
 * number checked (wire-segment.ts). The publishers' display names it holds must be those of the
 * verified publishers' node: a wire segment that disagrees is the registry contradicting itself in
 * files one signature covers, and is refused.
 */
async function wireSegment(
  top: TopLevelPayload,
  pin: SegmentPin,
  publishers: Readonly<Record<string, CataloguePublisher>>,
  context: FetchContext,
): Promise<{ file: SegmentFileParts; count: number }> {
  const path = pin[0];
  const gz = await fetchPinned([path, pin[1]], context);
  let raw: Buffer;
  try {
    raw = gunzipSync(gz, { maxOutputLength: MAX_WIRE_RAW_BYTES, chunkSize: unpackedSizeHint(gz, MAX_WIRE_RAW_BYTES) });
  } catch (error) {
    throw new AdcapError(
      'E_CATALOG',
      `The search segment v2/${path} does not unpack (${(error as Error).message}); the registry must rebuild it.`,
      {
        cause: error,
        details: { file: path, reason: 'wire-segment-malformed' },
      },
    );
  }
  const { file, count, publishers: named } = decodeWireSegment(raw, { path, fanout: top.fanout, firstNode: pin[2], nodes: pin[3] });
  const nameOf = publisherNameIn(publishers);
  if (!named.every((p) => nameOf(p.id) === p.name)) {
    throw new AdcapError(
      'E_CATALOG',
      `The search segment v2/${path} names publishers other than the registry's publisher files do; the registry must rebuild it.`,
      { details: { file: path, reason: 'wire-segment-publishers' } },
    );
  }
  return { file, count };
}

/**
 * The stored segments holding exactly the nodes `shas` between them, in order (each of one or more
 * consecutive nodes, each checked against its hash by readSegment); null when any is missing or damaged.
 */
async function storedParts(
  indexStore: SearchIndexStore,
  byNodes: ReadonlyMap<string, IndexSegmentEntry>,
  shas: readonly string[],
): Promise<Segment[] | null> {
  const parts: Segment[] = [];
  let at = 0;
  while (at < shas.length) {
    let found: { entry: IndexSegmentEntry; length: number } | null = null;
    for (let end = shas.length; end > at && found === null; end--) {
      const entry = byNodes.get(nodesKey(shas.slice(at, end)));
      if (entry !== undefined) found = { entry, length: end - at };
    }
    if (found === null) return null;
    const segment = await indexStore.readSegment(found.entry);
    if (segment === null) return null;
    parts.push(segment);
    at += found.length;
  }
  return parts;
}

/**
 * Whether `id` is listed, answered from the one stored index segment that can hold it (the
 * segment of its bin's node, nodesPerSegment) without opening the rest of the index: a run's
 * revocation check, an install's lookup and `list` need one membership, not search (at 100,000
 * capabilities the whole index is about 8 MiB of segments and a dictionary). The segment is read
 * as every segment is (readSegment: its bytes hash to its name, its count and bounds are checked)
 * and only when the manifest says it was built from this snapshot's very nodes (the SHA-256 of
 * each, as syncIndex keys it), so it holds exactly those nodes' records. Null when there is no
 * such segment (none stored yet, built from other nodes, damaged): the caller opens the whole
 * index (syncIndex), which makes it again.
 */
export async function storedSegmentLists(indexStore: SearchIndexStore, snapshot: V2Snapshot, id: string): Promise<boolean | null> {
  const { top } = snapshot;
  const group = nodesPerSegment(top);
  const node = Math.floor(binOf(id, top.fanout * top.fanout) / top.fanout);
  const first = node - (node % group);
  const key = nodesKey(Array.from({ length: group }, (_, i) => nodeSha(top.nodes[first + i] as Pin)));
  const manifest = await indexStore.readManifest();
  if (manifest?.source.layout !== 'v2') return null;
  const entry = manifest.segments.find((e) => e.nodes !== undefined && nodesKey(e.nodes) === key);
  const segment = entry === undefined ? null : await indexStore.readSegment(entry);
  return segment === null ? null : segment.find(id) >= 0;
}

/** The key of a segment in the manifest: the SHA-256 of each of its nodes, in order. */
function nodesKey(nodes: readonly string[]): string {
  return nodes.join(' ');
}

/**
 * The search index of `snapshot` (docs/scaling.md "A refresh", step 3): segments of consecutive
 * nodes (nodesPerSegment); for each, the stored segment when it was built from these very nodes
 * (and with today's publisher names); else the previous snapshot's segment of the same nodes with
 * the records of its changed bins replaced; else the nodes' search packs, one at a time. Each new
 * segment is written before the next is made, and the manifest last. `context` null: nothing may
 * be downloaded (a segment that needs a pack is then an E_DOWNLOAD).
 */
export async function syncIndex(
  store: V2Store,
  indexStore: SearchIndexStore,
  snapshot: V2Snapshot,
  previous: V2Snapshot | null,
  context: FetchContext | null,
): Promise<DiskSearchIndex> {
  const { top, publishers } = snapshot;
  const fanout = top.fanout;
  const bins = fanout * fanout;
  const group = nodesPerSegment(top);
  const samePlan = previous !== null && previous.top.fanout === fanout && nodesPerSegment(previous.top) === group;
  const manifest = await indexStore.readManifest();
  const byNodes = new Map<string, IndexSegmentEntry>();
  if (manifest?.source.layout === 'v2')
    for (const entry of manifest.segments) if (entry.nodes !== undefined) byNodes.set(nodesKey(entry.nodes), entry);
  const namesMayDiffer = manifest?.source.layout !== 'v2' || manifest.source.publishers !== top.publishers[0];
  const nameOf = publisherNameIn(publishers);
  const entries: IndexSegmentEntry[] = [];
  const segments: Segment[] = [];
  let wrote = false;
  let writing: Promise<void> = Promise.resolve();
  // A write still pending when anything fails is let finish (its file is named by its hash) before the error leaves.
  try {
    for (let first = 0; first < fanout; first += group) {
      const nodeNumbers = Array.from({ length: group }, (_, i) => first + i);
      const shas = nodeNumbers.map((n) => nodeSha(top.nodes[n] as Pin));
      const entry = byNodes.get(nodesKey(shas));
      const stored = entry === undefined ? null : await indexStore.readSegment(entry);
      if (stored !== null && entry !== undefined && (!namesMayDiffer || sameNames(stored, publishers))) {
        entries.push(entry);
        segments.push(stored);
        continue;
      }
      let records: SearchRecord[] | null = null;
      const parts = stored === null && shas.length > 1 ? await storedParts(indexStore, byNodes, shas) : null;
      if (stored !== null) {
        // Built from these nodes, but a publisher's display name changed since.
        records = stored.recordsInIdOrder();
      } else if (parts !== null) {
        // These nodes are stored, each in a segment of its own (an index of an earlier SDK, or of a
        // smaller registry): they are grouped into one segment without downloading anything.
        records = parts.flatMap((part) => part.recordsInIdOrder());
      } else if (samePlan && context !== null) {
        const oldEntry = byNodes.get(nodesKey(nodeNumbers.map((n) => nodeSha(previous.top.nodes[n] as Pin))));
        const old = oldEntry === undefined ? null : await indexStore.readSegment(oldEntry);
        if (old !== null) {
          // A refresh: the records of the bins whose pin changed are replaced by their new bins' records.
          const changed = new Map<number, SearchRecord[]>();
          for (const n of nodeNumbers) {
            const oldNode = previous.nodes[n] as Pin[];
            const node = snapshot.nodes[n] as Pin[];
            for (let b = 0; b < fanout; b++) {
              const binPin = node[b] as Pin;
              if (oldNode[b] !== undefined && (oldNode[b] as Pin)[0] === binPin[0]) continue;
              const binNumber = n * fanout + b;
              changed.set(binNumber, recordsOfBin(parseBin(await store.pinned(binPin, context), binNumber, bins, binPin[0])));
            }
          }
          records = [];
          for (const record of old.recordsInIdOrder()) {
            if (changed.size === 0 || !changed.has(binOf(record[0], bins))) records.push(record);
          }
          for (const fresh of changed.values()) records.push(...fresh);
        }
      }
      // A cold start (or a segment that failed its check): the registry's wire segment of these
      // nodes when it publishes one, else the nodes' search packs, one at a time.
      const wirePin = records === null && context !== null ? wireSegmentPin(top, first, group) : undefined;
      // Bytes this process made or checked (decodeWireSegment): held without their summaries,
      // which are read from the file written (docs/scaling.md "Client memory").
      let write: (() => Promise<{ entry: IndexSegmentEntry; segment: Segment }>) | undefined;
      if (wirePin !== undefined && context !== null) {
        // A host that does not serve v2/index/ (a web server configured before wire segments: 404,
        // 403 or 410) leaves the packs; anything else, a file that does not match its pin above all,
        // is an error as for any pinned file.
        const wire = await wireSegment(top, wirePin, publishers, context).catch((error: unknown) => {
          if (meansNoV2(error)) return null;
          throw error;
        });
        if (wire !== null) write = () => indexStore.writeSegmentParts(wire.file, wire.count, shas, { checked: true });
      }
      if (write === undefined) {
        if (records === null) {
          records = [];
          for (const n of nodeNumbers) for (const record of await packRecords(top, n, context)) records.push(record);
        }
        const bytes = encodeSegment(records, nameOf);
        const count = records.length;
        write = () => indexStore.writeSegment(bytes, count, shas, { checked: true });
      }
      // Written (and synced to disk) while the next segment is fetched and decoded: one write pending at most.
      await writing;
      const slot = entries.length;
      entries.length = slot + 1;
      segments.length = slot + 1;
      writing = write().then(
        (written) => {
          entries[slot] = written.entry;
          segments[slot] = written.segment;
        },
        (error: unknown) => {
          throw asAdcapError(error, `Cannot store the search index in ${indexStore.dir}`);
        },
      );
      // Awaited before the next write or the manifest; a failure before that leaves it unobserved here.
      writing.catch(() => undefined);
      wrote = true;
    }
  } finally {
    await writing.catch(() => undefined);
  }
  await writing;
  const changed = wrote || manifest === null || namesMayDiffer || manifest.segments.length !== entries.length;
  return finishIndex(indexStore, { layout: 'v2', publishers: top.publishers[0] }, entries, segments, manifest, changed).catch(
    (error: unknown) => {
      throw asAdcapError(error, `Cannot store the search index in ${indexStore.dir}`);
    },
  );
}

/**
 * The stored snapshot for a verified stored top level: its nodes and publishers from files that
 * verify; null when a file is missing or damaged (the caller then refreshes from the registry).
 */
export async function loadSnapshot(store: V2Store, top: TopLevelPayload): Promise<V2Snapshot | null> {
  const nodes: Pin[][] = [];
  for (const pin of top.nodes) {
    const bytes = await store.readPinned(pin);
    if (bytes === null) return null;
    nodes.push(parseNode(bytes, top.fanout, 'bins', pin[0]));
  }
  const publisherNodeBytes = await store.readPinned(top.publishers);
  if (publisherNodeBytes === null) return null;
  const publisherNode = parseNode(publisherNodeBytes, top.fanout, 'publishers', top.publishers[0]);
  const publishers: Record<string, CataloguePublisher> = {};
  for (let b = 0; b < publisherNode.length; b++) {
    const pin = publisherNode[b] as Pin;
    const bytes = await store.readPinned(pin);
    if (bytes === null) return null;
    Object.assign(publishers, parsePublisherBin(bytes, b, publisherNode.length, pin[0]));
  }
  return { top, nodes, publishers };
}

/** The catalogue record of `id` from its bin (stored, or downloaded and checked), or null when the registry does not list it. */
export async function snapshotRecord(
  store: V2Store,
  snapshot: V2Snapshot,
  id: string,
  context: FetchContext | null,
): Promise<CatalogueCapability | null> {
  const { bin, bins, pin } = binPin(snapshot, id);
  let bytes = await store.readPinned(pin);
  if (bytes === null) {
    if (context === null) return null;
    bytes = await store.pinned(pin, context);
  }
  return recordIn(parseBin(bytes, bin, bins, pin[0]), id);
}

/**
 * The record of `id` from its bin when the bin is stored and matches its pin (the node's, which
 * the verified top level pins): the bin lists every capability of its hash, so it answers for
 * `id` either way. Undefined when the bin is not stored: the caller asks the index first whether
 * there is anything to download.
 */
export async function storedBinRecord(store: V2Store, snapshot: V2Snapshot, id: string): Promise<CatalogueCapability | null | undefined> {
  const { bin, bins, pin } = binPin(snapshot, id);
  const bytes = await store.readPinned(pin);
  return bytes === null ? undefined : recordIn(parseBin(bytes, bin, bins, pin[0]), id);
}

function binPin(snapshot: V2Snapshot, id: string): { bin: number; bins: number; pin: Pin } {
  const fanout = snapshot.top.fanout;
  const bins = fanout * fanout;
  const bin = binOf(id, bins);
  return { bin, bins, pin: (snapshot.nodes[Math.floor(bin / fanout)] as Pin[])[bin % fanout] as Pin };
}

function recordIn(records: Record<string, CatalogueCapability>, id: string): CatalogueCapability | null {
  return Object.hasOwn(records, id) ? (records[id] as CatalogueCapability) : null;
}

/** True when an error of a v2 probe means "no v2/ here" (a version 1 registry): a missing file. */
export function meansNoV2(error: unknown): boolean {
  if (!isAdcapError(error, 'E_DOWNLOAD')) return false;
  const status = error.details['status'];
  return status === 404 || status === 403 || status === 410;
}

export function fetchContext(base: string, fetch: FetchLike | undefined, signal?: AbortSignal): FetchContext {
  return { base, fetch, signal, downloaded: 0 };
}

async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asAdcapError(error, `Cannot read ${path}`);
  }
}

export async function ensureDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
}
