/**
 * A remote's stored search index (docs/scaling.md "Cold start and offline search"), kept under
 * home/remotes/<name>/search-index/ beside the remote's verified state:
 *
 *   manifest.json     what the index was built from (layout 1: the SHA-256 of the accepted
 *                     catalogue file; layout 2: the node pins of each segment's nodes and the
 *                     publishers' pin), and each segment's file, size and number of capabilities
 *   <sha256>.seg      segments (segment.ts), named by the SHA-256 of their bytes
 *   <sha256>.dict     every word of every segment, sorted (a RankDictionary): a query's typo and
 *                     inside-a-word lookups scan it once instead of once per segment
 *   verified.json     the files already hashed, by their stat identity (verified-files.ts): a new
 *                     process does not hash a file again while it is unchanged
 *
 * The index is derived data. A process checks the manifest against the state it verified (the
 * catalogue's hash, the top level's node pins) and each segment against its name (once per content,
 * verified-files.ts) and its bounds before using it; anything missing, different or damaged is
 * rebuilt from verified data, never used. A search only
 * lists capabilities: opening or installing one still reads its bin or package document and
 * checks it against the signed catalogue.
 *
 * Segments are written first and the manifest last (each atomically), so a crash leaves the
 * previous manifest with the segments it names; segments no manifest names are removed afterwards.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../../errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import { createSha256, sha256Hex, SHA256_HEX } from '../../util/hash.js';
import { capabilityOfSearchRecord, searchRecordOf, SEARCH_FLAG_DEPRECATED, SEARCH_FLAG_ENTITLED, SEARCH_FLAG_PRO } from '../layout-v2.js';
import type { SearchRecord } from '../layout-v2.js';
import { compareRanked, RankDictionary, type RankMatches, type RankWords, type WordLookups } from '../search-rank.js';
import type { SearchFilters, SearchHit } from '../search.js';
import type { CatalogueCapability, CataloguePayload } from '../types.js';
import {
  decodeSegment,
  encodeSegment,
  heldSegment,
  SEGMENT_FORMAT,
  type Segment,
  type SegmentFileParts,
  type SegmentPublisher,
  type SegmentFile,
} from './segment.js';
import { stampOf, sameStamp, VerifiedFiles, type FileStamp } from './verified-files.js';

/** The manifest's format; a different one (an older or newer SDK) means a rebuild. */
const MANIFEST_FORMAT = 2;
/**
 * Capabilities a segment holds at most (docs/scaling.md "Cold start and offline search"): a layout-1
 * catalogue is cut into segments of this many, and layout 2 puts as many whole nodes in one segment
 * as stay within it. A search costs a little per segment and a refresh rebuilds one segment, so
 * segments are a few tens of thousands of capabilities: 16 at 500,000.
 */
export const SEGMENT_DOCS = 32_768;

/** What an index was built from. */
export type IndexSource =
  | {
      layout: 'v1';
      catalogueSha256: string;
      /** The catalogue's generatedAt, for the freshness check of a search that does not load it. */
      generatedAt: string;
    }
  | {
      layout: 'v2';
      /** The path of the publishers' node pin whose display names the segments hold. */
      publishers: string;
    };

/** One segment as the manifest names it. */
export interface IndexSegmentEntry {
  /** SHA-256 of the segment's bytes (its file is <file>.seg). */
  file: string;
  size: number;
  count: number;
  /** Layout 2: the SHA-256 of each node whose records it holds, in node order (consecutive nodes). */
  nodes?: string[];
}

export interface IndexManifest {
  format: number;
  segmentFormat: number;
  source: IndexSource;
  count: number;
  segments: IndexSegmentEntry[];
  /** The dictionary of all the segments' words. */
  dictionary: { file: string; size: number };
}

const DICTIONARY_MAGIC = 'ADCDICT1';

