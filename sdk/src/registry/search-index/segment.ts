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
 * Search never reads a summary, the record table or a keyword reference, and a search shows a few
 * hits: a segment held in memory leaves them in its file (about 45% of it) and reads a page of hits'
 * rows, keywords and summaries with one open of the file (decodeSegment's `file`), keeping what every
 * match reads (the text, postings, key tables, orders, each document's id span and flags) in one
 * buffer, so the memory of an index is what search needs (docs/scaling.md "Client memory").
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
/**
 * Above this many hits of one segment, hits() reads the segment's records in one go (about what
 * 512 hits' three small reads each cost at 32,768 records a segment) instead of hit by hit.
 */
const BULK_HITS = 512;
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
  return Buffer.concat(segmentFileParts(sections).chunks);
}

/** Where sections of a segment file start, in bytes from the file's start. */
export interface SegmentLayout {
  records: number;
  keywordRefs: number;
  summaries: number;
  /** The file's size. */
  size: number;
}

/**
 * A segment file as the list of its bytes, without joining them in memory: the header, then each
 * section of `sections` (views of their arrays, not copies) with the zero padding between them. The
 * file is the chunks one after the other; `layout` says where its record table, keyword references
 * and summaries start.
 */
export interface SegmentFileParts {
  chunks: Uint8Array[];
  sections: SegmentSections;
  layout: SegmentLayout;
}

const PADDING = new Uint8Array(4);

/** A segment file of these sections, as SegmentFileParts. */
export function segmentFileParts(sections: SegmentSections): SegmentFileParts {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  [
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
  ].forEach((value, i) => header.writeUInt32LE(value, 8 + i * 4));
  const chunks: Uint8Array[] = [header];
  let at = HEADER_BYTES;
  const add = (part: Uint8Array): number => {
    if (align4(at) > at) chunks.push(PADDING.subarray(0, align4(at) - at));
    at = align4(at);
    const start = at;
    if (part.byteLength > 0) chunks.push(part);
    at += part.byteLength;
    return start;
  };
  add(sections.text);
  const records = add(bytesOf(sections.records));
  const keywordRefs = add(bytesOf(sections.keywordRefs));
  for (const part of [
    bytesOf(sections.publisherRefs),
    bytesOf(sections.wordStarts),
    bytesOf(sections.postingStart),
    bytesOf(sections.postingDocs),
    sections.postingMasks,
    ...sections.tables.flatMap((table) => [bytesOf(table.refs), bytesOf(table.docs)]),
    bytesOf(sections.byId),
    bytesOf(sections.byName),
  ])
    add(part);
  const summaries = add(sections.summaries);
  add(new Uint8Array(0));
  return { chunks, sections, layout: { records, keywordRefs, summaries, size: at } };
}

/**
 * decodeSegment's checks on the sections of a segment file about to be written from them
 * (SegmentFileParts), without making a segment of them.
 */
export function checkSegmentSections(sections: SegmentSections): void {
  checkSections(sections);
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

/**
 * The record table, keyword references and summaries of a segment: in memory, or read from its
 * file when a hit or a listing asks (a segment held without them, docs/scaling.md "Client memory").
 */
interface RecordSource {
  /** Reads through `use` (from the file: one open of it for every read `use` makes). */
  read<T>(use: (reader: RecordReader) => T): T;
  /** The whole record table, keyword references and summaries, read once: for callers that list every record. */
  all(): { rows: Uint32Array; keywordRefs: Uint32Array; summary: (from: number, to: number) => string };
}

interface RecordReader {
  /** Document d's row of the record table (RECORD_WORDS words). */
  row(d: number): Uint32Array;
  /** Keyword references from..to (a start and an end each). */
  keywordRefs(from: number, to: number): Uint32Array;
  /** A summary's text (positions in code units, continuing the text's). */
  summary(from: number, to: number): string;
}

/** A segment read back: the rank index over its documents and their search records. */
export class Segment {
  readonly size: number;
  readonly rank: RankIndex;
  /** The segment's words, "\n" after each (RankWords.text). */
  readonly wordsText: string;
  private readonly text: SegmentText;
  /** Each document's id: its start and end in the text (search merges segments by id). */
  private readonly idSpans: Uint32Array;
  /** Each document's search record flags (filters read them for every match). */
  private readonly flagBytes: Uint8Array;
  private readonly publisherRefs: Uint32Array;
  private readonly source: RecordSource;

  constructor(fields: {
    size: number;
    text: SegmentText;
    idSpans: Uint32Array;
    flags: Uint8Array;
    publisherRefs: Uint32Array;
    records: RecordSource;
    data: RankIndexData;
  }) {
    this.size = fields.size;
    this.text = fields.text;
    this.idSpans = fields.idSpans;
    this.flagBytes = fields.flags;
    this.publisherRefs = fields.publisherRefs;
    this.source = fields.records;
    this.wordsText = fields.data.words.text;
    this.rank = RankIndex.fromData(fields.data, (d) => this.document(d));
  }

  private slice(at: number, words: Uint32Array): string {
    return this.text.slice(words[at] as number, words[at + 1] as number);
  }

  id(d: number): string {
    return this.slice(d * 2, this.idSpans);
  }

  flags(d: number): number {
    return this.flagBytes[d] as number;
  }

  /** The publisher of document d: its id and display name. */
  publisherOf(d: number): SegmentPublisher {
    return this.source.read((reader) => this.publisher(reader.row(d)[12] as number));
  }

  /** Every publisher the segment's documents name, with the display name it was built with. */
  publishers(): SegmentPublisher[] {
    return Array.from({ length: this.publisherRefs.length / 4 }, (_, p) => this.publisher(p));
  }

  private publisher(p: number): SegmentPublisher {
    return { id: this.slice(p * 4, this.publisherRefs), name: this.slice(p * 4 + 2, this.publisherRefs) };
  }

  keywords(d: number): string[] {
    return this.source.read((reader) => {
      const row = reader.row(d);
      return this.keywordsOf(row, reader.keywordRefs(row[10] as number, row[11] as number), row[10] as number);
    });
  }

  /** The keywords of a row whose references are refs[(row[10] - first) * 2 …]. */
  private keywordsOf(row: Uint32Array, refs: Uint32Array, first: number): string[] {
    const out: string[] = [];
    for (let k = (row[10] as number) - first; k < (row[11] as number) - first; k++) out.push(this.slice(k * 2, refs));
    return out;
  }

  /** The summary of document d. */
  summary(d: number): string {
    return this.source.read((reader) => {
      const row = reader.row(d);
      return reader.summary(row[4] as number, row[5] as number);
    });
  }

  /** The search record of document d. */
  record(d: number): SearchRecord {
    return this.hits([d])[0]?.record as SearchRecord;
  }

  /** The search records and publishers of documents `ds` (a page of hits), read together. */
  hits(ds: readonly number[]): Array<{ record: SearchRecord; publisher: SegmentPublisher }> {
    if (ds.length > BULK_HITS) {
      // Many hits of one segment (a search that lists every match): the record table, keyword
      // references and summaries in one read each, checked as a whole (as recordsInIdOrder reads
      // them), instead of three reads per hit (measured: 1.0 s of reads for a 500,000 catalogue's
      // "pdf"; memory: one segment's rows and summaries while the hits are made).
      const { rows, keywordRefs, summary } = this.source.all();
      return ds.map((d) => {
        const row = rows.subarray(d * RECORD_WORDS, (d + 1) * RECORD_WORDS);
        return { record: this.recordOf(d, row, keywordRefs, 0, summary), publisher: this.publisher(row[12] as number) };
      });
    }
    return this.source.read((reader) =>
      ds.map((d) => {
        const row = reader.row(d);
        const keywords = reader.keywordRefs(row[10] as number, row[11] as number);
        return {
          record: this.recordOf(d, row, keywords, row[10] as number, (from, to) => reader.summary(from, to)),
          publisher: this.publisher(row[12] as number),
        };
      }),
    );
  }

  private recordOf(
    d: number,
    row: Uint32Array,
    keywordRefs: Uint32Array,
    firstKeyword: number,
    summary: (from: number, to: number) => string,
  ): SearchRecord {
    const optional = (at: number): string | null => (row[at] === NONE ? null : this.slice(at, row));
    return [
      this.id(d),
      this.slice(2, row),
      summary(row[4] as number, row[5] as number),
      this.keywordsOf(row, keywordRefs, firstKeyword),
      optional(6),
      optional(8),
      row[13] as number,
    ];
  }

  /**
   * Document d as search-rank.ts sees it: its id at once, the rest read only when asked for (a
   * lookup by id reads the id alone).
   */
  document(d: number): RankDocument {
    const record = (): SearchRecord => this.record(d);
    const publisher = (): SegmentPublisher => this.publisherOf(d);
    const flags = this.flags(d);
    return {
      id: this.id(d),
      get name(): string {
        return record()[1];
      },
      get summary(): string {
        return record()[2];
      },
      get keywords(): string[] {
        return record()[3];
      },
      get publisher(): string {
        return publisher().id;
      },
      get publisherName(): string {
        return publisher().name;
      },
      deprecated: (flags & SEARCH_FLAG_DEPRECATED) !== 0,
    };
  }

  /** Every search record in id order, the record table, keywords and summaries read once. */
  recordsInIdOrder(): SearchRecord[] {
    const { rows, keywordRefs, summary } = this.source.all();
    return Array.from(this.idOrder(), (d) =>
      this.recordOf(d, rows.subarray(d * RECORD_WORDS, (d + 1) * RECORD_WORDS), keywordRefs, 0, summary),
    );
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
 * (E_CATALOG, reason search-index-damaged, when anything is off). With `file`, the file it was
 * read from (SegmentFile), the segment is held without its record table, keyword references and
 * summaries, which are read from the file when asked for (docs/scaling.md "Client memory"): `bytes`
 * is garbage once this returns. `checked`: these very bytes passed decodeSegment's checks in this
 * process already (bytes encodeSegment just made), so their bounds are not walked again.
 */
export function decodeSegment(bytes: Buffer, file?: SegmentFile, options: { checked?: boolean } = {}): Segment {
  const { sections, buffer } = readSegmentSections(bytes);
  if (file === undefined) {
    checkSections(sections);
    return inMemorySegment(sections);
  }
  const offset = (array: Uint8Array | Uint32Array): number => array.byteOffset - buffer.byteOffset;
  const layout = {
    records: offset(sections.records),
    keywordRefs: offset(sections.keywordRefs),
    summaries: offset(sections.summaries),
    size: buffer.length,
  };
  return heldSegment(sections, layout, file, options);
}

/**
 * A segment's file, which must still be the one it was decoded from (decodeSegment): `use` reads
 * `to − from` bytes from byte `from` (its record table, keyword references and summaries) as often
 * as it needs, the file opened and its identity checked once for them all.
 */
export type SegmentFile = <T>(use: (read: (from: number, to: number) => Buffer) => T) => T;

/**
 * The segment of sections just written to a file of `layout` (SegmentFileParts), held without what
 * it reads from the file through `file` (decodeSegment). `checked`: see decodeSegment.
 */
export function heldSegment(
  sections: SegmentSections,
  layout: SegmentLayout,
  file: SegmentFile,
  options: { checked?: boolean } = {},
): Segment {
  if (options.checked !== true) checkSections(sections);
  const wide = sections.encoding === 1;
  const unit = wide ? 2 : 1;
  const n = sections.records.length / RECORD_WORDS;
  const keywords = sections.keywordRefs.length / 2;
  const publishers = sections.publisherRefs.length / 4;
  const textUnits = sections.text.byteLength / unit;
  const summaryUnits = (sections.summaryBytes ?? sections.summaries.byteLength) / unit;
  // What search reads for every match is kept: the text (keys, ids, words), the postings, key tables
  // and orders, each document's id span and flags. A part that is a view of a larger buffer (the
  // file's bytes, a gunzipped wire segment) is copied into one buffer of their own, so that the
  // larger one is garbage once this returns; an array of its own (a wire segment's decoded arrays)
  // is kept as it is, not copied.
  const kept: Array<Uint8Array | Uint32Array | Int32Array> = [
    sections.text,
    sections.publisherRefs,
    sections.wordStarts,
    sections.postingStart,
    sections.postingDocs,
    sections.postingMasks,
    ...sections.tables.flatMap((table) => [table.refs, table.docs]),
    sections.byId,
    sections.byName,
  ];
  const own = (part: Uint8Array | Uint32Array | Int32Array): boolean => part.byteOffset === 0 && part.buffer.byteLength === part.byteLength;
  let size = 0;
  for (const part of kept) if (!own(part)) size = align4(size) + part.byteLength;
  size = align4(size) + n * 8;
  size += n;
  const held = Buffer.allocUnsafe(size);
  let at = 0;
  const place = (part: Uint8Array | Uint32Array | Int32Array): number => {
    at = align4(at);
    const start = at;
    held.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), start);
    at += part.byteLength;
    return held.byteOffset + start;
  };
  const copy = <T extends Uint8Array | Uint32Array | Int32Array>(part: T): T => {
    if (own(part)) return part;
    if (part instanceof Uint32Array) return new Uint32Array(held.buffer, place(part), part.length) as T;
    if (part instanceof Int32Array) return new Int32Array(held.buffer, place(part), part.length) as T;
    return new Uint8Array(held.buffer, place(part), part.length) as T;
  };
  const text = copy(sections.text);
  const copied: SegmentSections = {
    ...sections,
    text,
    publisherRefs: copy(sections.publisherRefs),
    wordStarts: copy(sections.wordStarts),
    postingStart: copy(sections.postingStart),
    postingDocs: copy(sections.postingDocs),
    postingMasks: copy(sections.postingMasks),
    tables: sections.tables.map((table) => ({ refs: copy(table.refs), docs: copy(table.docs) })) as SegmentSections['tables'],
    byId: copy(sections.byId),
    byName: copy(sections.byName),
  };
  at = align4(at);
  const idSpans = new Uint32Array(held.buffer, held.byteOffset + at, n * 2);
  const flags = new Uint8Array(held.buffer, held.byteOffset + at + n * 8, n);
  const { records } = sections;
  for (let d = 0; d < n; d++) {
    idSpans[d * 2] = records[d * RECORD_WORDS] as number;
    idSpans[d * 2 + 1] = records[d * RECORD_WORDS + 1] as number;
    flags[d] = (records[d * RECORD_WORDS + 13] as number) & 0xff;
  }
  // Read from the file, which must still be the one checked (`file`); each row and reference read is
  // checked against the bounds again, as decodeSegment checked them all.
  const words = (read: (from: number, to: number) => Buffer, from: number, count: number, what: string): Uint32Array => {
    const bytes = read(from, from + count * 4);
    if (bytes.length !== count * 4) throw damaged(what);
    const out = new Uint32Array(count);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  };
  const checkedRefs = (refs: Uint32Array): Uint32Array => {
    checkRefs(refs, textUnits);
    return refs;
  };
  const summaryBytes = (read: (from: number, to: number) => Buffer, from: number, to: number): Buffer => {
    const bytes = read(layout.summaries + (from - textUnits) * unit, layout.summaries + (to - textUnits) * unit);
    if (bytes.length !== (to - from) * unit) throw damaged('summaries');
    return bytes;
  };
  const fromFile: RecordSource = {
    read: (use) =>
      file((read) =>
        use({
          row: (d) => {
            const row = words(read, layout.records + d * RECORD_WORDS * 4, RECORD_WORDS, 'records');
            checkRow(row, 0, textUnits, summaryUnits, keywords, publishers);
            return row;
          },
          keywordRefs: (from, to) =>
            to > from ? checkedRefs(words(read, layout.keywordRefs + from * 8, (to - from) * 2, 'keywords')) : new Uint32Array(0),
          summary: (from, to) => {
            if (from < textUnits || from > to || to > textUnits + summaryUnits) throw damaged('a string out of bounds');
            return summaryBytes(read, from, to).toString(wide ? 'utf16le' : 'latin1');
          },
        }),
      ),
    all: () =>
      file((read) => {
        const rows = words(read, layout.records, n * RECORD_WORDS, 'records');
        for (let d = 0; d < n; d++) checkRow(rows, d * RECORD_WORDS, textUnits, summaryUnits, keywords, publishers);
        const keywordRefs = checkedRefs(words(read, layout.keywordRefs, keywords * 2, 'keywords'));
        const all = summaryBytes(read, textUnits, textUnits + summaryUnits);
        const summary = (from: number, to: number): string =>
          all.toString(wide ? 'utf16le' : 'latin1', (from - textUnits) * unit, (to - textUnits) * unit);
        return { rows, keywordRefs, summary };
      }),
  };
  return segmentOf(copied, fromFile, idSpans, flags);
}

/** A segment whose sections are all in memory (`bytes` of a whole file; checked already). */
function inMemorySegment(sections: SegmentSections): Segment {
  const wide = sections.encoding === 1;
  const unit = wide ? 2 : 1;
  const n = sections.records.length / RECORD_WORDS;
  const textUnits = sections.text.byteLength / unit;
  const { records, keywordRefs, summaries } = sections;
  const summary = (from: number, to: number): string =>
    Buffer.from(summaries.buffer, summaries.byteOffset, summaries.byteLength).toString(
      wide ? 'utf16le' : 'latin1',
      (from - textUnits) * unit,
      (to - textUnits) * unit,
    );
  const idSpans = new Uint32Array(n * 2);
  const flags = new Uint8Array(n);
  for (let d = 0; d < n; d++) {
    idSpans[d * 2] = records[d * RECORD_WORDS] as number;
    idSpans[d * 2 + 1] = records[d * RECORD_WORDS + 1] as number;
    flags[d] = (records[d * RECORD_WORDS + 13] as number) & 0xff;
  }
  const reader: RecordReader = {
    row: (d) => records.subarray(d * RECORD_WORDS, (d + 1) * RECORD_WORDS),
    keywordRefs: (from, to) => keywordRefs.subarray(from * 2, to * 2),
    summary,
  };
  const source: RecordSource = { read: (use) => use(reader), all: () => ({ rows: records, keywordRefs, summary }) };
  return segmentOf(sections, source, idSpans, flags);
}

/** The Segment over checked sections (the text's bytes in `sections.text`). */
function segmentOf(sections: SegmentSections, records: RecordSource, idSpans: Uint32Array, flags: Uint8Array): Segment {
  const { wordsLength, publisherRefs, wordStarts, postingStart, postingDocs, postingMasks, tables, byId, byName } = sections;
  const wide = sections.encoding === 1;
  const bytes = Buffer.from(sections.text.buffer, sections.text.byteOffset, sections.text.byteLength);
  const text = new SegmentText(bytes, 0, wide, wide ? bytes.length / 2 : bytes.length);
  const n = flags.length;
  const keysOf = (table: { refs: Uint32Array; docs: Int32Array }): RankKeys => {
    const keys: SortedStrings = {
      length: table.docs.length,
      get: (i) => text.slice(table.refs[i * 2] as number, table.refs[i * 2 + 1] as number),
      lowerBound: (value) => text.lowerBound(table.refs, table.docs.length, value),
    };
    return { keys, docs: table.docs };
  };
  const deprecated = new Uint8Array(n);
  for (let d = 0; d < n; d++) deprecated[d] = ((flags[d] as number) & SEARCH_FLAG_DEPRECATED) !== 0 ? 1 : 0;
  const [ids, names, shortNames, publisherTable] = tables.map(keysOf) as [RankKeys, RankKeys, RankKeys, RankKeys];
  return new Segment({
    size: n,
    text,
    idSpans,
    flags,
    publisherRefs,
    records,
    data: {
      size: n,
      words: { count: wordStarts.length - 1, text: text.slice(0, wordsLength), starts: wordStarts },
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
 * The sections of a segment file, their sizes checked against the header (E_CATALOG when off); not
 * their contents.
 */
export function readSegmentSections(bytes: Buffer): { sections: SegmentSections; buffer: Buffer } {
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
  const summariesAt = take(summaryBytes);
  if (align4(at) !== buffer.length) throw damaged('wrong size');
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
    summaries: new Uint8Array(buffer.buffer, buffer.byteOffset + summariesAt, summaryBytes),
    summaryBytes,
  };
  return { sections, buffer };
}

/**
 * Whether row r of `records` (RECORD_WORDS words) is within bounds (E_CATALOG when not): its strings
 * inside the text (its summary inside the summaries', whose positions continue the text's), its
 * keywords and publisher in range.
 */
function checkRow(records: Uint32Array, r: number, length: number, summaryUnits: number, keywords: number, publishers: number): void {
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

/** Whether every (start, end) pair of `refs` lies inside a text of `length` code units (E_CATALOG when not). */
function checkRefs(refs: Uint32Array, length: number): void {
  for (let i = 0; i < refs.length; i += 2)
    if ((refs[i] as number) > (refs[i + 1] as number) || (refs[i + 1] as number) > length) throw damaged('a string out of bounds');
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
  for (let d = 0; d < n; d++) checkRow(records, d * RECORD_WORDS, length, summaryUnits, keywords, publishers);
  for (const refs of [keywordRefs, publisherRefs, ...tables.map((t) => t.refs)]) checkRefs(refs, length);
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
