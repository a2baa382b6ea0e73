/**
 * A wire segment (docs/scaling.md "Cold start and offline search", "Wire segments"): the search
 * index work of one client segment done by the registry, in a compact form a client turns into its
 * stored segment (segment.ts) in one pass, without tokenising a record or sorting a key.
 *
 * The registry publishes one per client segment (the same consecutive nodes, nodesPerSegment) as
 * v2/index/<sha256>.seg.gz, pinned with its node range in the signed top level. It carries only what
 * the client cannot derive in one pass:
 *
 *   magic "ADCWIRE1", then unsigned LEB128 varints and length-prefixed strings (UTF-8, or UTF-16LE
 *   when a string of the segment is not well-formed Unicode):
 *   header     encoding, docs, publishers, versions, keywords, words, postings, id order stored
 *   publishers each publisher's id and display name, in order of first appearance
 *   versions   the distinct version strings; keywords: the distinct keywords
 *   records    in id order (code units), column by column: publisher number, the id's name part,
 *              name, summary, latest and prerelease (0 none, else 1 + version number), keywords
 *              (count, then keyword numbers), flags
 *   words      in code-unit order, each as the length of the prefix it shares with the one before
 *              and the rest
 *   postings   each word's count, then its documents as gaps (document − previous − 1), then one
 *              byte of field mask a posting
 *   orders     the documents in order of lowercase name and of short name (and of lowercase id,
 *              when that is not the id order)
 *
 * The rest is derived: the id order is the document numbers (records come in id order), the name
 * order is the lowercase-name order (its ties are in document order, so in id order), the
 * publisher keys' order from sorting the few publisher keys, and the record table, key offsets and
 * lowercase keys from the text as segment.ts writes them.
 *
 * Input is hostile: the file hashes to its pin in the signed top level, but that only says the
 * registry wrote it. Every varint, length, count, document and word number is checked against the
 * bytes and the counts before use, the orders must be permutations whose keys are in order, the
 * words strictly ascending, the postings of a word strictly ascending documents, and every record's
 * id a capability id whose bin is under the segment's nodes; anything else is E_CATALOG. What one
 * pass cannot check (that the postings are the records' words) is the registry's signed word, as
 * the search packs' records are; opening or installing a capability still reads its bin.
 */
import { AdcapError } from '../../errors.js';
import { splitCapabilityId } from '../../util/capability-id.js';
import { binOf, type SearchRecord, type TopLevelPayload } from '../layout-v2.js';
import { rankIndexData, type RankIndexData, type RankKeys, type SortedStrings } from '../search-rank.js';
import { SEGMENT_DOCS } from './disk-index.js';
import { rankDocuments, segmentBytes, segmentPublishers, type SegmentPublisher } from './segment.js';

const MAGIC = 'ADCWIRE1';

/**
 * How many consecutive nodes one segment of the search index holds: as many as stay within
 * SEGMENT_DOCS capabilities (by the top level's count), a power of two dividing the fan-out. The
 * registry groups its wire segments the same way, so a client finds one per segment.
 */
export function nodesPerSegment(top: Pick<TopLevelPayload, 'fanout' | 'capabilities'>): number {
  const perNode = Math.max(1, Math.ceil(top.capabilities / top.fanout));
  let group = 1;
  while (group * 2 <= top.fanout && top.fanout % (group * 2) === 0 && group * 2 * perNode <= SEGMENT_DOCS) group *= 2;
  return group;
}
/** The most documents a wire segment may hold (segments hold about 32,768; a hostile count stops here). */
const MAX_DOCS = 1 << 20;

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `text` survives UTF-8 (no lone surrogate). */
function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

class WireWriter {
  private buffer = Buffer.allocUnsafe(1 << 16);
  private at = 0;

