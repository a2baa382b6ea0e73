/**
 * One segment of a remote's stored search index (docs/scaling.md "Cold start and offline search"):
 * the search records of one v2 node (or one slice of a v1 catalogue) and the inverted index of
 * search-rank.ts over them, in one binary file a new process reads back without parsing or
 * indexing any record.
 *
 * Layout (little-endian; every section starts on a 4-byte boundary; sizes follow from the header):
 *
 *   header     magic "ADCSRCH1", then u32: format, encoding (0 Latin-1, 1 UTF-16LE), docs, words,
 *              postings, keyword refs, publishers, publisher keys, text bytes, words text length,
 *              summary bytes
 *   text       every string of the segment but the summaries, once each: the words first ("word\n"
 *              each, in code-unit order), then ids, names, versions, keywords, lowercase keys,
 *              publishers
 *   records    u32 × 14 per document: id, name, summary, latest, latestPrerelease (start, end in
 *              the text; a missing version is 0xffffffff, 0xffffffff), keywords (from, to in the
 *              keyword refs), publisher, flags (search record flags: 1 pro, 2 entitled, 4 deprecated)
 *   keywords   u32 pairs: each keyword's start and end in the text
 *   publishers u32 × 4 each: id start, end; display name start, end (the id when it has no name)
 *   words      i32 × (words + 1): each word's start in the words text
 *   postings   i32 × (words + 1) starts, i32 × postings documents, u8 × postings field masks
 *   keys       for ids, names, short names (docs each) and publishers (publisher keys): u32 pairs
 *              (the sorted lowercase keys' start and end), then i32 documents
 *   orders     i32 × docs documents in id order, i32 × docs in name order
 *   summaries  the summaries' text (same encoding), last: their positions continue the text's
 *
 * Search never reads a summary, and a search shows a few: a segment held in memory can leave the
 * summaries in its file (about half the text) and read one when a hit is made (decodeSegment's
 * `summaries`), so the memory of an index is what search needs (docs/scaling.md "Client memory").
 *
 * A segment is derived data: the manifest (disk-index.ts) names it by the SHA-256 of its bytes and
 * checks that before use, and decodeSegment checks every reference against the bounds as well, so
 * a damaged file is refused (and rebuilt from verified data), never trusted.
 */
import { AdcapError } from '../../errors.js';
import type { SearchRecord } from '../layout-v2.js';
import { SEARCH_FLAG_DEPRECATED } from '../layout-v2.js';
import { RankIndex, rankIndexData, type RankDocument, type RankIndexData, type RankKeys, type SortedStrings } from '../search-rank.js';

const MAGIC = 'ADCSRCH1';
export const SEGMENT_FORMAT = 2;
const HEADER_WORDS = 11;
const HEADER_BYTES = 8 + HEADER_WORDS * 4;
const RECORD_WORDS = 14;
const NONE = 0xffffffff;
/** Text of code units above 255 (anything but Latin-1) is stored as UTF-16, else one byte a code unit. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** A publisher as a segment records it: its id and the display name search matches. */
export interface SegmentPublisher {
  id: string;
  name: string;
}

/** The strings of a segment, each written once; positions in UTF-16 code units. */
class TextBuilder {
  private readonly parts: string[] = [];
  private readonly seen = new Map<string, number>();
  length = 0;

  /** Appends `text` as is (not shared), returning its start. */
  append(text: string): number {
    const start = this.length;
    this.parts.push(text);
    this.length += text.length;
    return start;
  }

  /** The start of `text`, written once. */
  add(text: string): number {
    const known = this.seen.get(text);
    if (known !== undefined) return known;
    const start = this.append(text);
    this.seen.set(text, start);
    return start;
  }