/** Text of code units above 255 (anything but Latin-1) is stored as UTF-16, else one byte a code unit. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * The dictionary file of the words of all `segments`, each once, in code-unit order, and its words.
 * Each segment's words are sorted (an SDK writes them so, and a wire segment's are checked), so they
 * are merged in one pass over the segments' word texts, written into the file's bytes as they come:
 * no string is made per word (at 500,000 capabilities, 16 segments of about 44,000 words each, a
 * list of strings per segment cost about 70 MB of heap at the cold start's peak). A forged segment's
 * unsorted words would only misorder the dictionary, whose lookups stay within its bounds.
 */
function mergedDictionary(segments: readonly Segment[]): { bytes: Buffer; words: RankWords } {
  const texts = segments.map((segment) => segment.wordsText);
  const wide = texts.some((text) => BEYOND_LATIN1.test(text));
  const unitBytes = wide ? 2 : 1;
  let most = 0;
  for (const text of texts) most += text.length;
  // At most every word of every segment (duplicates are written once): sliced to what was written.
  const out = Buffer.allocUnsafe(16 + most * unitBytes);
  const starts = new Int32Array(most + 1);
  // A cursor per segment: its next word is texts[s] from at[s] to end[s] ("\n" at end[s]).
  const at = new Int32Array(texts.length);
  const end = new Int32Array(texts.length);
  const heap: number[] = [];
  const compare = (a: number, b: number): number => {
    const x = texts[a] as string;
    const y = texts[b] as string;
    const xAt = at[a] as number;
    const yAt = at[b] as number;
    const xLength = (end[a] as number) - xAt;
    const yLength = (end[b] as number) - yAt;
    const common = Math.min(xLength, yLength);
    for (let i = 0; i < common; i++) {
      const order = x.charCodeAt(xAt + i) - y.charCodeAt(yAt + i);
      if (order !== 0) return order;
    }
    return xLength - yLength;
  };
  const down = (i: number): void => {
    for (;;) {
      const l = i * 2 + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && compare(heap[l] as number, heap[m] as number) < 0) m = l;
      if (r < heap.length && compare(heap[r] as number, heap[m] as number) < 0) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  texts.forEach((text, s) => {
    const next = text.indexOf('\n');
    if (next < 0) return;
    end[s] = next;
    heap.push(s);
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  let count = 0;
  let units = 0;
  // The last word written: its segment's text and span (a word equal to it is not written again).
  let lastText = '';
  let lastAt = 0;
  let lastLength = -1;
  while (heap.length > 0) {
    const s = heap[0] as number;
    const text = texts[s] as string;
    const from = at[s] as number;
    const length = (end[s] as number) - from;
    let same = length === lastLength;
    for (let i = 0; same && i < length; i++) same = text.charCodeAt(from + i) === lastText.charCodeAt(lastAt + i);
    if (!same) {
      starts[count++] = units;
      let o = 16 + units * unitBytes;
      for (let i = from; i <= from + length; i++) {
        const c = text.charCodeAt(i); // the word and its "\n"
        if (wide) {
          out[o++] = c & 0xff;
          out[o++] = c >>> 8;
        } else out[o++] = c;
      }
      units += length + 1;
      lastText = text;
      lastAt = from;
      lastLength = length;
    }
    at[s] = from + length + 1;
    const next = text.indexOf('\n', at[s]);
    if (next < 0) {
      const last = heap.pop() as number;
      if (heap.length > 0) heap[0] = last;
    } else end[s] = next;
    if (heap.length > 0) down(0);
  }
  starts[count] = units;
  const bytes = out.subarray(0, 16 + units * unitBytes);
  bytes.write(DICTIONARY_MAGIC, 0, 'latin1');
  bytes.writeUInt32LE(wide ? 1 : 0, 8);
  bytes.writeUInt32LE(count, 12);
  return { bytes, words: { count, text: bytes.toString(wide ? 'utf16le' : 'latin1', 16), starts: starts.slice(0, count + 1) } };
}

/** A dictionary read back, or null when it is not one (its words must be sorted, each once). */
function decodeDictionary(bytes: Buffer): RankDictionary | null {
  if (bytes.length < 16 || bytes.toString('latin1', 0, 8) !== DICTIONARY_MAGIC) return null;
  const wide = bytes.readUInt32LE(8);
  const count = bytes.readUInt32LE(12);
  if (wide > 1 || (wide === 1 && bytes.length % 2 !== 0)) return null;
  const text = bytes.toString(wide === 1 ? 'utf16le' : 'latin1', 16);
  const starts = new Int32Array(count + 1);
  let w = 0;
  let from = 0;
  let previous = '';
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', from)) {
    if (w >= count) return null;
    const word = text.slice(from, at);
    if (w > 0 && !(previous < word)) return null;
    previous = word;
    starts[w++] = from;
    from = at + 1;
  }
  if (w !== count || from !== text.length) return null;
  starts[count] = from;
  return new RankDictionary({ count, text, starts });
}

/** The files of a remote's stored search index. */
export class SearchIndexStore {
  private readonly verified: VerifiedFiles;
  /**
   * The segments of the index this store last opened or built, by file (the SHA-256 of the bytes
   * they were decoded from after their checks): a refresh in the same process that finds the same
   * segments uses these instead of reading and decoding the files again.
   */
  private held = new Map<string, Segment>();

  constructor(readonly dir: string) {
    this.verified = new VerifiedFiles(dir);
  }

  /**
   * The bytes of `name` when they are `size` bytes that hash to `sha256`, else null. A file whose
   * stat identity (the same before and after the read) is in verified.json is not hashed again.
   */
  private async readVerified(name: string, sha256: string, size: number): Promise<{ bytes: Buffer; stamp: FileStamp } | null> {
    let handle;
    try {
      handle = await open(join(this.dir, name), 'r');
    } catch {
      return null;
    }
    try {
      const before = stampOf(await handle.stat({ bigint: true }));
      if (before.size !== String(size)) return null;
      // One buffer of the size the manifest gives, filled in place (no chunks joined afterwards).
      const bytes = Buffer.allocUnsafe(size);
      for (let at = 0; at < size;) {
        const { bytesRead } = await handle.read(bytes, at, size - at, at);
        if (bytesRead === 0) return null;
        at += bytesRead;
      }
      const after = stampOf(await handle.stat({ bigint: true }));
      if (sameStamp(before, after) && (await this.verified.has(name, after))) return { bytes, stamp: after };
      if (sha256Hex(bytes) !== sha256) return null;
      if (!sameStamp(before, after)) return null; // changed while read: what was hashed may not be the file
      await this.verified.add(name, after);
      return { bytes, stamp: after };
    } catch {
      return null;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Records a file this SDK has just written from bytes it hashed itself; its stamp, or null. */
  private async wrote(name: string): Promise<FileStamp | null> {
    try {
      const stamp = stampOf(await stat(join(this.dir, name), { bigint: true }));
      await this.verified.add(name, stamp);
      return stamp;
    } catch {
      return null; // Not recorded: it is hashed when next read.
    }
  }

  /**
   * The file of a segment held without its record table, keyword references and summaries
   * (docs/scaling.md "Client memory"): opened once for a batch of reads, and it must still be the
   * file that was checked (the same stamp), else E_CATALOG: the index is read and checked again by
   * the next open.
   */
  private fileOf(file: string, stamp: FileStamp): SegmentFile {
    const path = this.segmentPath(file);
    // A segment whose file changed is no longer held: the next open or sync reads and checks the files.
    const changed = (): AdcapError => {
      this.held.delete(file);
      return changedSegment();
    };
    return (use) => {
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch {
        throw changed();
      }
      try {
        if (!sameStamp(stampOf(fstatSync(fd, { bigint: true })), stamp)) throw changed();
        return use((from, to) => {
          const out = Buffer.allocUnsafe(to - from);
          for (let at = 0; at < out.length;) {
            const read = readSync(fd, out, at, out.length - at, from + at);
            if (read === 0) throw changed();
            at += read;
          }
          return out;
        });
      } finally {
        closeSync(fd);
      }
    };
  }

  /**
   * The segment of `bytes` just written as `entry`, held without its summaries (read from the
   * file); with them when the file's stamp could not be read. `checked`: see decodeSegment.
   */
  private segmentOf(entry: IndexSegmentEntry, bytes: Buffer, stamp: FileStamp | null, checked: boolean): Segment {
    return stamp === null ? decodeSegment(bytes) : decodeSegment(bytes, this.fileOf(entry.file, stamp), { checked });
  }

  /** Writes verified.json when files were checked or written since it was read. */
  async saveVerified(): Promise<void> {
    await this.verified.save();
  }

  private get manifestPath(): string {
    return join(this.dir, 'manifest.json');
  }

  private segmentPath(file: string): string {
    return join(this.dir, `${file}.seg`);
  }

  /** The manifest when it is whole and of this SDK's formats, else null (the caller rebuilds). */
  async readManifest(): Promise<IndexManifest | null> {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(this.manifestPath, 'utf8'));
    } catch {
      return null;
    }
    return manifestShape(value);
  }

  async writeManifest(manifest: IndexManifest): Promise<void> {
    await writeJsonAtomic(this.manifestPath, manifest);
  }

  /** The dictionary the manifest names, when its bytes hash to its name and read back; else null. */
  async readDictionary(entry: { file: string; size: number }): Promise<RankDictionary | null> {
    const read = await this.readVerified(`${entry.file}.dict`, entry.file, entry.size);
    return read === null ? null : decodeDictionary(read.bytes);
  }

  /** Writes the dictionary of `segments`' words under its SHA-256. */
  async writeDictionary(segments: readonly Segment[]): Promise<{ entry: { file: string; size: number }; dictionary: RankDictionary }> {
    const { bytes, words } = mergedDictionary(segments);
    const file = sha256Hex(bytes);
    await writeFileAtomic(join(this.dir, `${file}.dict`), bytes);
    await this.wrote(`${file}.dict`);
    return { entry: { file, size: bytes.length }, dictionary: new RankDictionary(words) };
  }

  /**
   * Writes a segment's bytes under their SHA-256 (an existing file of that name is the same
   * content); the entry, and the segment held without its summaries (segmentOf).
   */
  async writeSegment(
    bytes: Buffer,
    count: number,
    nodes?: string[],
    options: { checked?: boolean } = {},
  ): Promise<{ entry: IndexSegmentEntry; segment: Segment }> {
    const file = sha256Hex(bytes);
    await writeFileAtomic(this.segmentPath(file), bytes);
    const stamp = await this.wrote(`${file}.seg`);
    const entry = { file, size: bytes.length, count, ...(nodes === undefined ? {} : { nodes }) };
    return { entry, segment: this.segmentOf(entry, bytes, stamp, options.checked === true) };
  }

  /**
   * Writes a segment file given as its chunks (SegmentFileParts) under the SHA-256 of its bytes,
   * atomically (temp, fsync, rename), without joining them: the entry, and the segment held from
   * its sections (what it reads from the file read from the file written). `checked`: see decodeSegment.
   */
  async writeSegmentParts(
    parts: SegmentFileParts,
    count: number,
    nodes?: string[],
    options: { checked?: boolean } = {},
  ): Promise<{ entry: IndexSegmentEntry; segment: Segment }> {
    const hash = createSha256();
    for (const chunk of parts.chunks) hash.update(chunk);
    const file = hash.digest('hex');
    await writeFileAtomic(this.segmentPath(file), parts.chunks);
    const stamp = await this.wrote(`${file}.seg`);
    const entry = { file, size: parts.layout.size, count, ...(nodes === undefined ? {} : { nodes }) };
    const segment =
      stamp === null
        ? decodeSegment(Buffer.concat(parts.chunks))
        : heldSegment(parts.sections, parts.layout, this.fileOf(file, stamp), { checked: options.checked === true });
    return { entry, segment };
  }

  /** A segment whose bytes hash to its name and decode within bounds, else null. */
  async readSegment(entry: IndexSegmentEntry): Promise<Segment | null> {
    const held = this.held.get(entry.file);
    if (held !== undefined && held.size === entry.count) return held;
    const read = await this.readVerified(`${entry.file}.seg`, entry.file, entry.size);
    if (read === null) return null;
    try {
      const segment = decodeSegment(read.bytes, this.fileOf(entry.file, read.stamp));
      if (segment.size !== entry.count) return null;
      this.held.set(entry.file, segment);
      return segment;
    } catch {
      return null;
    }
  }

  /** Keeps in memory the segments of the index just opened or built, and only those. */
  hold(entries: readonly IndexSegmentEntry[], segments: readonly Segment[]): void {
    this.held = new Map(entries.map((entry, i) => [entry.file, segments[i] as Segment]));
  }

  /** Removes segment files the manifest does not name (and stray temp files). */
  async prune(manifest: IndexManifest): Promise<void> {
    const keep = new Set(manifest.segments.map((s) => `${s.file}.seg`));
    keep.add('manifest.json');
    keep.add(`${manifest.dictionary.file}.dict`);
    await this.verified.retain(keep);
    await this.saveVerified();
    keep.add(VerifiedFiles.fileName);
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) if (!keep.has(name)) await rm(join(this.dir, name), { force: true }).catch(() => undefined);
  }

  async remove(): Promise<void> {
    this.held = new Map();
    await rm(this.dir, { recursive: true, force: true });
  }
}

function manifestShape(value: unknown): IndexManifest | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Partial<IndexManifest>;
  if (m.format === 1) return manifestShape(fromFormat1(m));
  if (m.format !== MANIFEST_FORMAT || m.segmentFormat !== SEGMENT_FORMAT || !Number.isSafeInteger(m.count)) return null;
  const source = m.source as Partial<{ layout: string; catalogueSha256: unknown; generatedAt: unknown; publishers: unknown }> | undefined;
  if (source === undefined || source === null) return null;
  const fits =
    source.layout === 'v1'
      ? typeof source.catalogueSha256 === 'string' && typeof source.generatedAt === 'string'
      : source.layout === 'v2' && typeof source.publishers === 'string';
  if (!fits) return null;
  if (!Array.isArray(m.segments)) return null;
  const dictionary = m.dictionary as Partial<{ file: unknown; size: unknown }> | undefined;
  if (typeof dictionary !== 'object' || dictionary === null || typeof dictionary.file !== 'string' || !SHA256_HEX.test(dictionary.file))
    return null;
  if (!Number.isSafeInteger(dictionary.size)) return null;
  for (const s of m.segments as unknown[]) {
    const e = s as Partial<IndexSegmentEntry> | null;
    if (
      e === null ||
      typeof e !== 'object' ||
      typeof e.file !== 'string' ||
      !SHA256_HEX.test(e.file) ||
      !Number.isSafeInteger(e.size) ||
      !Number.isSafeInteger(e.count) ||
      (e.nodes !== undefined && (!Array.isArray(e.nodes) || !e.nodes.every((node) => typeof node === 'string' && SHA256_HEX.test(node))))
    )
      return null;
  }
  return value as IndexManifest;
}

