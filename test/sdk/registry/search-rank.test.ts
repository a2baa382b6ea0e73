import { describe, expect, it } from 'vitest';
import {
  RankIndex,
  compareRanked,
  scoreDocument,
  typoMatches,
  withinOneEdit,
  type RankDocument,
} from '../../../sdk/src/registry/search-rank.js';

function doc(id: string, name: string, summary: string, extra: Partial<RankDocument> = {}): RankDocument {
  const publisher = id.split('/')[0] as string;
  return { id, name, summary, keywords: [], publisher, publisherName: publisher, deprecated: false, ...extra };
}

/** The order the plain rules give: scoreDocument for each, compareRanked. */
function reference(docs: readonly RankDocument[], query: string): string[] {
  return docs
    .map((d) => ({ id: d.id, deprecated: d.deprecated, score: scoreDocument(d, query) }))
    .filter((r): r is { id: string; deprecated: boolean; score: number } => r.score !== null)
    .sort(compareRanked)
    .map((r) => `${r.id}:${r.score}`);
}

function indexed(index: RankIndex, query: string): string[] {
  const matches = index.search(query);
  const scores = new Map<number, number>();
  for (let i = 0; i < matches.count; i++) scores.set(matches.docs[i] as number, matches.scores[i] as number);
  return Array.from(index.byRelevance(matches), (d) => `${index.document(d).id}:${scores.get(d) ?? 0}`);
}

const ids = (index: RankIndex, query: string): string[] => indexed(index, query).map((hit) => hit.split(':')[0] as string);

const acme = { publisherName: 'Acme Tools' };
const docs = [
  doc('acme/weather', 'Weather', 'Forecasts for any city', { ...acme, keywords: ['forecast'], deprecated: true }),
  doc('acme/forecast', 'Forecast', 'Weather forecasts for any city, replaces acme/weather', { ...acme, keywords: ['weather'] }),
  doc('acme/pdf', 'PDF tools', 'Extract text and fill forms in PDF files', { ...acme, keywords: ['pdf', 'forms'] }),
  doc('other/json-lint', 'JSON lint', 'Checks JSON files', { publisherName: 'Other Inc' }),
  doc('other/summarize', 'Summarize', 'Summarises long text', { publisherName: 'Other Inc' }),
  doc('zeta/reader', 'Reader', 'Reads PDF and EPUB'),
];

describe('one typo (Damerau-Levenshtein distance 1)', () => {
  it('accepts one insertion, deletion, substitution or neighbour swap, and nothing more', () => {
    expect(withinOneEdit('weathr', 'weather')).toBe(true);
    expect(withinOneEdit('weather', 'weathr')).toBe(true);
    expect(withinOneEdit('wezther', 'weather')).toBe(true);
    expect(withinOneEdit('waether', 'weather')).toBe(true);
    expect(withinOneEdit('weather', 'weather')).toBe(true);
    expect(withinOneEdit('wthaeer', 'weather')).toBe(false);
    expect(withinOneEdit('wether', 'weathers')).toBe(false);
    expect(withinOneEdit('abcd', 'badc')).toBe(false);
  });

  it('applies to words of five or more characters, and to swapped neighbours in four', () => {
    expect(typoMatches('weathr', 'weather')).toBe(true);
    expect(typoMatches('josn', 'json')).toBe(true);
    expect(typoMatches('jsno', 'json')).toBe(true);
    expect(typoMatches('jsan', 'json')).toBe(false);
    expect(typoMatches('tol', 'tool')).toBe(false);
  });
});

