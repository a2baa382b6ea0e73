/**
 * A wire segment (docs/scaling.md "Cold start and offline search", "Wire segments"): the search
 * index work of one client segment done by the registry, in a compact form from which a client
 * writes its stored segment (segment.ts) in one pass over the bytes, without tokenising a record,
 * sorting a key or making a string of a record.
 *
 * The registry publishes one per client segment (the same consecutive nodes, nodesPerSegment) as
 * v2/index/<sha256>.seg.gz, gzipped, pinned with its node range in the signed top level. It is the
 * segment of the nodes' records in id order (encodeSegment) without what one pass derives:
 *
 *   magic "ADCWIRE2", then unsigned LEB128 varints of at most 32 bits:
 *   header    text encoding, documents, words, postings, publishers, publisher keys, text bytes,
 *             words length, and flags of the orders stored because they are not the derived ones
 *   text      the segment's text as is (words, then every record string once; lowercase keys that
 *             equal their string are not repeated)
 *   records   per document: id, name, summary, latest and prerelease (0 none, else 1 and the
 *             string), its keywords (count, then each), publisher number, flags, the lowercase id
 *             and name (0 when the same text as the id or name, else 1 and the string), where the
 *             short name starts in the lowercase id. A string is 0 when it starts where the
 *             furthest string so far ends, else 1 + its start; then its length
 *   publishers each one's id and display name (strings)
 *   publisher keys runs of one key: the key (a string), how many documents, their gaps
 *   postings  each word's count, then its documents as gaps (document − previous − 1), then one
 *             byte of field mask a posting
 *   orders    documents in lowercase-name and short-name order (then the id keys', id and name
 *             orders when flagged)
 *
 * Derived: the word starts (the text's "\n"), posting starts (the counts), the record table and
 * every key table's offsets (the strings), the id order and id keys' order (documents are
 * numbered in id order, and ids are lowercase), and the name order (the lowercase-name order,
 * whose ties are in document order).
 *
 * Input is hostile: the file hashes to its pin in the signed top level, but that only says the
 * registry wrote it. Every varint, count, string, document and word number is checked against the
 * bytes and the counts as it is read; the orders must be permutations whose keys are in order, the
 * words non-empty and strictly ascending, the postings of a word strictly ascending documents; the
 * segment written must pass decodeSegment's bounds checks; and every record's id must be a
 * capability id, in id order, equal to its id key, whose bin is under the segment's nodes. Anything
 * else is E_CATALOG. What one pass cannot check (that the postings are the records' words) is the
 * registry's signed word, as the search packs' records are; opening or installing a capability
 * still reads its bin, which is the authority.
 */
import { AdcapError } from '../../errors.js';
import { splitCapabilityId } from '../../util/capability-id.js';
import { binOf, type SearchRecord, type TopLevelPayload } from '../layout-v2.js';
import { SEGMENT_DOCS } from './disk-index.js';
import {
  checkSegmentSections,
  encodeSegment,
  readSegmentSections,
  SEGMENT_NONE,
  SEGMENT_RECORD_WORDS,
  segmentFileParts,
  type SectionTable,
  type SegmentFileParts,
  type SegmentPublisher,
  type SegmentSections,
} from './segment.js';

const MAGIC = 'ADCWIRE3';
/** Flags of orders a wire segment carries because they are not the derived ones. */
const STORED_BY_ID = 1;
const STORED_ID_KEYS = 2;
const STORED_BY_NAME = 4;

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