/**
 * A format-1 manifest (an earlier SDK: a layout-2 segment held one node, named by `node`) read as
 * format 2 (`nodes: [node]`): its segments are the same bytes, so an upgrade keeps the stored index
 * and a layout-2 refresh regroups it from these segments without downloading (syncIndex).
 */
function fromFormat1(m: Partial<IndexManifest>): unknown {
  if (!Array.isArray(m.segments)) return null;
  const segments = (m.segments as unknown[]).map((s) => {
    if (typeof s !== 'object' || s === null) return s;
    const { node, ...rest } = s as { node?: unknown };
    if (node === undefined) return rest;
    return typeof node === 'string' ? { ...rest, nodes: [node] } : { ...rest, nodes: node };
  });
  return { ...m, format: MANIFEST_FORMAT, segments };
}

/** A new manifest of this SDK's formats. */
function indexManifest(source: IndexSource, segments: IndexSegmentEntry[], dictionary: { file: string; size: number }): IndexManifest {
  return {
    format: MANIFEST_FORMAT,
    segmentFormat: SEGMENT_FORMAT,
    source,
    count: segments.reduce((sum, s) => sum + s.count, 0),
    segments,
    dictionary,
  };
}

/**
 * The index of `segments` (their entries in `entries`), from `source`: the previous manifest's
 * dictionary when nothing changed and it reads back, else a new one; the manifest is written (last)
 * and files it no longer names removed when anything changed.
 */