  constructor(private readonly wide: boolean) {}

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(next, 0, 0, this.at);
    this.buffer = next;
  }

  uint(value: number): void {
    this.room(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.buffer[this.at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.at++] = v;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.at++] = value;
  }

  string(value: string): void {
    const length = this.wide ? value.length * 2 : Buffer.byteLength(value, 'utf8');
    this.uint(length);
    this.room(length);
    this.at += this.buffer.write(value, this.at, length, this.wide ? 'utf16le' : 'utf8');
  }

  raw(value: string): void {
    this.room(value.length);
    this.at += this.buffer.write(value, this.at, 'latin1');
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/**
 * The wire segment of `records` (any order; they are numbered in id order) with the display names
 * `publisherName` gives: the raw bytes, which the registry gzips. The client's segment of the same
 * records in id order (encodeSegment) is what decodeWireSegment makes of them, byte for byte.
 */
export function encodeWireSegment(records: readonly SearchRecord[], publisherName: (publisher: string) => string): Buffer {
  const sorted = [...records].sort((a, b) => compareCodeUnits(a[0], b[0]));
  const n = sorted.length;
  const { publishers, publisherOf } = segmentPublishers(sorted, publisherName);
  const data = rankIndexData(rankDocuments(sorted, publishers, publisherOf));
  const versions = new Map<string, number>();
  const keywords = new Map<string, number>();
  let wide = false;
  const note = (text: string): void => {
    if (!wide && !wellFormed(text)) wide = true;
  };
  for (const record of sorted) {
    for (const field of [record[0], record[1], record[2]]) note(field);
    for (const version of [record[4], record[5]]) if (version !== null && !versions.has(version)) versions.set(version, versions.size);
    for (const keyword of record[3]) if (!keywords.has(keyword)) keywords.set(keyword, keywords.size);
  }
  for (const text of [...versions.keys(), ...keywords.keys(), ...publishers.map((p) => p.name), data.words.text]) note(text);
  let idsInOrder = true;
  for (let i = 0; i < n && idsInOrder; i++) idsInOrder = data.ids.docs[i] === i;

  const out = new WireWriter(wide);
  out.raw(MAGIC);
  for (const value of [wide ? 1 : 0, n, publishers.length, versions.size, keywords.size, data.words.count, data.postingDocs.length])
    out.uint(value);
  out.uint(idsInOrder ? 0 : 1);
  for (const p of publishers) {
    out.string(p.id);
    out.string(p.name);
  }
  for (const version of versions.keys()) out.string(version);
  for (const keyword of keywords.keys()) out.string(keyword);
  for (let d = 0; d < n; d++) out.uint(publisherOf[d] as number);
  for (const record of sorted) out.string(record[0].slice(record[0].indexOf('/') + 1));
  for (const record of sorted) out.string(record[1]);
  for (const record of sorted) out.string(record[2]);
  for (const field of [4, 5] as const)
    for (const record of sorted) out.uint(record[field] === null ? 0 : 1 + (versions.get(record[field]) as number));
  for (const record of sorted) {
    out.uint(record[3].length);
    for (const keyword of record[3]) out.uint(keywords.get(keyword) as number);
  }
  for (const record of sorted) out.uint(record[6]);
  let previous = '';
  for (let w = 0; w < data.words.count; w++) {
    const word = data.words.text.slice(data.words.starts[w] as number, (data.words.starts[w + 1] as number) - 1);
    let shared = 0;
    while (shared < word.length && shared < previous.length && word.charCodeAt(shared) === previous.charCodeAt(shared)) shared++;
    out.uint(shared);
    out.string(word.slice(shared));
    previous = word;
  }
  for (let w = 0; w < data.words.count; w++) out.uint((data.postingStart[w + 1] as number) - (data.postingStart[w] as number));
  for (let w = 0; w < data.words.count; w++) {
    let last = -1;
    for (let p = data.postingStart[w] as number; p < (data.postingStart[w + 1] as number); p++) {
      const doc = data.postingDocs[p] as number;
      out.uint(doc - last - 1);
      last = doc;
    }
  }
  for (let p = 0; p < data.postingMasks.length; p++) out.byte(data.postingMasks[p] as number);
  for (const table of idsInOrder ? [data.names, data.shortNames] : [data.names, data.shortNames, data.ids])
    for (let i = 0; i < n; i++) out.uint(table.docs[i] as number);
  return out.bytes();
}

/** Where a wire segment's records must be: the fan-out and the node range it is pinned with. */
export interface WireSegmentScope {
  /** For messages: the file's path under v2/. */
  path: string;
  fanout: number;
  firstNode: number;
  nodes: number;
}

function malformed(path: string, problem: string): AdcapError {
  return new AdcapError(
    'E_CATALOG',
    `The registry's search segment v2/${path} is malformed (${problem}); it hashes to its pin in the signed top level, ` +
      'so the registry built it wrong and must rebuild it.',
    { details: { file: path, reason: 'wire-segment-malformed' } },
  );
}

class WireReader {
  at: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly wide: boolean,
    private readonly path: string,
    at: number,
  ) {
    this.at = at;
  }

  fail(problem: string): AdcapError {
    return malformed(this.path, problem);
  }

  /** An unsigned varint of at most 32 bits. */
  uint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.at >= this.bytes.length) throw this.fail('truncated');
      const byte = this.bytes[this.at++] as number;
      if (shift === 28 && byte > 0x0f) throw this.fail('a number past 32 bits');
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw this.fail('a number past 32 bits');
  }

  /** A varint below `limit`. */
  below(limit: number, what: string): number {
    const value = this.uint();
    if (value >= limit) throw this.fail(`${what} out of range`);
    return value;
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw this.fail('truncated');
    return this.bytes[this.at++] as number;
  }

  string(): string {
    const length = this.uint();
    if (length > this.bytes.length - this.at || (this.wide && length % 2 !== 0)) throw this.fail('a string past the end');
    const from = this.at;
    this.at += length;
    return this.bytes.toString(this.wide ? 'utf16le' : 'utf8', from, this.at);
  }

  get left(): number {
    return this.bytes.length - this.at;
  }
}

