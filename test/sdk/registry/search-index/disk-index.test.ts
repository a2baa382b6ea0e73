/**
 * The stored search index (sdk/src/registry/search-index/, docs/scaling.md "Cold start and offline
 * search"): it answers exactly as the in-memory search of search-rank.ts over the same catalogue
 * (same hits, same order, same scores, every filter), across segments; a damaged, truncated or
 * forged file is refused and rebuilt from verified data, never used; and a client's layout-1
 * index is built once per accepted catalogue and checked against it before each use.
 */
import { mkdtemp, open, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { SearchIndex } from '../../../../sdk/src/registry/search.js';
import {
  finishIndex,
  openStoredIndex,
  SearchIndexStore,
  writeV1Index,
  type IndexSegmentEntry,
} from '../../../../sdk/src/registry/search-index/disk-index.js';
import {
  decodeSegment,
  encodeSegment,
  readSegmentSections,
  type Segment,
  type SegmentFile,
} from '../../../../sdk/src/registry/search-index/segment.js';
import { decodeWireSegment, encodeWireSegment } from '../../../../sdk/src/registry/search-index/wire-segment.js';
import { stampOf } from '../../../../sdk/src/registry/search-index/verified-files.js';
import { binOf, searchRecordOf, type SearchRecord } from '../../../../sdk/src/registry/layout-v2.js';
import type { CatalogueCapability, CataloguePayload, CataloguePublisher } from '../../../../sdk/src/registry/types.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-search-index-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WORDS = ['pdf', 'forms', 'csv', 'tables', 'search', 'index', 'vector', 'image', 'translate', 'summarise', 'chart', 'sql', 'json'];

/** `count` capabilities whose texts share words, numbers and publishers, as a real catalogue's do. */
function syntheticCapabilities(count: number): Record<string, CatalogueCapability> {
  const out: Record<string, CatalogueCapability> = {};
  for (let i = 0; i < count; i++) {
    const a = WORDS[i % WORDS.length] as string;
    const b = WORDS[(i * 7 + 3) % WORDS.length] as string;
    const id = `pub-${i % 97}/${a}-${b}-${i}`;
    out[id] = {
      name: `${a} ${b} tool ${i}`,
      summary: `Helps with ${a} and ${b} work, number ${i}, for agents that need ${WORDS[(i * 3) % WORDS.length] as string}.`,
      publisher: `pub-${i % 97}`,
      latest: `1.${i % 10}.0`,
      tier: i % 5 === 0 ? 'pro' : 'free',
      access: i % 11 === 0 ? 'entitled' : 'public',
      keywords: i % 3 === 0 ? [a, b] : [a],
      deprecated: i % 41 === 0,
      doc: { path: `packages/pub-${i % 97}/${a}-${b}-${i}.json`, sha256: '0'.repeat(64) },
    };
  }
  return out;
}

function payloadOf(capabilities: Record<string, CatalogueCapability>, publishers: Record<string, CataloguePublisher>): CataloguePayload {
  return { registry: 'test', spec: 1, sequence: 1, generatedAt: new Date().toISOString(), publishers, capabilities };
}

/** A catalogue with what the rules care about: publisher display names, typos, deprecation, other scripts. */
function catalogue(): { capabilities: Record<string, CatalogueCapability>; publishers: Record<string, CataloguePublisher> } {
  const capabilities = syntheticCapabilities(2_500);
  const add = (id: string, name: string, summary: string, extra: Partial<CatalogueCapability> = {}): void => {
    capabilities[id] = {
      name,
      summary,
      publisher: id.slice(0, id.indexOf('/')),
      latest: '1.0.0',
      tier: 'free',
      access: 'public',
      keywords: [],
      deprecated: false,
      doc: { path: `packages/${id}.json`, sha256: '0'.repeat(64) },
      ...extra,
    };
  };
  add('acme/weather', 'Weather', 'Forecasts for any city', { keywords: ['forecast'] });
  add('acme/forecast', 'Forecast', 'Weather forecasts', { latestPrerelease: '2.0.0-rc.1' });
  add('kanji/jisho', '辞書ツール', '日本語の辞書を引く, café', { keywords: ['日本語'] });
  add('odd/surrogate', 'Odd \ud800 name', 'A lone surrogate \udc00 in text');
  add('acme/old-pdf', 'Old PDF', 'Superseded pdf helper', { deprecated: true });
  const publishers: Record<string, CataloguePublisher> = {
    acme: { name: 'Acme Tools', keys: [] },
    'pub-42': { name: 'Forty Two', keys: [] },
  };
  return { capabilities, publishers };
}

const QUERIES = [
  'pdf',
  'index vector',
  'tool 1234',
  'summ',
  'pub-42/sql',
  'pub-42/sql-chart-42',
  'acme tools',
  'Forty Two',
  'weathr',
  'forecats',
  'josn',
  'ndex',
  '12',
  '辞書',
  '日本語',
  'café',
  'odd',
  'nothing-matches-this',
  'SQL',
  '',
];

describe('the stored index answers as the in-memory search (search-rank.ts rules)', () => {
  it('same hits, order and scores over several segments, with every filter and limit', async () => {
    const { capabilities, publishers } = catalogue();
    const store = new SearchIndexStore(dir);
    // Small segments, so that hits come from many and the merge decides the order.
    const stored = await writeV1Index(store, payloadOf(capabilities, publishers), 'a'.repeat(64), { segmentDocs: 300 });
    expect(stored.segments.length).toBe(Math.ceil(Object.keys(capabilities).length / 300));
    const reopened = await openStoredIndex(store, (m) => m.source.layout === 'v1');
    expect(reopened).not.toBeNull();
    const memory = new SearchIndex(capabilities, publishers);
    const installedIds = new Set(['acme/weather', 'pub-1/forms-tables-1']);
    const filterSets = [
      {},
      { limit: 7 },
      { limit: 0 },
      { tier: 'pro' as const, limit: 15 },
      { access: 'entitled' as const },
      { includeDeprecated: false },
      { installedIds, installed: true },
      { installedIds, installed: false, limit: 3 },
    ];
    for (const query of QUERIES)
      for (const filters of filterSets) {
        const expected = memory.search(query, filters);
        expect(stored.search(query, filters), `${query} ${JSON.stringify(filters)}`).toEqual(expected);
        expect((reopened as NonNullable<typeof reopened>).search(query, filters)).toEqual(expected);
        // Every hit's id, limit or not, without making the hits: the same set in memory and on disk.
        const everyId = memory
          .search(query, { ...filters, limit: undefined })
          .map((hit) => hit.id)
          .sort();
        expect(memory.matchIds(query, filters).sort()).toEqual(everyId);
        expect(stored.matchIds(query, filters).sort(), `ids: ${query} ${JSON.stringify(filters)}`).toEqual(everyId);
      }
    expect(memory.search('pdf').length).toBeGreaterThan(100);
    // Lookups by id, and every record for a caller that lists them.
    expect(stored.has('kanji/jisho')).toBe(true);
    expect(stored.has('kanji/none')).toBe(false);
    expect(stored.entries().map(([id]) => id)).toEqual(memory.entries().map(([id]) => id));
  });
});

describe("an index decoded from the registry's wire segments answers as the in-memory search", () => {
  it('same hits, order and scores, with every filter and limit (segments of consecutive nodes, fan-out 8)', async () => {
    const { capabilities, publishers } = catalogue();
    const fanout = 8;
    const group = 2;
    const nameOf = (p: string): string => (Object.hasOwn(publishers, p) ? publishers[p]?.name : undefined) ?? p;
    // The records of each segment's nodes, as the registry groups them, in no particular order.
    const bySegment: SearchRecord[][] = Array.from({ length: fanout / group }, () => []);
    for (const [id, capability] of Object.entries(capabilities).reverse())
      bySegment[Math.floor(Math.floor(binOf(id, fanout * fanout) / fanout) / group)]?.push(searchRecordOf(id, capability));
    const store = new SearchIndexStore(dir);
    const entries: IndexSegmentEntry[] = [];
    const segments: Segment[] = [];
    for (let s = 0; s < bySegment.length; s++) {
      const wire = encodeWireSegment(bySegment[s] as SearchRecord[], nameOf);
      const scope = { path: `index/${s}.seg.gz`, fanout, firstNode: s * group, nodes: group };
      const { file, count } = decodeWireSegment(wire, scope);
      // Written as a client's cold start does: in two parts, held without the summaries.
      const written = await store.writeSegmentParts(file, count);
      entries.push(written.entry);
      segments.push(written.segment);
    }
    const fromWire = await finishIndex(store, { layout: 'v2', publishers: 'nodes/x.json' }, entries, segments, null, true);
    const reopened = await openStoredIndex(new SearchIndexStore(dir), () => true);
    const memory = new SearchIndex(capabilities, publishers);
    const installedIds = new Set(['acme/weather', 'pub-1/forms-tables-1']);
    const filterSets = [
      {},
      { limit: 7 },
      { tier: 'pro' as const, limit: 15 },
      { access: 'entitled' as const },
      { includeDeprecated: false },
      { installedIds, installed: false, limit: 3 },
    ];
    for (const query of QUERIES)
      for (const filters of filterSets) {
        const expected = memory.search(query, filters);
        expect(fromWire.search(query, filters), `${query} ${JSON.stringify(filters)}`).toEqual(expected);
        expect((reopened as NonNullable<typeof reopened>).search(query, filters)).toEqual(expected);
      }
    expect(fromWire.entries().map(([id]) => id)).toEqual(memory.entries().map(([id]) => id));
    expect(fromWire.has('odd/surrogate')).toBe(true);
  });
});

describe('a held segment reads its records, keywords and summaries from the file it checked, and only from it', () => {
  it('answers while the file is the same; once it changed, E_CATALOG, and a new open reads and checks it again', async () => {
    const { capabilities, publishers } = catalogue();
    const store = new SearchIndexStore(dir);
    const index = await writeV1Index(store, payloadOf(capabilities, publishers), 'c'.repeat(64), { segmentDocs: 1_000 });
    const memory = new SearchIndex(capabilities, publishers);
    expect(index.search('pdf', { limit: 5 })).toEqual(memory.search('pdf', { limit: 5 }));
    // The same bytes in a new file (a new inode, new times): not the file that was checked.
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.seg'))) {
      const bytes = await readFile(join(dir, name));
      await rm(join(dir, name));
      await writeFile(join(dir, name), bytes);
    }
    let error: unknown;
    try {
      index.search('pdf', { limit: 5 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'E_CATALOG', details: { reason: 'search-index-damaged' } });
    // A new open hashes the files again (they are the bytes the manifest names) and answers.
    const reopened = await openStoredIndex(new SearchIndexStore(dir), () => true);
    expect(reopened?.search('pdf', { limit: 5 })).toEqual(memory.search('pdf', { limit: 5 }));
  });

  it('its record table and keywords are read from the file as well, each row and reference checked against the bounds again', () => {
    const { capabilities, publishers } = catalogue();
    const records = Object.keys(capabilities)
      .sort()
      .slice(0, 400)
      .map((id) => searchRecordOf(id, capabilities[id] as CatalogueCapability));
    const nameOf = (p: string): string => (Object.hasOwn(publishers, p) ? publishers[p]?.name : undefined) ?? p;
    const bytes = encodeSegment(records, nameOf);
    const { sections } = readSegmentSections(bytes);
    const recordsAt = sections.records.byteOffset - bytes.byteOffset;
    const keywordsAt = sections.keywordRefs.byteOffset - bytes.byteOffset;
    let opens = 0;
    let forged: Buffer | null = null;
    const file: SegmentFile = (use) => {
      opens++;
      return use((from, to) => Buffer.from((forged ?? bytes).subarray(from, to)));
    };
    const held = decodeSegment(bytes, file);
    const inMemory = decodeSegment(bytes);
    // The same records, publishers and listing as the segment with everything in memory, a page of hits with one open.
    expect(held.hits([0, 7, 399]).map((hit) => hit.record)).toEqual([0, 7, 399].map((d) => inMemory.record(d)));
    expect(held.hits([3]).map((hit) => hit.publisher)).toEqual([inMemory.publisherOf(3)]);
    expect(opens).toBe(2);
    expect(held.recordsInIdOrder()).toEqual(inMemory.recordsInIdOrder());
    expect(held.find(records[5]?.[0] as string)).toBe(5);
    // A row whose name ends past the text, or a keyword reference past it: E_CATALOG, never a read past the bounds.
    forged = Buffer.from(bytes);
    forged.writeUInt32LE(0xfffffff0, recordsAt + 7 * 14 * 4 + 3 * 4);
    expect(() => held.record(7)).toThrow(expect.objectContaining({ code: 'E_CATALOG' }) as Error);
    expect(() => held.recordsInIdOrder()).toThrow(expect.objectContaining({ code: 'E_CATALOG' }) as Error);
    expect(held.record(8)).toEqual(inMemory.record(8));
    forged = Buffer.from(bytes);
    const withKeywords = records.findIndex((record) => record[3].length > 0);
    const firstKeyword = bytes.readUInt32LE(recordsAt + withKeywords * 14 * 4 + 10 * 4);
    forged.writeUInt32LE(0xfffffff0, keywordsAt + firstKeyword * 8 + 4);
    expect(() => held.keywords(withKeywords)).toThrow(expect.objectContaining({ code: 'E_CATALOG' }) as Error);
  });
});

describe('many hits of one held segment are read from its file in one go', () => {
  it('the same hits as one by one, with one open of the file; a forged row is still refused', () => {
    const { capabilities, publishers } = catalogue();
    const ids = Object.keys(capabilities).sort();
    expect(ids.length).toBeGreaterThan(600);
    const records = ids.slice(0, 600).map((id) => searchRecordOf(id, capabilities[id] as CatalogueCapability));
    const nameOf = (p: string): string => (Object.hasOwn(publishers, p) ? publishers[p]?.name : undefined) ?? p;
    const bytes = encodeSegment(records, nameOf);
    const { sections } = readSegmentSections(bytes);
    const recordsAt = sections.records.byteOffset - bytes.byteOffset;
    let opens = 0;
    let reads = 0;
    let forged: Buffer | null = null;
    const file: SegmentFile = (use) => {
      opens++;
      return use((from, to) => {
        reads++;
        return Buffer.from((forged ?? bytes).subarray(from, to));
      });
    };
    const held = decodeSegment(bytes, file);
    const inMemory = decodeSegment(bytes);
    // Over the bulk threshold (512 hits), in an order of their own, as a search hands them over:
    // the record table, the keyword references and the summaries, one read each.
    const many = Array.from({ length: 600 }, (_, i) => (i * 7) % 600);
    const hits = held.hits(many);
    expect([opens, reads]).toEqual([1, 3]);
    expect(hits.map((hit) => hit.record)).toEqual(many.map((d) => inMemory.record(d)));
    expect(hits.map((hit) => hit.publisher)).toEqual(many.map((d) => inMemory.publisherOf(d)));
    // A few hits: one by one (three reads each), the same answers.
    expect(held.hits(many.slice(0, 5)).map((hit) => hit.record)).toEqual(hits.slice(0, 5).map((hit) => hit.record));
    expect(reads).toBeGreaterThanOrEqual(3 + 5 * 2);
    // Row 7's name made to end past the text: the whole read is refused, never a read past the bounds.
    forged = Buffer.from(bytes);
    forged.writeUInt32LE(0xfffffff0, recordsAt + 7 * 14 * 4 + 3 * 4);
    expect(() => held.hits(many)).toThrow(expect.objectContaining({ code: 'E_CATALOG' }) as Error);
  });
});

describe('a damaged stored index is refused, never used', () => {
  async function built(): Promise<SearchIndexStore> {
    const { capabilities, publishers } = catalogue();
    const store = new SearchIndexStore(dir);
    await writeV1Index(store, payloadOf(capabilities, publishers), 'b'.repeat(64), { segmentDocs: 1_000 });
    return store;
  }
  const segmentFiles = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith('.seg')).sort();

  it('a truncated or edited segment fails its check; the index does not open', async () => {
    await built();
    // Each open is a new process's (a store of its own; a store holds the segments it checked).
    const fresh = (): SearchIndexStore => new SearchIndexStore(dir);
    const [first] = await segmentFiles();
    const path = join(dir, first as string);
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, bytes.length - 100));
    expect(await openStoredIndex(fresh(), () => true)).toBeNull();
    const edited = Buffer.from(bytes);
    edited[edited.length >> 1] = (edited[edited.length >> 1] as number) ^ 0xff;
    await writeFile(path, edited);
    expect(await openStoredIndex(fresh(), () => true)).toBeNull();
    await writeFile(path, bytes);
    expect(await openStoredIndex(fresh(), () => true)).not.toBeNull();
  });

  it('a forged segment that hashes to its name in a forged manifest is still refused by its bounds', async () => {
    const records: SearchRecord[] = [['acme/a', 'A', 'one', [], '1.0.0', null, 0]];
    const bytes = encodeSegment(records, (p) => p);
    expect(decodeSegment(bytes).record(0)).toEqual(['acme/a', 'A', 'one', [], '1.0.0', null, 0]);
    // The name order is the section before the summaries ("one", padded to 4 bytes): a document number past the end.
    const forged = Buffer.from(bytes);
    forged.writeInt32LE(7, forged.length - 8);
    expect(() => decodeSegment(forged)).toThrow(/damaged/);
    expect(() => decodeSegment(bytes.subarray(0, bytes.length - 8))).toThrow(/damaged/);
    expect(() => decodeSegment(Buffer.from('not a segment at all, not even close to one'))).toThrow(/damaged/);
    // Put into the store under its own hash, named by a manifest that was edited to match.
    const store = await built();
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { segments: Array<{ file: string; size: number }> };
    const file = createHash('sha256').update(forged).digest('hex');
    await writeFile(join(dir, `${file}.seg`), forged);
    (manifest.segments[0] as { file: string; size: number }).file = file;
    (manifest.segments[0] as { file: string; size: number }).size = forged.length;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect(await openStoredIndex(store, () => true)).toBeNull();
  });

  it('verified.json: a file edited in place with its times put back is hashed again and refused', async () => {
    await built();
    const files = [...(await segmentFiles()), (await readdir(dir)).find((name) => name.endsWith('.dict')) as string];
    const listed = JSON.parse(await readFile(join(dir, 'verified.json'), 'utf8')) as { format: number; files: Record<string, unknown> };
    expect(Object.keys(listed.files).sort()).toEqual(files.sort());
    // The same inode and size, one byte changed, access and modification times restored.
    const [first] = await segmentFiles();
    const path = join(dir, first as string);
    const before = await stat(path);
    const handle = await open(path, 'r+');
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, before.size >> 1);
    byte[0] = (byte[0] as number) ^ 0xff;
    await handle.write(byte, 0, 1, before.size >> 1);
    await handle.close();
    await utimes(path, before.atime, before.mtime);
    expect((await stat(path)).ino).toBe(before.ino);
    expect(await openStoredIndex(new SearchIndexStore(dir), () => true)).toBeNull();
    // Put back byte for byte: its hash matches again and it opens (and is listed with its new times).
    const restore = await open(path, 'r+');
    byte[0] = (byte[0] as number) ^ 0xff;
    await restore.write(byte, 0, 1, before.size >> 1);
    await restore.close();
    expect(await openStoredIndex(new SearchIndexStore(dir), () => true)).not.toBeNull();
  });

  it('verified.json naming a forged segment as checked: its bounds are still checked on every read', async () => {
    await built();
    const [first] = await segmentFiles();
    const path = join(dir, first as string);
    const forged = await readFile(path);
    // The name order is the section before the summaries (their size is the header's last word): a
    // document number past the end.
    const summaryBytes = forged.readUInt32LE(8 + 10 * 4);
    forged.writeInt32LE(1_000_000, forged.length - ((summaryBytes + 3) & ~3) - 4);
    const handle = await open(path, 'r+');
    await handle.write(forged, 0, forged.length, 0);
    await handle.close();
    const now = await stat(path, { bigint: true });
    const listed = JSON.parse(await readFile(join(dir, 'verified.json'), 'utf8')) as { files: Record<string, unknown> };
    // Listed as checked three seconds after its last change: trusted, so the hash is not checked.
    listed.files[first as string] = { ...stampOf(now), checkedNs: (now.mtimeNs + 3_000_000_000n).toString() };
    await writeFile(join(dir, 'verified.json'), JSON.stringify({ format: 1, files: listed.files }));
    expect(await openStoredIndex(new SearchIndexStore(dir), () => true)).toBeNull();
  });

  it('verified.json: an entry recorded within two seconds after the file last changed is not trusted (coarse file times)', async () => {
    await built();
    // An edit inside the text (within bounds) of a Latin-1 segment: only the hash can tell.
    let first = '';
    let at = -1;
    for (const name of await segmentFiles()) {
      at = (await readFile(join(dir, name))).indexOf('Helps with');
      first = name;
      if (at > 0) break;
    }
    expect(at).toBeGreaterThan(0);
    const path = join(dir, first);
    const handle = await open(path, 'r+');
    await handle.write(Buffer.from('Harms', 'latin1'), 0, 5, at);
    await handle.close();
    const now = await stat(path, { bigint: true });
    const listed = JSON.parse(await readFile(join(dir, 'verified.json'), 'utf8')) as { files: Record<string, unknown> };
    // As if a file system of whole seconds had left the stamp as it was when the entry was made.
    listed.files[first] = { ...stampOf(now), checkedNs: (now.mtimeNs + 1_000_000_000n).toString() };
    await writeFile(join(dir, 'verified.json'), JSON.stringify({ format: 1, files: listed.files }));
    expect(await openStoredIndex(new SearchIndexStore(dir), () => true)).toBeNull();
  });

  it('a damaged verified.json only means every file is hashed again', async () => {
    const store = await built();
    const expected = (await openStoredIndex(store, () => true))?.search('weathr');
    await writeFile(join(dir, 'verified.json'), '{"format": 1, "files": {"x.seg": {"size": "oops"}}');
    const again = await openStoredIndex(new SearchIndexStore(dir), () => true);
    expect(again?.search('weathr')).toEqual(expected);
    const listed = JSON.parse(await readFile(join(dir, 'verified.json'), 'utf8')) as { files: Record<string, unknown> };
    expect(Object.keys(listed.files).filter((name) => name.endsWith('.seg'))).toEqual(await segmentFiles());
  });

  it('a damaged dictionary is made again from the segments, with the same answers', async () => {
    const store = await built();
    const before = (await openStoredIndex(store, () => true))?.search('weathr');
    const dict = (await readdir(dir)).find((name) => name.endsWith('.dict')) as string;
    await writeFile(join(dir, dict), 'damaged');
    const after = await openStoredIndex(store, () => true);
    expect(after?.search('weathr')).toEqual(before);
    expect(after?.search('weathr').map((hit) => hit.id)).toEqual(['acme/weather', 'acme/forecast']);
    expect((await readdir(dir)).filter((name) => name.endsWith('.dict'))).toHaveLength(1);
  });
});