export async function finishIndex(
  store: SearchIndexStore,
  source: IndexSource,
  entries: IndexSegmentEntry[],
  segments: Segment[],
  previous: IndexManifest | null,
  changed: boolean,
): Promise<DiskSearchIndex> {
  let dictionary = !changed && previous !== null ? await store.readDictionary(previous.dictionary) : null;
  let dictionaryEntry = previous?.dictionary;
  if (dictionary === null || dictionaryEntry === undefined) {
    const written = await store.writeDictionary(segments);
    dictionary = written.dictionary;
    dictionaryEntry = written.entry;
    changed = true;
  }
  const manifest = indexManifest(source, entries, dictionaryEntry);
  if (changed) {
    await store.writeManifest(manifest);
    await store.prune(manifest);
  } else await store.saveVerified();
  store.hold(entries, segments);
  return new DiskSearchIndex(manifest, segments, dictionary);
}

function changedSegment(): AdcapError {
  return new AdcapError(
    'E_CATALOG',
    'A stored search index segment changed after it was checked; search again, and the index is checked (and rebuilt) again.',
    { details: { reason: 'search-index-damaged' } },
  );
}

/** A search record's filter fields. */
function accepted(flags: number, filters: SearchFilters): boolean {
  if (filters.tier !== undefined && ((flags & SEARCH_FLAG_PRO) !== 0 ? 'pro' : 'free') !== filters.tier) return false;
  if (filters.access !== undefined && ((flags & SEARCH_FLAG_ENTITLED) !== 0 ? 'entitled' : 'public') !== filters.access) return false;
  return !(filters.includeDeprecated === false && (flags & SEARCH_FLAG_DEPRECATED) !== 0);
}

