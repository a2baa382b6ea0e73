/**
 * The registry's second layout, `v2/` (docs/scaling.md "Version 2: hashed bins under one signed
 * top level"; docs/registry.md "The v2 layout"): pure functions from a registry's capabilities and
 * publishers to its files, and the shape checks a client applies to each file it reads.
 *
 *   v2/catalog.json              signed top level (context arcotheon-catalog-v2), the only mutable file
 *   v2/nodes/<sha256>.json       F pins of bins: [[path, size], …]; also the publishers' node
 *   v2/bins/<sha256>.json        the catalogue records of the capabilities whose sha256(id) falls in it
 *   v2/publishers/<sha256>.json  publisher records, binned by sha256(publisher id)
 *   v2/search/<sha256>.json.gz   search packs: compact records of the F bins under one node
 *   v2/docs/<sha256>.json        package documents, named by the SHA-256 of their bytes
 *   v2/index/<sha256>.seg.gz     wire segments: the search index of a client segment's nodes, built
 *                                (search-index/wire-segment.ts), for a new client's cold start
 *
 * Every file but the top level is named by the SHA-256 of its bytes, so a pin is a path and a
 * size, a file never changes once written, and a client that read top level S reads exactly
 * snapshot S (TUF's consistent snapshots).
 */
import { hash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { AdcapError } from '../errors.js';
import { splitCapabilityId } from '../util/capability-id.js';
import { sha256Hex, SHA256_HEX } from '../util/hash.js';
import { catalogueCapability } from './documents.js';
import type { CatalogueCapability, CataloguePublisher, PackageDocument, PublisherFile, PublisherKey } from './types.js';

/** A pin of a content-addressed file: its path relative to v2/ and its size in bytes. */
export type Pin = [path: string, size: number];

/**
 * A pin of a wire segment (docs/scaling.md "Wire segments"): its path, size, and the consecutive
 * nodes whose records it holds (the first node's number and how many).
 */
export type SegmentPin = [path: string, size: number, firstNode: number, nodes: number];

/** The signed payload of `v2/catalog.json`. */
export interface TopLevelPayload {
  registry: string;
  spec: 2;
  /** Grows on every build, shared with v1/catalog.json of the same build (rollback floor). */
  sequence: number;
  /** When it was built (UTC); clients refuse one older than their maximum age (freeze). */
  generatedAt: string;
  /** Fan-out F: F nodes of F bins each, F search packs. */
  fanout: number;
  /** Number of capabilities in the snapshot. */
  capabilities: number;
  /** Pins of the F nodes, node i holding bins i·F … i·F+F-1. */
  nodes: Pin[];
  /** Pins of the F search packs, pack i holding the records of node i's bins. */
  search: Pin[];
  /** Pin of the publishers' node (pins of the publisher bins). */
  publishers: Pin;
  /**
   * Pins of the wire segments, in node order, covering every node once (absent in a registry
   * built before them: a client then builds its index from the search packs).
   */
  segments?: SegmentPin[];
}

/**
 * A compact search record (docs/scaling.md "Cold start and offline search"): what search shows and
 * nothing else; the pin of the package document is in the capability's bin.
 * flags: 1 tier pro, 2 access entitled, 4 deprecated.
 */
export type SearchRecord = [
  id: string,
  name: string,
  summary: string,
  keywords: string[],
  latest: string | null,
  latestPrerelease: string | null,
  flags: number,
];

export const SEARCH_FLAG_PRO = 1;
export const SEARCH_FLAG_ENTITLED = 2;
export const SEARCH_FLAG_DEPRECATED = 4;

/** Records per bin the fan-out aims at (docs/scaling.md: leaves of at most about 32 records). */
const RECORDS_PER_BIN = 32;

/** F: the smallest power of two, at least 4, whose F² bins hold about 32 records each. */
export function fanoutFor(count: number): number {
  let fanout = 4;
  while (fanout * fanout * RECORDS_PER_BIN < count) fanout *= 2;
  return fanout;
}

/**
 * The bin of a capability id: sha256(id) mod bins (uniform, stable, independent of names), taken
 * from the hash's first 32 bits (big-endian; its first 8 hex digits). One-shot `hash`: a client
 * checks the bin of every record a wire segment or pack lists.
 */
export function binOf(id: string, bins: number): number {
  // The first 4 bytes of the digest, big-endian: read from its Latin-1 string (one byte a code unit),
  // which a client checking every id of a wire segment makes about three times faster than a Buffer.
  const digest = hash('sha256', id, 'binary');
  return (
    ((digest.charCodeAt(0) * 0x1000000 + ((digest.charCodeAt(1) << 16) | (digest.charCodeAt(2) << 8) | digest.charCodeAt(3))) >>> 0) % bins
  );
}

/** The search record of a catalogue record. */
export function searchRecordOf(id: string, c: Omit<CatalogueCapability, 'doc'>): SearchRecord {
  const flags =
    (c.tier === 'pro' ? SEARCH_FLAG_PRO : 0) |
    (c.access === 'entitled' ? SEARCH_FLAG_ENTITLED : 0) |
    (c.deprecated ? SEARCH_FLAG_DEPRECATED : 0);
  return [id, c.name, c.summary, c.keywords, c.latest ?? null, c.latestPrerelease ?? null, flags];
}

/** The fields of a catalogue record a search record carries (everything but the document pin). */
export type SearchableCapability = Omit<CatalogueCapability, 'doc'>;

export function capabilityOfSearchRecord(record: SearchRecord): SearchableCapability {
  const [id, name, summary, keywords, latest, latestPrerelease, flags] = record;
  const capability: SearchableCapability = {
    name,
    summary,
    publisher: id.slice(0, id.indexOf('/')),
    tier: (flags & SEARCH_FLAG_PRO) !== 0 ? 'pro' : 'free',
    access: (flags & SEARCH_FLAG_ENTITLED) !== 0 ? 'entitled' : 'public',
    keywords,
    deprecated: (flags & SEARCH_FLAG_DEPRECATED) !== 0,
  };
  if (latest !== null) capability.latest = latest;
  if (latestPrerelease !== null) capability.latestPrerelease = latestPrerelease;
  return capability;
}

/** A content-addressed file of the layout: path relative to v2/ and its bytes. */
export interface V2File {
  path: string;
  bytes: Buffer;
}

function contentFile(dir: string, bytes: Buffer, extension: string): V2File {
  return { path: `${dir}/${sha256Hex(bytes)}${extension}`, bytes };
}

function pinOf(file: V2File): Pin {
  return [file.path, file.bytes.length];
}

/** Everything one build of v2/ consists of, before the top level is signed. */
export interface V2Snapshot {
  payload: TopLevelPayload;
  docs: V2File[];
  bins: V2File[];
  nodes: V2File[];
  packs: V2File[];
  publisherBins: V2File[];
  publishersNode: V2File;
  /** The search records of each node (what its pack holds). */
  searchRecords: SearchRecord[][];
  /** Wire segments (builder/build-v2.ts withWireSegments adds them and their pins). */
  segments: V2File[];
}

export interface V2SnapshotInput {
  registry: string;
  sequence: number;
  generatedAt: string;
  publishers: readonly PublisherFile[];
  /** Each package document with the exact bytes written for it (its name is their SHA-256). */
  documents: readonly { doc: PackageDocument; bytes: Uint8Array }[];
  /** Fan-out; default fanoutFor(number of documents). */
  fanout?: number;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/**
 * The files of one v2 snapshot (docs/scaling.md "Files"): a pure function of the capabilities and
 * publishers, so an unchanged bin, node or pack has the same bytes, hence the same name, build
 * after build, and a publish changes one bin, one node, one pack and the top level.
 */
export function buildV2Snapshot(input: V2SnapshotInput): V2Snapshot {
  const fanout = input.fanout ?? fanoutFor(input.documents.length);
  const binCount = fanout * fanout;
  const byBin: Array<Array<[string, CatalogueCapability]>> = Array.from({ length: binCount }, () => []);
  const docs: V2File[] = [];
  for (const { doc, bytes } of [...input.documents].sort((a, b) => compareCodeUnits(a.doc.id, b.doc.id))) {
    const file = contentFile('docs', Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), '.json');
    docs.push(file);
    const record = catalogueCapability(doc, bytes);
    record.doc = { path: file.path, sha256: sha256Hex(bytes) };
    byBin[binOf(doc.id, binCount)]?.push([doc.id, record]);
  }
  const bins = byBin.map((records) => contentFile('bins', jsonBytes(Object.fromEntries(records)), '.json'));
  const nodes: V2File[] = [];
  const packs: V2File[] = [];
  const searchRecords: SearchRecord[][] = [];
  for (let n = 0; n < fanout; n++) {
    nodes.push(contentFile('nodes', jsonBytes(bins.slice(n * fanout, (n + 1) * fanout).map(pinOf)), '.json'));
    const records = byBin
      .slice(n * fanout, (n + 1) * fanout)
      .flat()
      .map(([id, capability]) => searchRecordOf(id, capability));
    searchRecords.push(records);
    // Level 9 and no timestamp: the same records always give the same bytes, so the same name.
    packs.push(contentFile('search', gzipSync(JSON.stringify(records), { level: 9 }), '.json.gz'));
  }
  const publisherBinCount = fanout;
  const publishersByBin: Array<Array<[string, CataloguePublisher]>> = Array.from({ length: publisherBinCount }, () => []);
  for (const file of [...input.publishers].sort((a, b) => compareCodeUnits(a.id, b.id))) {
    publishersByBin[binOf(file.id, publisherBinCount)]?.push([
      file.id,
      { name: file.name, keys: file.keys.map((key): PublisherKey => ({ ...key })) },
    ]);
  }
  const publisherBins = publishersByBin.map((records) => contentFile('publishers', jsonBytes(Object.fromEntries(records)), '.json'));
  const publishersNode = contentFile('nodes', jsonBytes(publisherBins.map(pinOf)), '.json');
  const payload: TopLevelPayload = {
    registry: input.registry,
    spec: 2,
    sequence: input.sequence,
    generatedAt: input.generatedAt,
    fanout,
    capabilities: input.documents.length,
    nodes: nodes.map(pinOf),
    search: packs.map(pinOf),
    publishers: pinOf(publishersNode),
  };
  return { payload, docs, bins, nodes, packs, publisherBins, publishersNode, searchRecords, segments: [] };
}

// ---- Shape checks a client applies (every failure is E_CATALOG: the registry cannot be trusted) ----

function malformed(what: string, problem: string): AdcapError {
  return new AdcapError('E_CATALOG', `The registry's ${what} is malformed: ${problem}; the registry must rebuild it.`, {
    details: { file: what },
  });
}

const PIN_PATH = /^(nodes|bins|publishers|docs)\/[0-9a-f]{64}\.json$|^search\/[0-9a-f]{64}\.json\.gz$|^index\/[0-9a-f]{64}\.seg\.gz$/;

function isPin(value: unknown, dir: string): value is Pin {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    PIN_PATH.test(value[0]) &&
    value[0].startsWith(`${dir}/`) &&
    Number.isSafeInteger(value[1]) &&
    (value[1] as number) >= 0
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_FANOUT = 4096;

/** The top level's payload (spec: 2), checked field by field. */
export function checkTopLevelPayload(value: unknown): TopLevelPayload {
  const what = 'top level (v2/catalog.json)';
  if (!isPlainObject(value)) throw malformed(what, 'the payload is not an object');
  const { registry, spec, sequence, generatedAt, fanout, capabilities, nodes, search, publishers, segments } = value;
  if (typeof registry !== 'string' || registry.length === 0) throw malformed(what, '/registry must be a name');
  if (spec !== 2) throw malformed(what, '/spec must be 2');
  if (!Number.isSafeInteger(sequence) || (sequence as number) < 0) throw malformed(what, '/sequence must be a whole number');
  if (
    typeof generatedAt !== 'string' ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(generatedAt) ||
    Number.isNaN(Date.parse(generatedAt))
  ) {
    throw malformed(what, '/generatedAt must be a UTC date-time such as 2026-11-30T12:00:00Z');
  }
  if (!Number.isSafeInteger(fanout) || (fanout as number) < 1 || (fanout as number) > MAX_FANOUT)
    throw malformed(what, '/fanout must be 1-4096');
  if (!Number.isSafeInteger(capabilities) || (capabilities as number) < 0) throw malformed(what, '/capabilities must be a count');
  const f = fanout as number;
  if (!Array.isArray(nodes) || nodes.length !== f || !nodes.every((pin) => isPin(pin, 'nodes'))) {
    throw malformed(what, `/nodes must be ${f} pins [path, size] of nodes/<sha256>.json`);
  }
  if (!Array.isArray(search) || search.length !== f || !search.every((pin) => isPin(pin, 'search'))) {
    throw malformed(what, `/search must be ${f} pins [path, size] of search/<sha256>.json.gz`);
  }
  if (!isPin(publishers, 'nodes')) throw malformed(what, '/publishers must be a pin [path, size] of nodes/<sha256>.json');
  if (segments !== undefined && !segmentPinsCover(segments, f)) {
    throw malformed(
      what,
      `/segments must be pins [path, size, first node, nodes] of index/<sha256>.seg.gz covering nodes 0-${f - 1} in order`,
    );
  }
  return value as unknown as TopLevelPayload;
}

/** Wire segment pins: each [path, size, first, count] with count ≥ 1, consecutive, covering nodes 0 … fanout-1. */
function segmentPinsCover(value: unknown, fanout: number): value is SegmentPin[] {
  if (!Array.isArray(value)) return false;
  let next = 0;
  for (const pin of value as unknown[]) {
    if (!Array.isArray(pin) || pin.length !== 4 || !isPin(pin.slice(0, 2), 'index')) return false;
    const [, , first, count] = pin as unknown[];
    if (first !== next || !Number.isSafeInteger(count) || (count as number) < 1) return false;
    next += count as number;
  }
  return next === fanout;
}

/** A file's bytes match its pin: size and the SHA-256 in its name (E_CATALOG otherwise). */
export function checkPin(bytes: Uint8Array, pin: Pin): void {
  const [path, size] = pin;
  const name = path.slice(path.indexOf('/') + 1, path.indexOf('.'));
  const actual = sha256Hex(bytes);
  if (bytes.byteLength !== size || actual !== name || !SHA256_HEX.test(name)) {
    throw new AdcapError(
      'E_CATALOG',
      `The registry file v2/${path} does not match its pin in the signed top level (got ${bytes.byteLength} bytes hashing to ${actual}, ` +
        `expected ${size} bytes); the registry or a mirror served other content, so it was refused.`,
      { details: { path, expected: name, actual } },
    );
  }
}

/** A node: exactly `count` pins of files under `dir`. */
export function parseNode(bytes: Uint8Array, count: number, dir: 'bins' | 'publishers', path: string): Pin[] {
  const value = parseJsonBytes(bytes, path);
  if (!Array.isArray(value) || value.length !== count || !value.every((pin) => isPin(pin, dir))) {
    throw malformed(`node v2/${path}`, `it must be ${count} pins [path, size] of ${dir}/<sha256>.json`);
  }
  return value as Pin[];
}

function parseJsonBytes(bytes: Uint8Array, path: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    throw malformed(`file v2/${path}`, `it is not JSON (${(error as Error).message})`);
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * A bin: catalogue records keyed by id, every id of this bin (sha256(id) mod bins), each record's
 * document pinned as docs/<sha256>.json.
 */
export function parseBin(bytes: Uint8Array, bin: number, bins: number, path: string): Record<string, CatalogueCapability> {
  const value = parseJsonBytes(bytes, path);
  const what = `bin v2/${path}`;
  if (!isPlainObject(value)) throw malformed(what, 'it is not an object of records');
  const out: Record<string, CatalogueCapability> = Object.create(null) as Record<string, CatalogueCapability>;
  for (const [id, record] of Object.entries(value)) {
    if (splitCapabilityId(id) === null || binOf(id, bins) !== bin)
      throw malformed(what, `${JSON.stringify(id)} does not belong in bin ${bin}`);
    if (!isPlainObject(record)) throw malformed(what, `/${id} is not a record`);
    const doc = record['doc'];
    if (
      typeof record['name'] !== 'string' ||
      typeof record['summary'] !== 'string' ||
      typeof record['publisher'] !== 'string' ||
      record['publisher'] !== id.slice(0, id.indexOf('/')) ||
      (record['tier'] !== 'free' && record['tier'] !== 'pro') ||
      (record['access'] !== 'public' && record['access'] !== 'entitled') ||
      !isStringArray(record['keywords']) ||
      typeof record['deprecated'] !== 'boolean' ||
      (record['latest'] !== undefined && typeof record['latest'] !== 'string') ||
      (record['latestPrerelease'] !== undefined && typeof record['latestPrerelease'] !== 'string') ||
      !isPlainObject(doc) ||
      typeof doc['sha256'] !== 'string' ||
      !SHA256_HEX.test(doc['sha256']) ||
      doc['path'] !== `docs/${doc['sha256']}.json`
    ) {
      throw malformed(what, `/${id} is not a catalogue record with a document pinned as docs/<sha256>.json`);
    }
    out[id] = record as unknown as CatalogueCapability;
  }
  return out;
}

/** A publisher bin: publisher records keyed by id, keys checked as in the v1 catalogue. */
export function parsePublisherBin(bytes: Uint8Array, bin: number, bins: number, path: string): Record<string, CataloguePublisher> {
  const value = parseJsonBytes(bytes, path);
  const what = `publisher bin v2/${path}`;
  if (!isPlainObject(value)) throw malformed(what, 'it is not an object of publishers');
  const out: Record<string, CataloguePublisher> = Object.create(null) as Record<string, CataloguePublisher>;
  for (const [id, record] of Object.entries(value)) {
    if (binOf(id, bins) !== bin) throw malformed(what, `${JSON.stringify(id)} does not belong in bin ${bin}`);
    if (!isPlainObject(record) || typeof record['name'] !== 'string' || !Array.isArray(record['keys'])) {
      throw malformed(what, `/${id} is not a publisher with keys`);
    }
    for (const key of record['keys'] as unknown[]) {
      if (
        !isPlainObject(key) ||
        typeof key['keyId'] !== 'string' ||
        typeof key['publicKey'] !== 'string' ||
        (key['status'] !== 'active' && key['status'] !== 'revoked')
      ) {
        throw malformed(what, `/${id}/keys holds a key without keyId, publicKey and status`);
      }
    }
    out[id] = record as unknown as CataloguePublisher;
  }
  return out;
}

/** A search pack (gunzipped): compact records, each of a bin under node `node`. */
export function parseSearchPack(raw: Uint8Array, node: number, fanout: number, path: string): SearchRecord[] {
  const value = parseJsonBytes(raw, path);
  const what = `search pack v2/${path}`;
  if (!Array.isArray(value)) throw malformed(what, 'it is not a list of records');
  const bins = fanout * fanout;
  for (const record of value as unknown[]) {
    if (
      !Array.isArray(record) ||
      record.length !== 7 ||
      typeof record[0] !== 'string' ||
      splitCapabilityId(record[0]) === null ||
      typeof record[1] !== 'string' ||
      typeof record[2] !== 'string' ||
      !isStringArray(record[3]) ||
      (record[4] !== null && typeof record[4] !== 'string') ||
      (record[5] !== null && typeof record[5] !== 'string') ||
      !Number.isSafeInteger(record[6])
    ) {
      throw malformed(what, 'a record is not [id, name, summary, keywords, latest, latestPrerelease, flags]');
    }
    if (Math.floor(binOf(record[0], bins) / fanout) !== node)
      throw malformed(what, `${JSON.stringify(record[0])} is not under node ${node}`);
  }
  return value as SearchRecord[];
}