/** A permutation of 0..n-1 read from the wire (each document once). */
function readOrder(input: WireReader, n: number): Int32Array {
  const order = new Int32Array(n);
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const d = input.below(n, 'a document number');
    if (seen[d] === 1) throw input.fail('an order that lists a document twice');
    seen[d] = 1;
    order[i] = d;
  }
  return order;
}

/** Keys of `order` (key(d) of each document), checked to be in order. */
function sortedKeys(input: WireReader, order: Int32Array, key: (d: number) => string, what: string): RankKeys {
  let previous = '';
  for (let i = 0; i < order.length; i++) {
    const k = key(order[i] as number);
    if (i > 0 && (k < previous || (k === previous && (order[i] as number) < (order[i - 1] as number))))
      throw input.fail(`the ${what} order is not sorted`);
    previous = k;
  }
  const keys: SortedStrings = { length: order.length, get: (i) => key(order[i] as number) };
  return { keys, docs: order };
}

/**
 * The stored segment's bytes (segment.ts) of a wire segment (gunzipped), and its number of
 * capabilities; E_CATALOG when it is malformed in any way (see the header).
 */
export function decodeWireSegment(raw: Buffer, scope: WireSegmentScope): { bytes: Buffer; count: number } {
  const fail = (problem: string): AdcapError => malformed(scope.path, problem);
  if (raw.length < MAGIC.length || raw.toString('latin1', 0, MAGIC.length) !== MAGIC) throw fail('not a wire segment');
  const head = new WireReader(raw, false, scope.path, MAGIC.length);
  const encoding = head.uint();
  if (encoding > 1) throw fail('an unknown text encoding');
  const input = new WireReader(raw, encoding === 1, scope.path, head.at);
  // Counts are bounded by the bytes that must follow them, so a hostile header cannot make a large allocation.
  const n = input.uint();
  if (n > MAX_DOCS || n > input.left) throw fail('too many documents');
  const counts = [input.uint(), input.uint(), input.uint(), input.uint(), input.uint()];
  const [publisherCount, versionCount, keywordCount, wordCount, postings] = counts as [number, number, number, number, number];
  if (counts.some((count) => count > input.left) || publisherCount > Math.max(n, 1)) throw fail('a count past the end');
  const idsStored = input.below(2, 'the id order flag') === 1;

  const publishers: SegmentPublisher[] = [];
  const publisherIds = new Set<string>();
  for (let p = 0; p < publisherCount; p++) {
    const publisher = { id: input.string(), name: input.string() };
    if (publisherIds.has(publisher.id)) throw fail('a publisher listed twice');
    publisherIds.add(publisher.id);
    publishers.push(publisher);
  }
  const versions = Array.from({ length: versionCount }, () => input.string());
  const keywords = Array.from({ length: keywordCount }, () => input.string());
  const publisherOf = new Uint32Array(n);
  for (let d = 0; d < n; d++) publisherOf[d] = input.below(publisherCount, 'a publisher number');
  const ids: string[] = new Array<string>(n);
  const bins = scope.fanout * scope.fanout;
  const seenPublisher = new Uint8Array(publisherCount);
  let nextPublisher = 0;
  for (let d = 0; d < n; d++) {
    const p = publisherOf[d] as number;
    // Publishers are numbered in order of first appearance (segmentPublishers).
    if (seenPublisher[p] === 0) {
      if (p !== nextPublisher) throw fail('publishers out of order');
      seenPublisher[p] = 1;
      nextPublisher++;
    }
    const id = `${(publishers[p] as SegmentPublisher).id}/${input.string()}`;
    if (splitCapabilityId(id) === null) throw fail(`${JSON.stringify(id)} is not a capability id`);
    if (d > 0 && !((ids[d - 1] as string) < id)) throw fail('records out of id order');
    const node = Math.floor(binOf(id, bins) / scope.fanout);
    if (node < scope.firstNode || node >= scope.firstNode + scope.nodes) throw fail(`${JSON.stringify(id)} is not under its nodes`);
    ids[d] = id;
  }
  if (nextPublisher !== publisherCount) throw fail('a publisher no record names');
  const names = Array.from({ length: n }, () => input.string());
  const summaries = Array.from({ length: n }, () => input.string());
  const version = (): string | null => {
    const v = input.below(versionCount + 1, 'a version number');
    return v === 0 ? null : (versions[v - 1] as string);
  };
  const latest = Array.from({ length: n }, version);
  const prerelease = Array.from({ length: n }, version);
  const recordKeywords = Array.from({ length: n }, () => {
    const count = input.below(input.left + 1, 'a keyword count');
    return Array.from({ length: count }, () => keywords[input.below(keywordCount, 'a keyword number')] as string);
  });
  const records: SearchRecord[] = new Array<SearchRecord>(n);
  for (let d = 0; d < n; d++) {
    const flags = input.uint();
    if (flags > 7) throw fail('unknown record flags');
    records[d] = [
      ids[d] as string,
      names[d] as string,
      summaries[d] as string,
      recordKeywords[d] as string[],
      latest[d] as string | null,
      prerelease[d] as string | null,
      flags,
    ];
  }

  // Words: strictly ascending, none empty or holding the separator "\n".
  const wordList: string[] = new Array<string>(wordCount);
  let previous = '';
  for (let w = 0; w < wordCount; w++) {
    const shared = input.below(previous.length + 1, 'a shared prefix');
    const word = previous.slice(0, shared) + input.string();
    if (word.length === 0 || word.includes('\n') || (w > 0 && !(previous < word))) throw fail('words out of order');
    wordList[w] = word;
    previous = word;
  }
  const starts = new Int32Array(wordCount + 1);
  let offset = 0;
  for (let w = 0; w < wordCount; w++) {
    starts[w] = offset;
    offset += (wordList[w] as string).length + 1;
  }
  starts[wordCount] = offset;
  const postingStart = new Int32Array(wordCount + 1);
  for (let w = 0; w < wordCount; w++) {
    const count = input.below(n + 1, 'a posting count');
    postingStart[w + 1] = (postingStart[w] as number) + count;
    if ((postingStart[w + 1] as number) > postings) throw fail('more postings than the header says');
  }
  if (postingStart[wordCount] !== postings) throw fail('fewer postings than the header says');
  const postingDocs = new Int32Array(postings);
  for (let w = 0; w < wordCount; w++) {
    let last = -1;
    for (let p = postingStart[w] as number; p < (postingStart[w + 1] as number); p++) {
      last = last + 1 + input.below(n - last - 1, 'a posting document');
      postingDocs[p] = last;
    }
  }
  if (postings > input.left) throw fail('truncated');
  const postingMasks = new Uint8Array(postings);
  for (let p = 0; p < postings; p++) postingMasks[p] = input.byte();

  const lowerIds = ids.map((id) => id.toLowerCase());
  const lowerNames = names.map((name) => name.toLowerCase());
  const nameTable = sortedKeys(input, readOrder(input, n), (d) => lowerNames[d] as string, 'name');
  const shortNameTable = sortedKeys(
    input,
    readOrder(input, n),
    (d) => (lowerIds[d] as string).slice((lowerIds[d] as string).indexOf('/') + 1),
    'short name',
  );
  const idOrder = idsStored ? readOrder(input, n) : Int32Array.from({ length: n }, (_, i) => i);
  const idTable = sortedKeys(input, idOrder, (d) => lowerIds[d] as string, 'id');
  if (input.left !== 0) throw fail('bytes after the end');

  const data: RankIndexData = {
    size: n,
    words: { count: wordCount, text: wordList.map((word) => `${word}\n`).join(''), starts },
    postingStart,
    postingDocs,
    postingMasks,
    ids: idTable,
    names: nameTable,
    shortNames: shortNameTable,
    publishers: publisherKeys(publishers, publisherOf),
    deprecated: Uint8Array.from(records, (record) => ((record[6] & 4) !== 0 ? 1 : 0)),
    byId: Int32Array.from({ length: n }, (_, i) => i),
    // rankIndexData's name order: the lowercase-name order with equal names in id order, which is
    // document order here, as the names table's ties are.
    byName: nameTable.docs.slice(),
  };
  return { bytes: segmentBytes({ records, publishers, publisherOf, data }), count: n };
}