/** A cursor over one segment's matches, in relevance order. */
interface Cursor {
  segment: Segment;
  order: Int32Array;
  scores: Int32Array;
  at: number;
  id: string;
  deprecated: boolean;
  score: number;
}

function advance(cursor: Cursor): boolean {
  if (cursor.at >= cursor.order.length) return false;
  const d = cursor.order[cursor.at] as number;
  cursor.id = cursor.segment.id(d);
  cursor.deprecated = (cursor.segment.flags(d) & SEARCH_FLAG_DEPRECATED) !== 0;
  cursor.score = cursor.scores[cursor.at] as number;
  return true;
}

/**
 * The stored index of one remote, its segments read and checked: search (the ranking of
 * search-rank.ts, each segment searched on its own and the per-segment orders merged), lookups
 * by id, and every record for a caller that lists them all.
 */
export class DiskSearchIndex {
  readonly size: number;

  constructor(
    readonly manifest: IndexManifest,
    readonly segments: readonly Segment[],
    private readonly dictionary: RankDictionary,
  ) {
    this.size = segments.reduce((sum, s) => sum + s.size, 0);
  }

  /**
   * The hits of `query` in relevance order (compareRanked: deprecated last, score, id), the first
   * `filters.limit` of them when a limit is given (each segment then keeps its own top k only).
   */
  search(query: string, filters: SearchFilters = {}): SearchHit[] {
    const installedIds = filters.installedIds ?? new Set<string>();
    const limit = filters.limit === undefined ? Infinity : Math.max(0, filters.limit);
    const heap: Cursor[] = [];
    for (const { segment, matches } of this.segmentMatches(query, filters)) {
      const { docs: order, scores } = segment.rank.rankedTop(matches, Math.min(limit, matches.count));
      const cursor: Cursor = { segment, order, scores, at: 0, id: '', deprecated: false, score: 0 };
      if (advance(cursor)) heap.push(cursor);
    }
    // A k-way merge of the segments' orders: a binary heap on each segment's next hit.
    const less = (a: Cursor, b: Cursor): boolean => compareRanked(a, b) < 0;
    const down = (i: number): void => {
      for (;;) {
        const l = i * 2 + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l] as Cursor, heap[m] as Cursor)) m = l;
        if (r < heap.length && less(heap[r] as Cursor, heap[m] as Cursor)) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m] as Cursor, heap[i] as Cursor];
        i = m;
      }
    };
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
    // The page's documents in order; then each segment's records read together (one open of its file).
    const picks: Array<{ segment: Segment; d: number; score: number }> = [];
    while (heap.length > 0 && picks.length < limit) {
      const top = heap[0] as Cursor;
      picks.push({ segment: top.segment, d: top.order[top.at] as number, score: top.score });
      top.at++;
      if (!advance(top)) {
        const last = heap.pop() as Cursor;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      down(0);
    }
    const hits: SearchHit[] = new Array<SearchHit>(picks.length);
    const bySegment = new Map<Segment, number[]>();
    picks.forEach((pick, i) => {
      const places = bySegment.get(pick.segment);
      if (places === undefined) bySegment.set(pick.segment, [i]);
      else places.push(i);
    });
    for (const [segment, places] of bySegment) {
      const read = segment.hits(places.map((i) => (picks[i] as { d: number }).d));
      places.forEach((i, k) => {
        const { record, publisher } = read[k] as { record: SearchRecord; publisher: SegmentPublisher };
        hits[i] = this.hit(record, publisher, (picks[i] as { score: number }).score, installedIds);
      });
    }
    return hits;
  }

  /**
   * The ids of every hit of `query` (as many as search() without a limit returns), in no particular
   * order: the matches of each segment, without ranking them or reading their records (a caller
   * that shows a page of hits and how many there are in all).
   */
  matchIds(query: string, filters: SearchFilters = {}): string[] {
    const ids: string[] = [];
    for (const { segment, matches } of this.segmentMatches(query, filters))
      for (let i = 0; i < matches.count; i++) ids.push(segment.id(matches.docs[i] as number));
    return ids;
  }

  /**
   * Each segment's matches of `query` under `filters` (not the limit), segments without any left
   * out. A segment's matches live in the thread's shared query scratch (search-rank.ts): the caller
   * uses them before it asks for the next segment's.
   */
  private *segmentMatches(query: string, filters: SearchFilters): Generator<{ segment: Segment; matches: RankMatches }> {
    const installedIds = filters.installedIds ?? new Set<string>();
    // A query word's typo and inside matches, looked up once in the dictionary of every segment's words.
    const looked = new Map<string, WordLookups>();
    const lookups = (token: string): WordLookups => {
      let found = looked.get(token);
      if (found === undefined) looked.set(token, (found = this.dictionary.lookupWords(token)));
      return found;
    };
    // Without a filter every match is kept: no call per matched capability.
    const filtered =
      filters.tier !== undefined || filters.access !== undefined || filters.includeDeprecated === false || filters.installed !== undefined;
    for (const segment of this.segments) {
      const accept = !filtered
        ? undefined
        : (d: number): boolean =>
            accepted(segment.flags(d), filters) &&
            (filters.installed === undefined || installedIds.has(segment.id(d)) === filters.installed);
      const matches = segment.rank.search(query, accept, lookups);
      if (matches.count > 0) yield { segment, matches };
    }
  }

  private hit(record: SearchRecord, publisher: SegmentPublisher, score: number, installedIds: ReadonlySet<string>): SearchHit {
    const [id, name, summary, keywords, latest, latestPrerelease, flags] = record;
    return {
      id,
      name,
      summary,
      latest,
      latestPrerelease,
      tier: (flags & SEARCH_FLAG_PRO) !== 0 ? 'pro' : 'free',
      access: (flags & SEARCH_FLAG_ENTITLED) !== 0 ? 'entitled' : 'public',
      installed: installedIds.has(id),
      deprecated: (flags & SEARCH_FLAG_DEPRECATED) !== 0,
      publisher: publisher.id,
      keywords,
      score,
    };
  }

  /** The segment holding the records of layout-2 node `node` (segments hold consecutive nodes), or undefined. */
  segmentOfNode(node: number): number | undefined {
    let first = 0;
    for (let s = 0; s < this.manifest.segments.length; s++) {
      first += this.manifest.segments[s]?.nodes?.length ?? 0;
      if (node < first) return s;
    }
    return undefined;
  }

  /** Whether the index lists `id` (`segment`: where it must be, when the caller knows). */
  has(id: string, segment?: number): boolean {
    if (segment !== undefined) return (this.segments[segment]?.find(id) ?? -1) >= 0;
    return this.segments.some((s) => s.find(id) >= 0);
  }

  /** The search records of one segment, in id order. */
  records(segment: number): SearchRecord[] {
    return this.segments[segment]?.recordsInIdOrder() ?? [];
  }

  /**
   * Every capability as search sees it, by id (code-unit order); over layout 2 without the
   * document pin, which is read from the capability's bin when it is opened.
   */
  entries(): Array<[string, CatalogueCapability]> {
    const out: Array<[string, CatalogueCapability]> = [];
    for (const s of this.segments)
      for (const record of s.recordsInIdOrder()) out.push([record[0], capabilityOfSearchRecord(record) as CatalogueCapability]);
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

/**
 * Reads the stored index whose manifest `fits` (the caller's check against its verified state);
 * null when there is none, it does not fit, or a segment is missing or damaged.
 */
export async function openStoredIndex(
  store: SearchIndexStore,
  fits: (manifest: IndexManifest) => boolean,
): Promise<DiskSearchIndex | null> {
  const manifest = await store.readManifest();
  if (manifest === null || !fits(manifest)) return null;
  const segments: Segment[] = [];
  for (const entry of manifest.segments) {
    const segment = await store.readSegment(entry);
    if (segment === null) return null;
    segments.push(segment);
  }
  const dictionary = await store.readDictionary(manifest.dictionary);
  // A missing or damaged dictionary is made again from the segments, which passed their checks.
  if (dictionary === null) return finishIndex(store, manifest.source, manifest.segments, segments, manifest, true);
  await store.saveVerified();
  store.hold(manifest.segments, segments);
  return new DiskSearchIndex(manifest, segments, dictionary);
}

/**
 * Builds and stores the index of a verified layout-1 catalogue (once per accepted catalogue, keyed
 * by the SHA-256 of its file), in segments of SEGMENT_DOCS capabilities in id order.
 */
export async function writeV1Index(
  store: SearchIndexStore,
  payload: CataloguePayload,
  catalogueSha256: string,
  options: { segmentDocs?: number } = {},
): Promise<DiskSearchIndex> {
  const perSegment = options.segmentDocs ?? SEGMENT_DOCS;
  const ids = Object.keys(payload.capabilities).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const publisherName = (publisher: string): string =>
    (Object.hasOwn(payload.publishers, publisher) ? payload.publishers[publisher]?.name : undefined) ?? publisher;
  const entries: IndexSegmentEntry[] = [];
  const segments: Segment[] = [];
  for (let from = 0; from < ids.length || (from === 0 && entries.length === 0); from += perSegment) {
    const records = ids.slice(from, from + perSegment).map((id) => searchRecordOf(id, payload.capabilities[id] as CatalogueCapability));
    const written = await store.writeSegment(encodeSegment(records, publisherName), records.length, undefined, { checked: true });
    entries.push(written.entry);
    segments.push(written.segment);
    if (ids.length === 0) break;
  }
  return finishIndex(store, { layout: 'v1', catalogueSha256, generatedAt: payload.generatedAt }, entries, segments, null, true);
}
