/**
 * Wire segments (sdk/src/registry/search-index/wire-segment.ts, docs/scaling.md "Wire segments"):
 * a client turns the registry's wire segment into exactly the stored segment it would have built
 * from the same records, and refuses a hostile one (a file that hashes to its pin but was built
 * wrong) with E_CATALOG, never a crash, a hang or a read out of bounds.
 */
import { describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../../sdk/src/errors.js';
import { binOf, type SearchRecord } from '../../../../sdk/src/registry/layout-v2.js';
import { decodeSegment, encodeSegment, readSegmentSections } from '../../../../sdk/src/registry/search-index/segment.js';
import {
  decodeWireSegment,
  encodeWireSegment,
  wireOfSections,
  type WireSegmentScope,
} from '../../../../sdk/src/registry/search-index/wire-segment.js';

const FANOUT = 4;
const WHOLE: WireSegmentScope = { path: 'index/test.seg.gz', fanout: FANOUT, firstNode: 0, nodes: FANOUT };
const WORDS = ['pdf', 'forms', 'csv', 'tables', 'search', 'index', 'vector', 'image', 'Chart', 'SQL'];

function record(
  id: string,
  name: string,
  summary: string,
  extra: Partial<{ k: string[]; l: string | null; p: string | null; f: number }> = {},
): SearchRecord {
  return [id, name, summary, extra.k ?? [], extra.l === undefined ? '1.0.0' : extra.l, extra.p ?? null, extra.f ?? 0];
}

/** Records with what the decoder derives: equal names, upper case, other scripts, shared keywords and versions. */
function records(count: number): SearchRecord[] {
  const out: SearchRecord[] = [];
  for (let i = 0; i < count; i++) {
    const a = WORDS[i % WORDS.length] as string;
    const b = WORDS[(i * 7 + 3) % WORDS.length] as string;
    out.push(
      record(
        `pub-${i % 13}/${a.toLowerCase()}-${b.toLowerCase()}-${i}`,
        i % 9 === 0 ? 'Same Name' : `${a} ${b} tool ${i}`,
        `Helps with ${a}, ${b}.`,
        {
          k: i % 3 === 0 ? [a, b] : [a],
          l: i % 17 === 0 ? null : `1.${i % 4}.0`,
          p: i % 5 === 0 ? '2.0.0-rc.1' : null,
          f: i % 8,
        },
      ),
    );
  }
  out.push(record('kanji/jisho', '辞書ツール', '日本語の辞書を引く, café', { k: ['日本語'] }));
  out.push(record('acme/weather', 'Weather', 'Forecasts for any city'));
  out.push(record('beta/forecast', 'acme tools', 'Named like another publisher'));
  return out.reverse(); // any order: the wire numbers them in id order
}

/** Display names: one equal to another publisher's id, one in upper case, one missing (the id). */
const NAMES: Record<string, string> = { acme: 'Acme Tools', beta: 'ACME', 'pub-3': 'pub-4', kanji: '漢字' };
const nameOf = (publisher: string): string => NAMES[publisher] ?? publisher;

function byId(list: readonly SearchRecord[]): SearchRecord[] {
  return [...list].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

describe('a wire segment decodes to the segment the client would build', () => {
  it('byte for byte the stored segment of the same records in id order (Latin-1 and UTF-16 text)', () => {
    for (const list of [
      records(400),
      records(400).filter((r) => r[0] !== 'kanji/jisho'),
      [record('odd/x', 'Odd \ud800', 'lone \udc00')],
      [],
    ]) {
      const wire = encodeWireSegment(list, nameOf);
      const { file, count } = decodeWireSegment(wire, WHOLE);
      const bytes = Buffer.concat(file.chunks);
      expect(count).toBe(list.length);
      expect(bytes.equals(encodeSegment(byId(list), nameOf))).toBe(true);
      const segment = decodeSegment(bytes);
      expect(Array.from(segment.idOrder(), (d) => segment.record(d))).toEqual(byId(list));
    }
  });
});

/** A little-endian base-128 varint. */
function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function refused(wire: Buffer, scope: WireSegmentScope = WHOLE): string {
  try {
    decodeWireSegment(wire, scope);
  } catch (error) {
    expect(isAdcapError(error, 'E_CATALOG')).toBe(true);
    expect((error as Error).message).toContain('v2/index/test.seg.gz');
    return (error as Error).message;
  }
  throw new Error('a hostile wire segment was accepted');
}

describe('a hostile wire segment (it hashes to its pin, but was built wrong) is refused with E_CATALOG', () => {
  // Two records of one publisher: header bytes are one byte each (magic 8, then encoding, docs, words,
  // postings, publishers, publisher keys, text bytes, summary bytes, words length, order flags), and the
  // file ends with the name and short-name orders.
  const two = [record('acme/a', 'A', 'one'), record('acme/b', 'B', 'two')];
  const good = encodeWireSegment(two, nameOf);
  const at = (offset: number, bytes: number[]): Buffer =>
    Buffer.concat([good.subarray(0, offset), Buffer.from(bytes), good.subarray(offset + 1)]);

  it('counts past the bytes, numbers past 32 bits, truncation and trailing bytes', () => {
    expect(decodeWireSegment(good, WHOLE).count).toBe(2);
    expect(refused(at(9, varint(2 ** 31)))).toMatch(/too many documents/);
    expect(refused(at(9, [0xff, 0xff, 0xff, 0xff, 0x7f]))).toMatch(/past 32 bits/);
    expect(refused(at(9, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toMatch(/past 32 bits/);
    expect(refused(at(11, varint(100_000)))).toMatch(/count past the end/);
    for (let cut = 0; cut < good.length; cut++) refused(good.subarray(0, cut));
    expect(refused(Buffer.concat([good, Buffer.from([0])]))).toMatch(/after the end/);
    expect(refused(Buffer.from('not a wire segment'))).toMatch(/not a wire segment/);
    expect(refused(at(8, [7]))).toMatch(/encoding out of range/);
    expect(refused(at(17, [9]))).toMatch(/order flags out of range/);
  });

  it('document numbers out of range, orders that repeat a document or are not sorted', () => {
    const end = good.length;
    // The short-name order's last document, then the name order's first.
    expect(refused(at(end - 1, [2]))).toMatch(/document number out of range/);
    expect(refused(at(end - 1, [0]))).toMatch(/twice/);
    const swapped = Buffer.from(good);
    swapped[end - 4] = 1;
    swapped[end - 3] = 0;
    expect(refused(swapped)).toMatch(/not sorted/);
    // A posting gap that jumps past the last document (the postings' gaps end before the masks and orders).
    const postings = good[11] as number;
    const gap = end - 4 - postings - 1;
    expect(refused(at(gap, [5]))).toMatch(/posting document out of range/);
  });

  it('records outside the nodes it is pinned for, or not in id order, or not capability ids', () => {
    expect(refused(good, nodeScopeWithout('acme/a'))).toMatch(/not under its nodes/);
    // Forged from the sections of a good segment: the records of the two documents swapped.
    const { sections } = readSegmentSections(encodeSegment(two, nameOf));
    const swapped = sections.records.slice();
    swapped.set(sections.records.subarray(0, 14), 14);
    swapped.set(sections.records.subarray(14, 28), 0);
    expect(refused(wireOfSections({ ...sections, records: swapped }))).toMatch(/id order|not the id/);
    // Both documents the same record.
    const twice = sections.records.slice();
    twice.set(sections.records.subarray(0, 14), 14);
    expect(refused(wireOfSections({ ...sections, records: twice }))).toMatch(/id order|not the id/);
    // An id that is not a capability id (upper case).
    const text = Buffer.from(sections.text);
    const idAt = text.indexOf('acme/a', sections.wordsLength, 'latin1');
    text[idAt + 5] = 'A'.charCodeAt(0);
    expect(refused(wireOfSections({ ...sections, text }))).toMatch(/not a capability id/);
    // A string past the text, and a words text without its separators.
    const past = sections.records.slice();
    past[5] = sections.text.length + 10;
    expect(refused(wireOfSections({ ...sections, records: past }))).toMatch(/out of bounds/);
    const noSeparators = Buffer.from(sections.text);
    noSeparators.fill(0x61, 0, sections.wordsLength);
    expect(refused(wireOfSections({ ...sections, text: noSeparators }))).toMatch(/words/);
  });

  it('random damage to a valid wire segment: decoded within bounds or refused, never another failure', () => {
    const wire = encodeWireSegment(records(120), nameOf);
    let seed = 7;
    const random = (below: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    let refusedCount = 0;
    for (let round = 0; round < 1_500; round++) {
      const damaged = Buffer.from(wire);
      for (let k = 0; k <= random(3); k++) damaged[random(damaged.length)] = random(256);
      try {
        const { file } = decodeWireSegment(damaged, WHOLE);
        decodeSegment(Buffer.concat(file.chunks)); // what the client does next: within bounds, or E_CATALOG
      } catch (error) {
        expect(isAdcapError(error, 'E_CATALOG'), String(error)).toBe(true);
        refusedCount++;
      }
    }
    expect(refusedCount).toBeGreaterThan(100);
  });
});

/** A scope of one node that does not hold `id`. */
function nodeScopeWithout(id: string): WireSegmentScope {
  const node = Math.floor(binOf(id, FANOUT * FANOUT) / FANOUT);
  return { ...WHOLE, firstNode: (node + 1) % FANOUT, nodes: 1 };
}