/**
 * rankIndexData's publisher keys without a sort per document: each document adds its publisher's
 * lowercase display name and, when different, its lowercase id; entries are sorted by key, then by
 * the order they were added in, which is document order (a document adds two different keys).
 */
function publisherKeys(publishers: readonly SegmentPublisher[], publisherOf: Uint32Array): RankKeys {
  const docsOf: number[][] = publishers.map(() => []);
  for (let d = 0; d < publisherOf.length; d++) (docsOf[publisherOf[d] as number] as number[]).push(d);
  const byKey = new Map<string, number[]>();
  publishers.forEach((p, i) => {
    const name = p.name.toLowerCase();
    const id = p.id.toLowerCase();
    for (const key of name === id ? [name] : [name, id]) {
      const list = byKey.get(key);
      if (list === undefined) byKey.set(key, [i]);
      else list.push(i);
    }
  });
  const keys: string[] = [];
  const docs: number[] = [];
  for (const key of [...byKey.keys()].sort(compareCodeUnits)) {
    const owners = byKey.get(key) as number[];
    const list =
      owners.length === 1 ? (docsOf[owners[0] as number] as number[]) : owners.flatMap((o) => docsOf[o] as number[]).sort((a, b) => a - b);
    for (const d of list) {
      keys.push(key);
      docs.push(d);
    }
  }
  return { keys: { length: keys.length, get: (i) => keys[i] as string }, docs: Int32Array.from(docs) };
}