describe('ranking rules', () => {
  const index = new RankIndex(docs);

  it("finds a publisher's capabilities by its display name", () => {
    expect(ids(index, 'Acme Tools')).toEqual(['acme/pdf', 'acme/forecast', 'acme/weather']);
    expect(ids(index, 'acme')).toEqual(['acme/forecast', 'acme/pdf', 'acme/weather']);
  });

  it('tolerates one typo, below exact and prefix matches', () => {
    expect(ids(index, 'weathr')).toEqual(['acme/forecast', 'acme/weather']);
    expect(ids(index, 'josn')).toEqual(['other/json-lint']);
    // "summarize" exactly (name) outranks "summarises" (summary, no typo: a prefix would need "summaris").
    expect(ids(index, 'summarise')[0]).toBe('other/summarize');
    const [exact, typo] = [scoreDocument(docs[4] as RankDocument, 'summarize'), scoreDocument(docs[4] as RankDocument, 'summarise')];
    expect(exact).toBeGreaterThan(typo as number);
  });

  it('lists a deprecated capability after its replacement, even when it matches better', () => {
    expect(
      (scoreDocument(docs[0] as RankDocument, 'weather') as number) > (scoreDocument(docs[1] as RankDocument, 'weather') as number),
    ).toBe(true);
    expect(ids(index, 'weather')).toEqual(['acme/forecast', 'acme/weather']);
    expect(ids(index, '')).toEqual(['acme/forecast', 'acme/pdf', 'other/json-lint', 'other/summarize', 'zeta/reader', 'acme/weather']);
  });

  it('requires every word to match unless the phrase did', () => {
    expect(ids(index, 'pdf epub')).toEqual(['zeta/reader']);
    expect(ids(index, 'pdf zebra')).toEqual([]);
  });

  it('filters with accept and orders by name on request', () => {
    const matches = index.search('', (d) => !index.document(d).deprecated);
    expect(Array.from(index.byRank(matches, index.nameRank), (d) => index.document(d).name)).toEqual([
      'Forecast',
      'JSON lint',
      'PDF tools',
      'Reader',
      'Summarize',
    ]);
  });
});

/** A catalogue with repeated words, near-duplicate words, numbers and several publishers. */
function corpus(count: number): RankDocument[] {
  const words = ['pdf', 'forms', 'weather', 'whether', 'forecast', 'json', 'jsons', 'chart', 'charts', 'summarise', 'summarize', 'git'];
  return Array.from({ length: count }, (_, i) => {
    const a = words[i % words.length] as string;
    const b = words[(i * 7 + 3) % words.length] as string;
    const p = i % 13;
    return {
      id: `pub-${p}/${a}-${b}-${i}`,
      name: `${a} ${b} tool ${i}`,
      summary: `Helps with ${a} and ${b}, number ${i}.`,
      keywords: [a, `${b}-kit`],
      publisher: `pub-${p}`,
      publisherName: p % 2 === 0 ? `Publisher ${p} Labs` : `pub-${p}`,
      deprecated: i % 17 === 0,
    };
  });
}

describe('RankIndex gives the answers of the plain rules', () => {
  const all = corpus(600);
  const index = new RankIndex(all);
  const queries = [
    '',
    'p',
    'pd',
    'pdf',
    'PDF forms',
    'weather',
    'weathr',
    'wether',
    'whetehr',
    'forcast',
    'josn',
    'jsno',
    'sumarise',
    'summarise chart',
    'art',
    'tool 1',
    'tool 12',
    'pub-3',
    'pub-3/json',
    'Publisher 4 Labs',
    'publisher labs',
    'labs',
    'kit',
    'chrts kit',
    'pdf-forms-0',
    'git git',
    'nothing-here',
  ];
  for (const query of queries) {
    it(`"${query}"`, () => {
      expect(indexed(index, query)).toEqual(reference(all, query));
    });
  }
});

describe('indexes of different sizes share one set of query scratch space', () => {
  it('searched in turn, each answers as the plain rules, as when searched alone', () => {
    const small = corpus(40);
    const large = corpus(900);
    const reversed = [...corpus(300)].reverse();
    const indexes = [new RankIndex(small), new RankIndex(large), new RankIndex(reversed)];
    const sets = [small, large, reversed];
    const queries = ['pdf', 'weathr', 'tool 1', 'pub-3', 'kit', 'pdf', 'Publisher 4 Labs', ''];
    // The small index searched first takes the scratch space of its size; the larger ones grow it.
    for (const query of queries)
      indexes.forEach((index, i) => expect(indexed(index, query), `${i} ${query}`).toEqual(reference(sets[i] as RankDocument[], query)));
    // Id and name ranks are made when first asked for: a permutation of the documents each.
    for (const index of indexes) {
      expect([...index.idRank].sort((a, b) => a - b)).toEqual(Array.from({ length: index.size }, (_, i) => i));
      expect([...index.nameRank].sort((a, b) => a - b)).toEqual(Array.from({ length: index.size }, (_, i) => i));
    }
  });
});