  text(): string {
    return this.parts.join('');
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/**
 * What a segment file is written from: the records (document d is records[d]), the publishers they
 * name (in order of first appearance) with each document's publisher number, and the rank index
 * data over them (rankIndexData's, or the same read from a wire segment, wire-segment.ts).
 */
export interface SegmentParts {
  records: readonly SearchRecord[];
  publishers: readonly SegmentPublisher[];
  publisherOf: Uint32Array;
  data: RankIndexData;
}

/** The publishers of `records` in order of first appearance, and each document's publisher number. */
export function segmentPublishers(
  records: readonly SearchRecord[],
  publisherName: (publisher: string) => string,
): { publishers: SegmentPublisher[]; publisherOf: Uint32Array } {
  const publishers: SegmentPublisher[] = [];
  const publisherNumber = new Map<string, number>();
  const publisherOf = new Uint32Array(records.length);
  records.forEach((record, d) => {
    const id = record[0];
    const publisher = id.slice(0, id.indexOf('/'));
    let p = publisherNumber.get(publisher);
    if (p === undefined) {
      p = publishers.length;
      publisherNumber.set(publisher, p);
      publishers.push({ id: publisher, name: publisherName(publisher) });
    }
    publisherOf[d] = p;
  });
  return { publishers, publisherOf };
}

/** The rank documents of `records` (search-rank.ts's view of a record). */
export function rankDocuments(
  records: readonly SearchRecord[],
  publishers: readonly SegmentPublisher[],
  publisherOf: Uint32Array,
): RankDocument[] {
  return records.map((record, d) => {
    const publisher = publishers[publisherOf[d] as number] as SegmentPublisher;
    return {
      id: record[0],
      name: record[1],
      summary: record[2],
      keywords: record[3],
      publisher: publisher.id,
      publisherName: publisher.name,
      deprecated: (record[6] & SEARCH_FLAG_DEPRECATED) !== 0,
    };
  });
}

/** The bytes of a segment over `records`; `publisherName` gives each publisher's display name (or its id). */
export function encodeSegment(records: readonly SearchRecord[], publisherName: (publisher: string) => string): Buffer {
  const { publishers, publisherOf } = segmentPublishers(records, publisherName);
  return segmentBytes({ records, publishers, publisherOf, data: rankIndexData(rankDocuments(records, publishers, publisherOf)) });
}

/** The bytes of a segment from its parts (the layout in this file's header). */
export function segmentBytes(parts: SegmentParts): Buffer {
  const { records, publishers, publisherOf, data } = parts;
  const n = records.length;
  const text = new TextBuilder();
  text.append(data.words.text);
  const wordsLength = text.length;

  // Strings a segment holds once per document (ids, names, summaries) are appended as they come;
  // the few that repeat across documents (versions, keywords, publishers) are written once. The key
  // tables point into those: a lowercase id or name equal to the original is the same text, and a
  // short name is the tail of the lowercase id.
  const recordWords = new Uint32Array(n * RECORD_WORDS);
  const keywordRefs: number[] = [];
  // Summaries go to their own text after everything else; their positions are made global below.
  const summaries = new TextBuilder();
  const lowerId = new Uint32Array(n);
  const lowerName = new Uint32Array(n);
  const shortName = new Uint32Array(n);
  const span = (start: number, length: number, at: number): void => {
    recordWords[at] = start;
    recordWords[at + 1] = start + length;
  };
  const shared = (value: string | null, at: number): void => {
    if (value === null) {
      recordWords[at] = NONE;
      recordWords[at + 1] = NONE;
    } else span(text.add(value), value.length, at);
  };
  records.forEach((record, d) => {
    const at = d * RECORD_WORDS;
    const [id, name] = record;
    const idStart = text.append(id);
    span(idStart, id.length, at);
    const nameStart = text.append(name);
    span(nameStart, name.length, at + 2);
    span(summaries.append(record[2]), record[2].length, at + 4);
    shared(record[4], at + 6);
    shared(record[5], at + 8);
    recordWords[at + 10] = keywordRefs.length / 2;
    for (const keyword of record[3]) {
      const start = text.add(keyword);
      keywordRefs.push(start, start + keyword.length);
    }
    recordWords[at + 11] = keywordRefs.length / 2;
    recordWords[at + 12] = publisherOf[d] as number;
    recordWords[at + 13] = record[6] >>> 0;
    const idLower = id.toLowerCase();
    const idLowerStart = idLower === id ? idStart : text.append(idLower);
    lowerId[d] = idLowerStart;
    shortName[d] = idLowerStart + idLower.indexOf('/') + 1;
    const nameLower = name.toLowerCase();
    lowerName[d] = nameLower === name ? nameStart : text.append(nameLower);
  });
  const publisherRefs = new Uint32Array(publishers.length * 4);
  publishers.forEach((p, i) => {
    const id = text.add(p.id);
    const name = text.add(p.name);
    publisherRefs.set([id, id + p.id.length, name, name + p.name.length], i * 4);
  });
  // A key of a per-document table starts where that document's string does (`starts`).
  const keyRefs = (table: RankKeys, starts?: Uint32Array): Uint32Array => {
    const out = new Uint32Array(table.keys.length * 2);
    for (let i = 0; i < table.keys.length; i++) {
      const key = table.keys.get(i);
      const start = starts === undefined ? text.add(key) : (starts[table.docs[i] as number] as number);
      out[i * 2] = start;
      out[i * 2 + 1] = start + key.length;
    }
    return out;
  };
  const tables = [
    { refs: keyRefs(data.ids, lowerId), docs: data.ids.docs },
    { refs: keyRefs(data.names, lowerName), docs: data.names.docs },
    { refs: keyRefs(data.shortNames, shortName), docs: data.shortNames.docs },
    { refs: keyRefs(data.publishers), docs: data.publishers.docs },
  ];
  for (let d = 0; d < n; d++) {
    recordWords[d * RECORD_WORDS + 4] = (recordWords[d * RECORD_WORDS + 4] as number) + text.length;
    recordWords[d * RECORD_WORDS + 5] = (recordWords[d * RECORD_WORDS + 5] as number) + text.length;
  }

  const all = text.text();
  const summaryText = summaries.text();
  // Positions are code units either way: Latin-1 has one byte per unit, UTF-16 two.
  const encoding = BEYOND_LATIN1.test(all) || BEYOND_LATIN1.test(summaryText) ? 1 : 0;
  const textBytes = Buffer.from(all, encoding === 0 ? 'latin1' : 'utf16le');
  return writeSegmentSections({
    encoding,
    wordsLength,
    text: textBytes,
    records: recordWords,
    keywordRefs: Uint32Array.from(keywordRefs),
    publisherRefs,
    wordStarts: data.words.starts,
    postingStart: data.postingStart,
    postingDocs: data.postingDocs,
    postingMasks: data.postingMasks,
    tables: tables as SegmentSections['tables'],
    byId: data.byId,
    byName: data.byName,
    summaries: Buffer.from(summaryText, encoding === 0 ? 'latin1' : 'utf16le'),
  });
}

/** The sections of a segment file as typed arrays (the layout in this file's header), not yet bound-checked. */
export interface SegmentSections {
  encoding: 0 | 1;
  /** Code units of the words text at the start of the text. */
  wordsLength: number;
  text: Uint8Array;
  /** RECORD_WORDS a document. */
  records: Uint32Array;
  keywordRefs: Uint32Array;
  publisherRefs: Uint32Array;
  wordStarts: Int32Array;
  postingStart: Int32Array;
  postingDocs: Int32Array;
  postingMasks: Uint8Array;
  /** ids, names, short names, publishers: sorted keys' (start, end) pairs and their documents. */
  tables: [SectionTable, SectionTable, SectionTable, SectionTable];
  byId: Int32Array;
  byName: Int32Array;
  /** The summaries' text (empty in a segment read without them; summaryBytes says their size). */
  summaries: Uint8Array;
  /** Bytes of the summaries' section (the file's last). */
  summaryBytes?: number;
}

export interface SectionTable {
  refs: Uint32Array;
  docs: Int32Array;
}

/** u32 words a document takes in the record table. */
export const SEGMENT_RECORD_WORDS = 14;
/** A missing version's start and end in the record table. */
export const SEGMENT_NONE = NONE;

/** The bytes of a segment file of these sections (header sizes follow from the sections). */
export function writeSegmentSections(sections: SegmentSections): Buffer {
  const { head, tail } = segmentFileParts(sections);
  return Buffer.concat([head, tail]);
}

/**
 * A segment file in two parts: `head`, everything before the summaries (what a segment held in
 * memory keeps, decodeSegmentHead), and `tail`, the summaries and the file's end padding. The file
 * is the two one after the other.
 */
export interface SegmentFileParts {
  head: Buffer;
  tail: Buffer;
}

/** The bytes of a segment file of these sections, in the two parts of SegmentFileParts. */
export function segmentFileParts(sections: SegmentSections): SegmentFileParts {
  const parts: Uint8Array[] = [
    sections.text,
    bytesOf(sections.records),
    bytesOf(sections.keywordRefs),
    bytesOf(sections.publisherRefs),
    bytesOf(sections.wordStarts),
    bytesOf(sections.postingStart),
    bytesOf(sections.postingDocs),
    sections.postingMasks,
    ...sections.tables.flatMap((table) => [bytesOf(table.refs), bytesOf(table.docs)]),
    bytesOf(sections.byId),
    bytesOf(sections.byName),
  ];
  let size = HEADER_BYTES;
  for (const part of parts) size = align4(size) + part.byteLength;
  // Not zero-filled: every byte is a section's or a padding byte set to zero below.
  const out = Buffer.allocUnsafe(align4(size));
  out.write(MAGIC, 0, 'latin1');
  const header = [
    SEGMENT_FORMAT,
    sections.encoding,
    sections.records.length / RECORD_WORDS,
    sections.wordStarts.length - 1,
    sections.postingDocs.length,
    sections.keywordRefs.length / 2,
    sections.publisherRefs.length / 4,
    sections.tables[3].docs.length,
    sections.text.byteLength,
    sections.wordsLength,
    sections.summaries.byteLength,
  ];
  header.forEach((value, i) => out.writeUInt32LE(value, 8 + i * 4));
  let at = HEADER_BYTES;
  for (const part of parts) {
    out.fill(0, at, align4(at));
    at = align4(at);
    out.set(part, at);
    at += part.byteLength;
  }
  out.fill(0, at);
  const tail = Buffer.alloc(align4(sections.summaries.byteLength));
  tail.set(sections.summaries, 0);
  return { head: out, tail };
}

/**
 * A segment held without its summaries from the head of its file (SegmentFileParts): the same as
 * decodeSegment(file, summaries), without the file's bytes in memory.
 */
export function decodeSegmentHead(head: Buffer, summaries: SummarySource, options: { checked?: boolean } = {}): Segment {
  const read = readSegmentSections(head, true);
  return checkedSegment(read.sections, read.buffer, head.length, summaries, options.checked === true);
}

/** decodeSegment's checks on the head of a segment file (SegmentFileParts), without making a segment of it. */
export function checkSegmentHead(head: Buffer): void {
  checkSections(readSegmentSections(head, true).sections);
}

function bytesOf(array: Int32Array | Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function damaged(why: string): AdcapError {
  return new AdcapError('E_CATALOG', `A stored search index segment is damaged (${why}); it is rebuilt from the verified catalogue.`, {
    details: { reason: 'search-index-damaged' },
  });
}

/** Strings of a segment's text read on demand from its bytes (positions in code units). */
class SegmentText {
  constructor(
    private readonly bytes: Buffer,
    private readonly at: number,
    private readonly wide: boolean,
    readonly length: number,
  ) {}

  /**
   * The first of `count` sorted strings (the i-th from refs[i * 2] to refs[i * 2 + 1]) not below
   * `value`. One byte a code unit compares in code-unit order as bytes, without making strings.
   */
  lowerBound(refs: Uint32Array, count: number, value: string): number {
    let lo = 0;
    let hi = count;
    if (!this.wide && !BEYOND_LATIN1.test(value)) {
      const target = Buffer.from(value, 'latin1');
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const below =
          this.bytes.compare(target, 0, target.length, this.at + (refs[mid * 2] as number), this.at + (refs[mid * 2 + 1] as number)) < 0;
        if (below) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slice(refs[mid * 2] as number, refs[mid * 2 + 1] as number) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  slice(from: number, to: number): string {
    return this.wide
      ? this.bytes.toString('utf16le', this.at + from * 2, this.at + to * 2)
      : this.bytes.toString('latin1', this.at + from, this.at + to);
  }
}

/** A segment read back: the rank index over its documents and their search records. */
export class Segment {
  readonly size: number;
  readonly rank: RankIndex;
  /** The segment's words, "\n" after each (RankWords.text). */
  readonly wordsText: string;
  private readonly text: SegmentText;
  private readonly records: Uint32Array;
  private readonly keywordRefs: Uint32Array;
  private readonly publisherRefs: Uint32Array;
  private readonly summaryText: (from: number, to: number) => string;
  private readonly allSummaries: () => (from: number, to: number) => string;

  constructor(fields: {
    size: number;
    text: SegmentText;
    records: Uint32Array;
    keywordRefs: Uint32Array;
    publisherRefs: Uint32Array;
    /** One summary's text (read from the file when the segment is held without them). */
    summaryText: (from: number, to: number) => string;
    /** Every summary, read once: for callers that list every record. */
    allSummaries: () => (from: number, to: number) => string;
    data: RankIndexData;
  }) {
    this.size = fields.size;
    this.text = fields.text;
    this.records = fields.records;
    this.keywordRefs = fields.keywordRefs;
    this.publisherRefs = fields.publisherRefs;
    this.summaryText = fields.summaryText;
    this.allSummaries = fields.allSummaries;
    this.wordsText = fields.data.words.text;
    this.rank = RankIndex.fromData(fields.data, (d) => this.document(d));
  }

  private slice(at: number, words: Uint32Array = this.records): string {
    return this.text.slice(words[at] as number, words[at + 1] as number);
  }

  private optional(at: number): string | null {
    return this.records[at] === NONE ? null : this.slice(at);
  }

  id(d: number): string {
    return this.slice(d * RECORD_WORDS);
  }

  flags(d: number): number {
    return this.records[d * RECORD_WORDS + 13] as number;
  }

  /** The publisher of document d: its id and display name. */
  publisherOf(d: number): SegmentPublisher {
    return this.publisher(this.records[d * RECORD_WORDS + 12] as number);
  }

  /** Every publisher the segment's documents name, with the display name it was built with. */
  publishers(): SegmentPublisher[] {
    return Array.from({ length: this.publisherRefs.length / 4 }, (_, p) => this.publisher(p));
  }

  private publisher(p: number): SegmentPublisher {
    return { id: this.slice(p * 4, this.publisherRefs), name: this.slice(p * 4 + 2, this.publisherRefs) };
  }

  keywords(d: number): string[] {
    const from = this.records[d * RECORD_WORDS + 10] as number;
    const to = this.records[d * RECORD_WORDS + 11] as number;
    const out: string[] = [];
    for (let k = from; k < to; k++) out.push(this.slice(k * 2, this.keywordRefs));
    return out;
  }

  /** The summary of document d. */
  summary(d: number): string {
    const at = d * RECORD_WORDS;
    return this.summaryText(this.records[at + 4] as number, this.records[at + 5] as number);
  }

  /** The search record of document d (`summaries`: every summary, read once by recordsInIdOrder). */
  record(d: number, summaries?: (from: number, to: number) => string): SearchRecord {
    const at = d * RECORD_WORDS;
    return [
      this.slice(at),
      this.slice(at + 2),
      summaries === undefined ? this.summary(d) : summaries(this.records[at + 4] as number, this.records[at + 5] as number),
      this.keywords(d),
      this.optional(at + 6),
      this.optional(at + 8),
      this.flags(d),
    ];
  }

  /**
   * Document d as search-rank.ts sees it: its id at once, the rest read only when asked for (a
   * lookup by id reads the id alone).
   */
  document(d: number): RankDocument {
    const name = (): string => this.slice(d * RECORD_WORDS + 2);
    const summary = (): string => this.summary(d);
    const keywords = (): string[] => this.keywords(d);
    const publisher = (): SegmentPublisher => this.publisherOf(d);
    const flags = (): number => this.flags(d);
    return {
      id: this.id(d),
      get name(): string {
        return name();
      },
      get summary(): string {
        return summary();
      },
      get keywords(): string[] {
        return keywords();
      },
      get publisher(): string {
        return publisher().id;
      },
      get publisherName(): string {
        return publisher().name;
      },
      get deprecated(): boolean {
        return (flags() & SEARCH_FLAG_DEPRECATED) !== 0;
      },
    };
  }

  /** Every search record in id order, the summaries read once. */
  recordsInIdOrder(): SearchRecord[] {
    const summaries = this.allSummaries();
    return Array.from(this.idOrder(), (d) => this.record(d, summaries));
  }

  /** Document numbers of the segment in id order. */
  idOrder(): Int32Array {
    return this.rank.idOrder();
  }

  /** The document with this id, or -1. */
  find(id: string): number {
    return this.rank.withId(id)[0] ?? -1;
  }
}

/**
 * Reads a segment back, checking the header, the sizes and every reference against its bounds
 * (E_CATALOG, reason search-index-damaged, when anything is off).
 */
export function decodeSegment(bytes: Buffer, summaries?: SummarySource, options: { checked?: boolean } = {}): Segment {
  const { sections, buffer } = readSegmentSections(bytes);
  if (summaries === undefined) {
    const at = sections.summaries.byteOffset - buffer.byteOffset;
    const inMemory = sections.summaries;
    return checkedSegment(sections, buffer, at, (from, to) => Buffer.from(inMemory.buffer, inMemory.byteOffset + from - at, to - from));
  }
  // `checked`: these very bytes passed decodeSegment's checks in this process already (a wire
  // segment just decoded, or bytes encodeSegment just made), so their bounds are not walked again.
  // Held without its summaries: a copy of the bytes before them (the rest is garbage once returned).
  const at = sections.summaries.byteOffset - buffer.byteOffset;
  const head = Buffer.allocUnsafe(at);
  buffer.copy(head, 0, 0, at);
  const read = readSegmentSections(head, true);
  return checkedSegment(read.sections, read.buffer, at, summaries, options.checked === true);
}

/**
 * Reads `to − from` bytes of a segment's file from byte `from` (its summaries, decodeSegment): the
 * file it was decoded from, or a check that it is still that file.
 */
export type SummarySource = (from: number, to: number) => Buffer;

/**
 * The sections of a segment file, their sizes checked against the header (E_CATALOG when off); not
 * their contents. `withoutSummaries`: the bytes end where the summaries would start.
 */
export function readSegmentSections(bytes: Buffer, withoutSummaries = false): { sections: SegmentSections; buffer: Buffer } {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC) throw damaged('not a segment');
  const header = Array.from({ length: HEADER_WORDS }, (_, i) => bytes.readUInt32LE(8 + i * 4));
  const [format, encoding, n, words, postings, keywords, publishers, publisherKeys, textBytes, wordsLength, summaryBytes] = header as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (format !== SEGMENT_FORMAT || (encoding !== 0 && encoding !== 1)) throw damaged('unknown format');
  // Views need 4-byte alignment in their buffer: a copy when the read did not give it.
  const buffer = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  let at = HEADER_BYTES;
  const take = (byteLength: number): number => {
    at = align4(at);
    const start = at;
    at += byteLength;
    if (at > buffer.length) throw damaged('truncated');
    return start;
  };
  const u32 = (count: number): Uint32Array => new Uint32Array(buffer.buffer, buffer.byteOffset + take(count * 4), count);
  const i32 = (count: number): Int32Array => new Int32Array(buffer.buffer, buffer.byteOffset + take(count * 4), count);
  const wide = encoding === 1;
  if (wide && textBytes % 2 !== 0) throw damaged('text');
  const textAt = take(textBytes);
  const records = u32(n * RECORD_WORDS);
  const keywordRefs = u32(keywords * 2);
  const publisherRefs = u32(publishers * 4);
  const wordStarts = i32(words + 1);
  const postingStart = i32(words + 1);
  const postingDocs = i32(postings);
  const masksAt = take(postings);
  const postingMasks = new Uint8Array(buffer.buffer, buffer.byteOffset + masksAt, postings);
  const tables = [n, n, n, publisherKeys].map((count) => ({ refs: u32(count * 2), docs: i32(count) })) as SegmentSections['tables'];
  const byId = i32(n);
  const byName = i32(n);
  if (wide && summaryBytes % 2 !== 0) throw damaged('text');
  const summariesAt = withoutSummaries ? align4(at) : take(summaryBytes);
  if (align4(withoutSummaries ? summariesAt : at) !== buffer.length) throw damaged('wrong size');
  const sections: SegmentSections = {
    encoding: wide ? 1 : 0,
    wordsLength,
    text: new Uint8Array(buffer.buffer, buffer.byteOffset + textAt, textBytes),
    records,
    keywordRefs,
    publisherRefs,
    wordStarts,
    postingStart,
    postingDocs,
    postingMasks,
    tables,
    byId,
    byName,
    summaries: new Uint8Array(buffer.buffer, buffer.byteOffset + summariesAt, withoutSummaries ? 0 : summaryBytes),
    summaryBytes,
  };
  return { sections, buffer };
}

/**
 * A segment over sections read from `buffer`, every reference checked against its bounds (E_CATALOG
 * when off); its summaries, `summaryBytes` from byte `summariesAt` of its file, read through `summaries`.
 */
function checkedSegment(
  sections: SegmentSections,
  buffer: Buffer,
  summariesAt: number,
  summaries: SummarySource,
  checked = false,
): Segment {
  const { wordsLength, records, keywordRefs, publisherRefs, wordStarts, postingStart, postingDocs, postingMasks, tables, byId, byName } =
    sections;
  const wide = sections.encoding === 1;
  const text = new SegmentText(
    buffer,
    sections.text.byteOffset - buffer.byteOffset,
    wide,
    wide ? sections.text.byteLength / 2 : sections.text.byteLength,
  );
  const n = records.length / RECORD_WORDS;
  const words = wordStarts.length - 1;
  const length = text.length;
  if (!checked) checkSections(sections);
  const summaryUnits = (sections.summaryBytes ?? sections.summaries.byteLength) / (wide ? 2 : 1);

  const keysOf = (table: { refs: Uint32Array; docs: Int32Array }): RankKeys => {
    const keys: SortedStrings = {
      length: table.docs.length,
      get: (i) => text.slice(table.refs[i * 2] as number, table.refs[i * 2 + 1] as number),
      lowerBound: (value) => text.lowerBound(table.refs, table.docs.length, value),
    };
    return { keys, docs: table.docs };
  };
  const deprecated = new Uint8Array(n);
  for (let d = 0; d < n; d++) deprecated[d] = ((records[d * RECORD_WORDS + 13] as number) & SEARCH_FLAG_DEPRECATED) !== 0 ? 1 : 0;
  const [ids, names, shortNames, publisherTable] = tables.map(keysOf) as [RankKeys, RankKeys, RankKeys, RankKeys];
  const summaryText = (from: number, to: number): string => {
    const at = summariesAt + (from - length) * (wide ? 2 : 1);
    const bytes = summaries(at, at + (to - from) * (wide ? 2 : 1));
    if (bytes.length !== (to - from) * (wide ? 2 : 1)) throw damaged('summaries');
    return bytes.toString(wide ? 'utf16le' : 'latin1');
  };
  const allSummaries = (): ((from: number, to: number) => string) => {
    const bytes = summaries(summariesAt, summariesAt + summaryUnits * (wide ? 2 : 1));
    if (bytes.length !== summaryUnits * (wide ? 2 : 1)) throw damaged('summaries');
    return (from, to) => bytes.toString(wide ? 'utf16le' : 'latin1', (from - length) * (wide ? 2 : 1), (to - length) * (wide ? 2 : 1));
  };
  return new Segment({
    size: n,
    text,
    records,
    keywordRefs,
    publisherRefs,
    summaryText,
    allSummaries,
    data: {
      size: n,
      words: { count: words, text: text.slice(0, wordsLength), starts: wordStarts },
      postingStart,
      postingDocs,
      postingMasks,
      ids,
      names,
      shortNames,
      publishers: publisherTable,
      deprecated,
      byId,
      byName,
    },
  });
}

/**
 * Bounds (E_CATALOG when off): every string inside the text (a summary inside the summaries'),
 * every document, keyword and publisher number in range, word and posting starts ascending, so that
 * no lookup reads past what is there.
 */
function checkSections(sections: SegmentSections): void {
  const { wordsLength, records, keywordRefs, publisherRefs, wordStarts, postingStart, postingDocs, tables, byId, byName } = sections;
  const wide = sections.encoding === 1;
  const length = sections.text.byteLength / (wide ? 2 : 1);
  const n = records.length / RECORD_WORDS;
  const postings = postingDocs.length;
  const keywords = keywordRefs.length / 2;
  const publishers = publisherRefs.length / 4;
  // Summaries lie in their own text, whose positions continue the text's.
  const summaryUnits = (sections.summaryBytes ?? sections.summaries.byteLength) / (wide ? 2 : 1);
  for (let d = 0; d < n; d++) {
    const r = d * RECORD_WORDS;
    for (let f = 0; f < 10; f += 2) {
      const from = records[r + f] as number;
      const to = records[r + f + 1] as number;
      if (f >= 6 && from === NONE && to === NONE) continue;
      if (f === 4 ? from < length || from > to || to > length + summaryUnits : from > to || to > length)
        throw damaged('a string out of bounds');
    }
    if ((records[r + 10] as number) > (records[r + 11] as number) || (records[r + 11] as number) > keywords) throw damaged('keywords');
    if ((records[r + 12] as number) >= publishers) throw damaged('a publisher out of range');
  }
  for (const refs of [keywordRefs, publisherRefs, ...tables.map((t) => t.refs)])
    for (let i = 0; i < refs.length; i += 2)
      if ((refs[i] as number) > (refs[i + 1] as number) || (refs[i + 1] as number) > length) throw damaged('a string out of bounds');
  if (wordsLength > length) throw damaged('words');
  for (const [values, last] of [
    [wordStarts, wordsLength],
    [postingStart, postings],
  ] as const) {
    if (values[0] !== 0 || values[values.length - 1] !== last) throw damaged('starts');
    for (let i = 1; i < values.length; i++) if ((values[i] as number) < (values[i - 1] as number)) throw damaged('starts');
  }
  for (const docs of [postingDocs, byId, byName, ...tables.map((t) => t.docs)])
    for (let i = 0; i < docs.length; i++) if ((docs[i] as number) >>> 0 >= n) throw damaged('a document out of range');
}

/** The checks of decodeSegment on a segment file's bytes, without making a segment of them. */
export function checkSegmentBytes(bytes: Buffer): SegmentSections {
  const { sections } = readSegmentSections(bytes);
  checkSections(sections);
  return sections;
}