describe("the dictionary of every segment's words", () => {
  it('lists each word of every segment once, in code-unit order, other scripts included, and reads back the same', async () => {
    const { capabilities, publishers } = catalogue();
    const store = new SearchIndexStore(dir);
    // Segments of 700: words repeat across them, and one holds words beyond Latin-1.
    const index = await writeV1Index(store, payloadOf(capabilities, publishers), 'd'.repeat(64), { segmentDocs: 700 });
    const expected = [...new Set(index.segments.flatMap((segment) => segment.wordsText.split('\n').slice(0, -1)))].sort();
    expect(expected).toContain('辞書ツール');
    const { entry, dictionary } = await store.writeDictionary(index.segments);
    const listed = (words: { count: number; text: string; starts: Int32Array }): string[] =>
      Array.from({ length: words.count }, (_, w) => words.text.slice(words.starts[w], (words.starts[w + 1] as number) - 1));
    expect(listed(dictionary.words)).toEqual(expected);
    expect(dictionary.words.text).toBe(expected.map((word) => `${word}\n`).join(''));
    const read = await new SearchIndexStore(dir).readDictionary(entry);
    expect(read === null ? null : listed(read.words)).toEqual(expected);
    // A segment with no words adds none.
    const empty = await writeV1Index(new SearchIndexStore(join(dir, 'empty')), payloadOf({}, {}), 'e'.repeat(64));
    const withEmpty = await store.writeDictionary([...empty.segments, ...index.segments]);
    expect(listed(withEmpty.dictionary.words)).toEqual(expected);
  });
});