class WireWriter {
  private buffer = Buffer.allocUnsafe(1 << 20);
  private at = 0;

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(next, 0, 0, this.at);
    this.buffer = next;
  }

  uint(value: number): void {
    this.room(5);
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.at++] = v;
  }

  bytes(value: Uint8Array): void {
    this.room(value.byteLength);
    this.buffer.set(value, this.at);
    this.at += value.byteLength;
  }

  raw(value: string): void {
    this.room(value.length);
    this.at += this.buffer.write(value, this.at, 'latin1');
  }

  result(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/**
 * The wire segment of `records` (any order; they are numbered in id order) with the display names
 * `publisherName` gives: the raw bytes, which the registry gzips. decodeWireSegment makes of them
 * the client's segment of the same records in id order (encodeSegment), byte for byte.
 */
export function encodeWireSegment(records: readonly SearchRecord[], publisherName: (publisher: string) => string): Buffer {
  const sorted = [...records].sort((a, b) => compareCodeUnits(a[0], b[0]));
  return wireOfSections(readSegmentSections(encodeSegment(sorted, publisherName)).sections);
}

/** The wire form of a segment's sections (encodeWireSegment; exported for tests that forge one). */
export function wireOfSections(sections: SegmentSections): Buffer {
  const n = sections.records.length / SEGMENT_RECORD_WORDS;
  const { records: table, keywordRefs, publisherRefs, tables, postingStart, postingDocs, postingMasks } = sections;
  const [ids, names, shortNames, publisherTable] = tables;
  const identity = (order: Int32Array): boolean => order.every((d, i) => d === i);
  const sameOrder = (a: Int32Array, b: Int32Array): boolean => a.every((d, i) => d === b[i]);
  const flags =
    (identity(sections.byId) ? 0 : STORED_BY_ID) |
    (identity(ids.docs) ? 0 : STORED_ID_KEYS) |
    (sameOrder(sections.byName, names.docs) ? 0 : STORED_BY_NAME);
  // Each document's key in the id, name and short-name tables (the tables list them in key order).
  const keyAt = (t: SectionTable): Uint32Array => {
    const at = new Uint32Array(n);
    t.docs.forEach((d, i) => (at[d] = i));
    return at;
  };
  const [idKey, nameKey, shortKey] = [keyAt(ids), keyAt(names), keyAt(shortNames)];

  const out = new WireWriter();
  out.raw(MAGIC);
  const wordCount = sections.wordStarts.length - 1;
  for (const value of [
    sections.encoding,
    n,
    wordCount,
    postingDocs.length,
    publisherRefs.length / 4,
    publisherTable.docs.length,
    sections.text.byteLength,
    sections.summaries.byteLength,
    sections.wordsLength,
    flags,
  ])
    out.uint(value);
  out.bytes(sections.text);
  out.bytes(sections.summaries);
  // Every string as 0 when it starts where the furthest string so far ends (a string written once
  // per document), else 1 + its start (a string written once and shared, whose start repeats), and
  // its length.
  // The summaries have a cursor of their own: their text follows the rest.
  const cursors = [sections.wordsLength, sections.text.byteLength / (sections.encoding === 1 ? 2 : 1)];
  const pair = (from: number, to: number, which = 0): void => {
    const cursor = cursors[which] as number;
    out.uint(from === cursor ? 0 : from + 1);
    out.uint(to - from);
    if (to > cursor) cursors[which] = to;
  };
  for (let d = 0; d < n; d++) {
    const r = d * SEGMENT_RECORD_WORDS;
    pair(table[r] as number, table[r + 1] as number);
    pair(table[r + 2] as number, table[r + 3] as number);
    pair(table[r + 4] as number, table[r + 5] as number, 1);
    for (let f = 6; f < 10; f += 2) {
      if (table[r + f] === SEGMENT_NONE) out.uint(0);
      else {
        out.uint(1);
        pair(table[r + f] as number, table[r + f + 1] as number);
      }
    }
    out.uint((table[r + 11] as number) - (table[r + 10] as number));
    for (let k = table[r + 10] as number; k < (table[r + 11] as number); k++)
      pair(keywordRefs[k * 2] as number, keywordRefs[k * 2 + 1] as number);
    out.uint(table[r + 12] as number);
    out.uint(table[r + 13] as number);
    // The lowercase id and name: 0 when the same string as the id or name, else 1 and the string.
    for (const [t, at, field] of [
      [ids, idKey, 0],
      [names, nameKey, 2],
    ] as const) {
      const k = (at[d] as number) * 2;
      if (t.refs[k] === table[r + field] && t.refs[k + 1] === table[r + field + 1]) out.uint(0);
      else {
        out.uint(1);
        pair(t.refs[k] as number, t.refs[k + 1] as number);
      }
    }
    // The short name is the tail of the lowercase id: where it starts in it.
    const lowerId = (idKey[d] as number) * 2;
    const short = (shortKey[d] as number) * 2;
    if (shortNames.refs[short + 1] !== ids.refs[lowerId + 1]) throw new Error('a short name that is not the tail of its id');
    out.uint((shortNames.refs[short] as number) - (ids.refs[lowerId] as number));
  }
  for (let p = 0; p < publisherRefs.length; p += 2) pair(publisherRefs[p] as number, publisherRefs[p + 1] as number);
  // Publisher keys: runs of one key, each its string once and its documents as gaps.
  for (let i = 0; i < publisherTable.docs.length;) {
    let j = i + 1;
    const same = (k: number): boolean =>
      publisherTable.refs[k * 2] === publisherTable.refs[i * 2] && publisherTable.refs[k * 2 + 1] === publisherTable.refs[i * 2 + 1];
    while (j < publisherTable.docs.length && same(j)) j++;
    pair(publisherTable.refs[i * 2] as number, publisherTable.refs[i * 2 + 1] as number);
    out.uint(j - i);
    let last = -1;
    for (let k = i; k < j; k++) {
      out.uint((publisherTable.docs[k] as number) - last - 1);
      last = publisherTable.docs[k] as number;
    }
    i = j;
  }
  for (let w = 0; w < wordCount; w++) out.uint((postingStart[w + 1] as number) - (postingStart[w] as number));
  for (let w = 0; w < wordCount; w++) {
    let last = -1;
    for (let p = postingStart[w] as number; p < (postingStart[w + 1] as number); p++) {
      out.uint((postingDocs[p] as number) - last - 1);
      last = postingDocs[p] as number;
    }
  }
  out.bytes(postingMasks);
  const orders = [names.docs, shortNames.docs];
  if ((flags & STORED_ID_KEYS) !== 0) orders.push(ids.docs);
  if ((flags & STORED_BY_ID) !== 0) orders.push(sections.byId);
  if ((flags & STORED_BY_NAME) !== 0) orders.push(sections.byName);
  for (const order of orders) for (let i = 0; i < n; i++) out.uint(order[i] as number);
  return out.result();
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
    const first = this.bytes[this.at];
    if (first !== undefined && first < 0x80) {
      this.at++;
      return first;
    }
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

  /**
   * Documents out[from] … out[to − 1], strictly ascending below `n`, each read as its gap after the
   * one before (document − previous − 1, the first after −1): `below` in a loop of its own, as
   * postings are most of a wire segment's numbers.
   */
  ascending(out: Int32Array, from: number, to: number, n: number): void {
    const bytes = this.bytes;
    let at = this.at;
    let last = -1;
    for (let p = from; p < to; p++) {
      let gap = bytes[at] ?? 0x80;
      if (gap < 0x80 && at < bytes.length) at++;
      else {
        this.at = at;
        gap = this.uint();
        at = this.at;
      }
      if (gap >= n - last - 1) {
        this.at = at;
        throw this.fail('a posting document out of range');
      }
      last = last + 1 + gap;
      out[p] = last;
    }
    this.at = at;
  }

  /** A varint below `limit`. */
  below(limit: number, what: string): number {
    const value = this.uint();
    if (value >= limit) throw this.fail(`${what} out of range`);
    return value;
  }

  /** The next `length` bytes (a view of the input). */
  take(length: number): Buffer {
    if (length > this.left) throw this.fail('truncated');
    const from = this.at;
    this.at += length;
    return this.bytes.subarray(from, this.at);
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

function identityOrder(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

/**
 * The stored segment (segment.ts) of a wire segment (gunzipped): its file as chunks over its sections
 * (which passed decodeSegment's checks; the text and summaries are views of `raw`), its number of
 * capabilities and the publishers it names;
 * E_CATALOG when it is malformed in any way (see the header).
 */
export function decodeWireSegment(
  raw: Buffer,
  scope: WireSegmentScope,
): { file: SegmentFileParts; count: number; publishers: SegmentPublisher[] } {
  const fail = (problem: string): AdcapError => malformed(scope.path, problem);
  if (raw.length < MAGIC.length || raw.toString('latin1', 0, MAGIC.length) !== MAGIC) throw fail('not a wire segment');
  const input = new WireReader(raw, scope.path, MAGIC.length);
  const encoding = input.below(2, 'the text encoding');
  // Counts are bounded by the bytes that must follow them, so a hostile header cannot make a large allocation.
  const n = input.uint();
  if (n > MAX_DOCS || n > input.left) throw fail('too many documents');
  const counts = [input.uint(), input.uint(), input.uint(), input.uint(), input.uint(), input.uint()];
  const [wordCount, postings, publishers, publisherKeys, textBytes, summaryBytes] = counts as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (counts.some((count) => count > input.left)) throw fail('a count past the end');
  const wordsLength = input.uint();
  const flags = input.below(8, 'the order flags');
  const wide = encoding === 1;
  if (wide && (textBytes % 2 !== 0 || summaryBytes % 2 !== 0)) throw fail('text of an odd length');
  const text = input.take(textBytes);
  const summaries = input.take(summaryBytes);
  const units = wide ? textBytes / 2 : textBytes;
  const summaryUnits = wide ? summaryBytes / 2 : summaryBytes;
  if (wordsLength > units) throw fail('the words past the text');
  const unit = wide ? (u: number): number => text.readUInt16LE(u * 2) : (u: number): number => text[u] as number;

  // The words text: each word followed by "\n", none empty, strictly ascending.
  const wordStarts = new Int32Array(wordCount + 1);
  let w = 0;
  let from = 0;
  for (let u = 0; u < wordsLength; u++) {
    if (unit(u) !== 10) continue;
    if (w >= wordCount || u === from) throw fail('words');
    wordStarts[w++] = from;
    from = u + 1;
  }
  if (w !== wordCount || from !== wordsLength) throw fail('words');
  wordStarts[wordCount] = wordsLength;
  // Code-unit order of two strings of the text (one byte a unit compared in place: keys differ early,
  // and a native compare per pair costs more than the loop).
  const compare = (a0: number, a1: number, b0: number, b1: number): number => {
    if (wide) return compareCodeUnits(text.toString('utf16le', a0 * 2, a1 * 2), text.toString('utf16le', b0 * 2, b1 * 2));
    const common = Math.min(a1 - a0, b1 - b0);
    for (let i = 0; i < common; i++) {
      const order = (text[a0 + i] as number) - (text[b0 + i] as number);
      if (order !== 0) return order;
    }
    return a1 - a0 - (b1 - b0);
  };
  for (let i = 1; i < wordCount; i++)
    if (
      compare(wordStarts[i - 1] as number, (wordStarts[i] as number) - 1, wordStarts[i] as number, (wordStarts[i + 1] as number) - 1) >= 0
    )
      throw fail('words out of order');

  // Strings: 0 for one starting at the furthest end so far, else 1 + its start; then its length (encodeWireSegment).
  // The text's strings and the summaries (which follow the text's positions) each have a cursor.
  // One reader per cursor, its cursor in a closure variable (no array lookup per string).
  const strings = (lowest: number, highest: number, first: number) => {
    let cursor = first;
    return (target: Uint32Array, at: number): void => {
      const tag = input.uint();
      const start = tag === 0 ? cursor : tag - 1;
      const end = start + input.uint();
      if (start < lowest || end > highest) throw fail('a string out of bounds');
      target[at] = start;
      target[at + 1] = end;
      if (end > cursor) cursor = end;
    };
  };
  const pair = strings(0, units, wordsLength);
  const summaryPair = strings(units, units + summaryUnits, units);
  const records = new Uint32Array(n * SEGMENT_RECORD_WORDS);
  let keywordRefs = new Uint32Array(Math.max(16, n * 2));
  let keywords = 0;
  const lowerIds = new Uint32Array(n * 2);
  const lowerNames = new Uint32Array(n * 2);
  const shortNames = new Uint32Array(n * 2);
  for (let d = 0; d < n; d++) {
    const r = d * SEGMENT_RECORD_WORDS;
    pair(records, r);
    pair(records, r + 2);
    summaryPair(records, r + 4);
    for (let f = 6; f < 10; f += 2) {
      if (input.below(2, 'a version tag') === 1) pair(records, r + f);
      else {
        records[r + f] = SEGMENT_NONE;
        records[r + f + 1] = SEGMENT_NONE;
      }
    }
    const count = input.below(input.left + 1, 'a keyword count');
    records[r + 10] = keywords;
    if ((keywords + count) * 2 > keywordRefs.length) {
      const grown = new Uint32Array(Math.max(keywordRefs.length * 2, (keywords + count) * 2));
      grown.set(keywordRefs);
      keywordRefs = grown;
    }
    for (let k = 0; k < count; k++) pair(keywordRefs, (keywords + k) * 2);
    keywords += count;
    records[r + 11] = keywords;
    records[r + 12] = input.below(publishers, 'a publisher number');
    records[r + 13] = input.below(8, 'record flags');
    // The lowercase id, then the lowercase name.
    if (input.below(2, 'a lowercase tag') === 1) pair(lowerIds, d * 2);
    else {
      lowerIds[d * 2] = records[r] as number;
      lowerIds[d * 2 + 1] = records[r + 1] as number;
    }
    if (input.below(2, 'a lowercase tag') === 1) pair(lowerNames, d * 2);
    else {
      lowerNames[d * 2] = records[r + 2] as number;
      lowerNames[d * 2 + 1] = records[r + 3] as number;
    }
    const shortStart = (lowerIds[d * 2] as number) + input.uint();
    if (shortStart > (lowerIds[d * 2 + 1] as number)) throw fail('a short name past its id');
    shortNames[d * 2] = shortStart;
    shortNames[d * 2 + 1] = lowerIds[d * 2 + 1] as number;
  }
  const publisherRefs = new Uint32Array(publishers * 4);
  for (let p = 0; p < publishers; p++) {
    pair(publisherRefs, p * 4);
    pair(publisherRefs, p * 4 + 2);
  }
  const publisherTable = { refs: new Uint32Array(publisherKeys * 2), docs: new Int32Array(publisherKeys) };
  const key = new Uint32Array(2);
  for (let i = 0; i < publisherKeys;) {
    pair(key, 0);
    const count = input.below(publisherKeys - i + 1, 'a publisher key count');
    if (count === 0) throw fail('an empty publisher key');
    let last = -1;
    for (let k = 0; k < count; k++, i++) {
      last = last + 1 + input.below(n - last - 1, 'a publisher key document');
      publisherTable.docs[i] = last;
      publisherTable.refs[i * 2] = key[0] as number;
      publisherTable.refs[i * 2 + 1] = key[1] as number;
    }
  }
  const postingStart = new Int32Array(wordCount + 1);
  for (let i = 0; i < wordCount; i++) {
    postingStart[i + 1] = (postingStart[i] as number) + input.below(n + 1, 'a posting count');
    if ((postingStart[i + 1] as number) > postings) throw fail('more postings than the header says');
  }
  if (postingStart[wordCount] !== postings) throw fail('fewer postings than the header says');
  const postingDocs = new Int32Array(postings);
  for (let i = 0; i < wordCount; i++) input.ascending(postingDocs, postingStart[i] as number, postingStart[i + 1] as number, n);
  const postingMasks = input.take(postings);
  const nameOrder = readOrder(input, n);
  const shortOrder = readOrder(input, n);
  const idOrder = (flags & STORED_ID_KEYS) !== 0 ? readOrder(input, n) : identityOrder(n);
  const byId = (flags & STORED_BY_ID) !== 0 ? readOrder(input, n) : identityOrder(n);
  const byName = (flags & STORED_BY_NAME) !== 0 ? readOrder(input, n) : nameOrder.slice();
  if (input.left !== 0) throw fail('bytes after the end');
  const keyTable = (order: Int32Array, of: Uint32Array, what: string): SectionTable => {
    const refs = new Uint32Array(n * 2);
    for (let i = 0; i < n; i++) {
      const d = order[i] as number;
      refs[i * 2] = of[d * 2] as number;
      refs[i * 2 + 1] = of[d * 2 + 1] as number;
      if (i > 0 && compare(refs[i * 2 - 2] as number, refs[i * 2 - 1] as number, refs[i * 2] as number, refs[i * 2 + 1] as number) > 0)
        throw fail(`the ${what} order is not sorted`);
    }
    return { refs, docs: order };
  };
  const tables: SegmentSections['tables'] = [
    keyTable(idOrder, lowerIds, 'id'),
    keyTable(nameOrder, lowerNames, 'name'),
    keyTable(shortOrder, shortNames, 'short name'),
    publisherTable,
  ];
  for (let i = 1; i < publisherKeys; i++) {
    const refs = publisherTable.refs;
    if (compare(refs[i * 2 - 2] as number, refs[i * 2 - 1] as number, refs[i * 2] as number, refs[i * 2 + 1] as number) > 0)
      throw fail('the publisher key order is not sorted');
  }

  const file = segmentFileParts({
    encoding: wide ? 1 : 0,
    wordsLength,
    text,
    records,
    keywordRefs: keywordRefs.subarray(0, keywords * 2),
    publisherRefs,
    wordStarts,
    postingStart,
    postingDocs,
    postingMasks,
    tables,
    byId,
    byName,
    summaries,
  });
  try {
    checkSegmentSections(file.sections);
  } catch (error) {
    throw fail((error as Error).message);
  }
  const string = (from: number, to: number): string =>
    text.toString(wide ? 'utf16le' : 'latin1', from * (wide ? 2 : 1), to * (wide ? 2 : 1));
  // The records: capability ids, in id order (so documents are numbered in id order), each the
  // lowercase id of the id table, and under the nodes the segment is pinned for.
  const bins = scope.fanout * scope.fanout;
  let previous = '';
  for (let d = 0; d < n; d++) {
    const r = d * SEGMENT_RECORD_WORDS;
    const id = string(records[r] as number, records[r + 1] as number);
    if (splitCapabilityId(id) === null) throw fail(`${JSON.stringify(id)} is not a capability id`);
    if (d > 0 && !(previous < id)) throw fail('records out of id order');
    if (compare(records[r] as number, records[r + 1] as number, lowerIds[d * 2] as number, lowerIds[d * 2 + 1] as number) !== 0)
      throw fail('an id key that is not the id');
    const node = Math.floor(binOf(id, bins) / scope.fanout);
    if (node < scope.firstNode || node >= scope.firstNode + scope.nodes) throw fail(`${JSON.stringify(id)} is not under its nodes`);
    previous = id;
  }
  const publisherList = Array.from({ length: publishers }, (_, p) => ({
    id: string(publisherRefs[p * 4] as number, publisherRefs[p * 4 + 1] as number),
    name: string(publisherRefs[p * 4 + 2] as number, publisherRefs[p * 4 + 3] as number),
  }));
  return { file, count: n, publishers: publisherList };
}
