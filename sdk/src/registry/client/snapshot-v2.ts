/**
 * A client's copy of a registry's v2/ layout (docs/scaling.md "A refresh", "Cold start and offline
 * search"), kept under home/remotes/<name>/v2/:
 *
 *   catalog.json               the last accepted top level, byte for byte (verified again on load)
 *   files/nodes/<sha256>.json  the nodes of that snapshot, and the publishers' node
 *   files/bins/<sha256>.json   the bins fetched so far (on a refresh, or to open a capability)
 *   files/publishers/…         the publisher bins
 *   records/<node>.json        the search records of the bins under one node (derived), named by
 *                              the node's SHA-256; index.json keeps each file's SHA-256
 *
 * Every file under files/ is re-hashed against its name when read, so a damaged or edited copy is
 * never used (it is fetched again). A records file is checked against index.json; when anything
 * differs it is rebuilt from files that verify (the node's search pack, fetched again).
 *
 * A refresh follows changed pins only: the top level; for each node pin that changed, the node;
 * for each bin pin in it that changed, the bin; the records of changed bins replace those of the
 * old ones. A cold start reads every node and every search pack instead of every bin. The new top
 * level is stored last, so a failure halfway leaves the previous snapshot whole.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import { fetchCapped, resolveUrl, type FetchLike } from '../../cache/fetch.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import { sha256Hex } from '../../util/hash.js';
import {
  binOf,
  checkPin,
  parseBin,
  parseNode,
  parsePublisherBin,
  parseSearchPack,
  type Pin,
  type SearchRecord,
  type TopLevelPayload,
} from '../layout-v2.js';
import type { CatalogueCapability, CataloguePublisher } from '../types.js';

/** The most a search pack may unpack to (a gzip bomb stops here): 1 GiB over all packs is far past 500,000 records. */
const MAX_PACK_RAW_BYTES = 64 * 1024 * 1024;

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

  private recordsPath(nodeSha: string): string {
    return join(this.dir, 'records', `${nodeSha}.json`);
  }

  private get indexPath(): string {
    return join(this.dir, 'index.json');
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

  /** index.json: node SHA-256 → SHA-256 of its records file. */
  async readIndex(): Promise<Record<string, string>> {
    const bytes = await readOptional(this.indexPath).catch(() => null);
    if (bytes === null) return {};
    try {
      const value = JSON.parse(bytes.toString('utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  /** The stored search records of a node, when the file matches what index.json recorded; else null. */
  async readRecords(nodeSha: string, index: Record<string, string>): Promise<SearchRecord[] | null> {
    const expected = Object.hasOwn(index, nodeSha) ? index[nodeSha] : undefined;
    if (expected === undefined) return null;
    const bytes = await readOptional(this.recordsPath(nodeSha)).catch(() => null);
    if (bytes === null || sha256Hex(bytes) !== expected) return null;
    try {
      return JSON.parse(bytes.toString('utf8')) as SearchRecord[];
    } catch {
      return null;
    }
  }

  async writeRecords(nodeSha: string, records: readonly SearchRecord[]): Promise<string> {
    const bytes = Buffer.from(JSON.stringify(records), 'utf8');
    await writeFileAtomic(this.recordsPath(nodeSha), bytes);
    return sha256Hex(bytes);
  }

  async writeIndex(index: Record<string, string>): Promise<void> {
    await writeJsonAtomic(this.indexPath, index);
  }

  async writeTopLevel(bytes: Uint8Array): Promise<void> {
    await writeFileAtomic(this.topLevelPath, bytes);
  }

  /** Drops stored files and records the snapshot `keep` no longer references. */
  async prune(keep: { files: ReadonlySet<string>; records: ReadonlySet<string> }): Promise<void> {
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
    let names: string[] = [];
    try {
      names = await readdir(join(this.dir, 'records'));
    } catch {
      // none
    }
    for (const name of names) {
      if (!keep.records.has(name.replace(/\.json$/, ''))) await rm(join(this.dir, 'records', name), { force: true }).catch(() => undefined);
    }
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
 * Brings the store to the snapshot of `top` (already verified): nodes, publishers and search
 * records, following changed pins only. `previous` is the snapshot stored before, if any. Returns
 * the snapshot and the bytes downloaded. Nothing of the previous snapshot is removed here: the
 * caller stores the top level, then prunes.
 */
export async function syncSnapshot(
  store: V2Store,
  top: TopLevelPayload,
  previous: V2Snapshot | null,
  context: FetchContext,
): Promise<{ snapshot: V2Snapshot; keep: { files: Set<string>; records: Set<string> } }> {
  const fanout = top.fanout;
  const bins = fanout * fanout;
  const samePlan = previous !== null && previous.top.fanout === fanout;
  const keepFiles = new Set<string>();
  const keepRecords = new Set<string>();
  const index = await store.readIndex();
  const nextIndex: Record<string, string> = {};
  const nodes: Pin[][] = [];
  for (let n = 0; n < fanout; n++) {
    const pin = top.nodes[n] as Pin;
    keepFiles.add(pin[0]);
    const node = parseNode(await store.pinned(pin, context), fanout, 'bins', pin[0]);
    nodes.push(node);
    const sha = nodeSha(pin);
    keepRecords.add(sha);
    const stored = await store.readRecords(sha, index);
    if (stored !== null) {
      nextIndex[sha] = index[sha] as string;
      continue;
    }
    const oldPin = samePlan ? (previous.top.nodes[n] as Pin) : undefined;
    const oldRecords = oldPin === undefined ? null : await store.readRecords(nodeSha(oldPin), index);
    let records: SearchRecord[];
    if (oldRecords !== null && previous !== null) {
      // A refresh: the records of the bins whose pin changed are replaced by their new bins' records.
      const oldNode = previous.nodes[n] as Pin[];
      const changed = new Map<number, SearchRecord[]>();
      for (let b = 0; b < fanout; b++) {
        const binPin = node[b] as Pin;
        if (oldNode[b] !== undefined && (oldNode[b] as Pin)[0] === binPin[0]) continue;
        const binNumber = n * fanout + b;
        changed.set(binNumber, recordsOfBin(parseBin(await store.pinned(binPin, context), binNumber, bins, binPin[0])));
      }
      records = [];
      for (const record of oldRecords) {
        if (!changed.has(binOf(record[0], bins))) records.push(record);
      }
      for (const fresh of changed.values()) records.push(...fresh);
    } else {
      // A cold start (or a records file that failed its check): the node's search pack.
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
      records = parseSearchPack(raw, n, fanout, packPin[0]);
    }
    nextIndex[sha] = await store.writeRecords(sha, records).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot store the search records in ${store.dir}`);
    });
  }
  // Publishers: the publishers' node, then each publisher bin (stored copies that verify are reused).
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
  await store.writeIndex(nextIndex).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot store the search index in ${store.dir}`);
  });
  return { snapshot: { top, nodes, publishers }, keep: { files: keepFiles, records: keepRecords } };
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

/** Every search record of a snapshot: from the stored records files, rebuilt from the packs when one fails its check. */
export async function snapshotRecords(store: V2Store, snapshot: V2Snapshot, context: FetchContext | null): Promise<SearchRecord[]> {
  const index = await store.readIndex();
  const out: SearchRecord[] = [];
  let rebuilt = false;
  for (let n = 0; n < snapshot.top.fanout; n++) {
    const sha = nodeSha(snapshot.top.nodes[n] as Pin);
    let records = await store.readRecords(sha, index);
    if (records === null) {
      if (context === null) {
        throw new AdcapError(
          'E_DOWNLOAD',
          'The stored search index of this registry is missing or damaged and the registry cannot be read now.',
        );
      }
      const packPin = snapshot.top.search[n] as Pin;
      const raw = gunzipSync(await fetchPinned(packPin, context), { maxOutputLength: MAX_PACK_RAW_BYTES });
      records = parseSearchPack(raw, n, snapshot.top.fanout, packPin[0]);
      index[sha] = await store.writeRecords(sha, records);
      rebuilt = true;
    }
    for (const record of records) out.push(record);
  }
  if (rebuilt) await store.writeIndex(index).catch(() => undefined);
  return out;
}

/** The catalogue record of `id` from its bin (stored, or downloaded and checked), or null when the registry does not list it. */
export async function snapshotRecord(
  store: V2Store,
  snapshot: V2Snapshot,
  id: string,
  context: FetchContext | null,
): Promise<CatalogueCapability | null> {
  const fanout = snapshot.top.fanout;
  const bins = fanout * fanout;
  const bin = binOf(id, bins);
  const pin = (snapshot.nodes[Math.floor(bin / fanout)] as Pin[])[bin % fanout] as Pin;
  let bytes = await store.readPinned(pin);
  if (bytes === null) {
    if (context === null) return null;
    bytes = await store.pinned(pin, context);
  }
  const records = parseBin(bytes, bin, bins, pin[0]);
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