describe('a layout-1 client keeps the index of its accepted catalogue', () => {
  let reg: TestRegistry;
  let home: string;
  beforeEach(async () => {
    reg = await TestRegistry.create();
    home = await mkdtemp(join(tmpdir(), 'adcap-search-index-home-'));
    await reg.addPublisher('acme');
    await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
    await reg.publish({ id: 'acme/csv', version: '1.0.0', summary: 'Tables from CSV files' });
    await reg.build();
  });
  afterEach(async () => {
    await reg.cleanup();
    await rm(home, { recursive: true, force: true });
  });
  const indexDir = (): string => join(home, 'remotes', 'test', 'search-index');
  const manifest = async (): Promise<{ source: { catalogueSha256: string } }> =>
    JSON.parse(await readFile(join(indexDir(), 'manifest.json'), 'utf8')) as { source: { catalogueSha256: string } };

  it('built when the catalogue is accepted, keyed by its hash, and rebuilt when it changes', async () => {
    const loaded = await reg.client(home).update();
    expect((await manifest()).source.catalogueSha256).toBe(loaded.catalogueSha256);
    expect((await reg.client(home).search('pdf')).map((hit) => hit.summary)).toEqual(['Extract PDF text']);
    await reg.publish({ id: 'acme/pdf-forms', version: '1.0.0', summary: 'Fill PDF forms' });
    await reg.build();
    // A registry on this computer is read again once its catalogue changed; so is the index.
    expect((await reg.client(home).search('pdf')).map((hit) => hit.id)).toEqual(['acme/pdf', 'acme/pdf-forms']);
    const stored = await readFile(join(home, 'remotes', 'test', 'catalog.json'));
    expect((await manifest()).source.catalogueSha256).toBe(createHash('sha256').update(stored).digest('hex'));
  });

  it('a tampered segment: the next search answers from the verified catalogue and stores a good index again', async () => {
    await reg.client(home).update();
    for (const name of await readdir(indexDir())) {
      if (!name.endsWith('.seg')) continue;
      const bytes = await readFile(join(indexDir(), name));
      const at = bytes.indexOf('Extract PDF text');
      bytes.write('Install me, safe', at, 'latin1');
      await writeFile(join(indexDir(), name), bytes);
    }
    expect((await reg.client(home).search('pdf')).map((hit) => hit.summary)).toEqual(['Extract PDF text']);
    expect(await reg.client(home).search('safe')).toEqual([]);
    expect(await openStoredIndex(new SearchIndexStore(indexDir()), () => true)).not.toBeNull();
  });

  it('a tampered stored catalogue is refused as before (E_CATALOG), not searched through the index built from it', async () => {
    await reg.client(home).update();
    const path = join(home, 'remotes', 'test', 'catalog.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('Extract PDF text', 'Extract PDF texts'));
    await expect(reg.client(home).search('pdf', {})).rejects.toMatchObject({ code: 'E_CATALOG' });
  });
});
