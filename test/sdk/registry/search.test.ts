import { describe, expect, it } from 'vitest';
import { SearchIndex, searchCatalogue } from '../../../sdk/src/registry/search.js';
import type { CatalogueCapability } from '../../../sdk/src/registry/types.js';

function cap(id: string, name: string, summary: string, extra: Partial<CatalogueCapability> = {}): [string, CatalogueCapability] {
  return [
    id,
    {
      name,
      summary,
      publisher: id.split('/')[0] as string,
      latest: '1.0.0',
      tier: 'free',
      access: 'public',
      keywords: [],
      deprecated: false,
      doc: { path: `packages/${id}.json`, sha256: '0'.repeat(64) },
      ...extra,
    },
  ];
}

const catalogue = Object.fromEntries([
  cap('acme/pdf', 'PDF tools', 'Extract text and fill forms in PDF files', { keywords: ['pdf', 'forms'] }),
  cap('acme/pdf-forms', 'PDF forms', 'Fill PDF forms', { tier: 'pro' }),
  cap('other/pdfkit', 'Kit', 'A document toolkit', { keywords: ['pdf'] }),
  cap('zeta/reader', 'Reader', 'Reads PDF and EPUB', { access: 'entitled' }),
  cap('acme/old', 'Old thing', 'Superseded PDF helper', { deprecated: true }),
  cap('acme/csv', 'CSV', 'Tables'),
]);

describe('search ranking (exact id > name > short name > name prefix > id prefix > token matches)', () => {
  it('ranks the exact id first', () => {
    expect(searchCatalogue(catalogue, 'acme/pdf').map((h) => h.id)[0]).toBe('acme/pdf');
  });

  it('ranks an exact short name above name prefixes and token matches, deterministically', () => {
    const ids = searchCatalogue(catalogue, 'pdf').map((h) => h.id);
    expect(ids[0]).toBe('acme/pdf');
    expect(ids).toEqual(['acme/pdf', 'acme/pdf-forms', 'other/pdfkit', 'zeta/reader', 'acme/old']);
    expect(searchCatalogue(catalogue, 'pdf').map((h) => h.id)).toEqual(ids);
  });

  it('requires every token to match when the phrase itself does not', () => {
    // acme/pdf: "fill" in the summary + "forms" as a keyword (keywords outrank name tokens).
    expect(searchCatalogue(catalogue, 'fill forms').map((h) => h.id)).toEqual(['acme/pdf', 'acme/pdf-forms']);
    expect(searchCatalogue(catalogue, 'pdf tables')).toEqual([]);
  });

  it('matches keywords and is case-insensitive', () => {
    expect(searchCatalogue(catalogue, 'FORMS').map((h) => h.id)).toContain('acme/pdf');
  });

  it('breaks ties by id and lists deprecated capabilities after others at equal score', () => {
    const hits = searchCatalogue(catalogue, '');
    expect(hits.map((h) => h.id)).toEqual(['acme/csv', 'acme/pdf', 'acme/pdf-forms', 'other/pdfkit', 'zeta/reader', 'acme/old']);
  });
});

describe('search filters', () => {
  it('filters by tier, access and deprecation', () => {
    expect(searchCatalogue(catalogue, 'pdf', { tier: 'pro' }).map((h) => h.id)).toEqual(['acme/pdf-forms']);
    expect(searchCatalogue(catalogue, '', { access: 'entitled' }).map((h) => h.id)).toEqual(['zeta/reader']);
    expect(searchCatalogue(catalogue, 'pdf', { includeDeprecated: false }).map((h) => h.id)).not.toContain('acme/old');
  });

  it('filters by installed state from the caller set and reports it per hit', () => {
    const installedIds = new Set(['acme/pdf']);
    const all = searchCatalogue(catalogue, 'pdf', { installedIds });
    expect(all.find((h) => h.id === 'acme/pdf')?.installed).toBe(true);
    expect(all.find((h) => h.id === 'acme/pdf-forms')?.installed).toBe(false);
    expect(searchCatalogue(catalogue, 'pdf', { installedIds, installed: true }).map((h) => h.id)).toEqual(['acme/pdf']);
    expect(searchCatalogue(catalogue, 'pdf', { installedIds, installed: false }).map((h) => h.id)).not.toContain('acme/pdf');
  });

  it('applies a limit after ranking', () => {
    expect(searchCatalogue(catalogue, 'pdf', { limit: 2 }).map((h) => h.id)).toEqual(['acme/pdf', 'acme/pdf-forms']);
  });
});

/** A synthetic catalogue of `count` capabilities with realistic field sizes. */
export function syntheticCapabilities(count: number): Record<string, CatalogueCapability> {
  const words = [
    'pdf',
    'forms',
    'csv',
    'tables',
    'search',
    'index',
    'vector',
    'image',
    'audio',
    'translate',
    'summarise',
    'chart',
    'sql',
    'http',
    'git',
    'docs',
  ];
  const out: Record<string, CatalogueCapability> = {};
  for (let i = 0; i < count; i++) {
    const a = words[i % words.length] as string;
    const b = words[(i * 7 + 3) % words.length] as string;
    const id = `pub-${i % 500}/${a}-${b}-${i}`;
    out[id] = {
      name: `${a} ${b} tool ${i}`,
      summary: `Helps with ${a} and ${b} work, number ${i}, for agents that need ${words[(i * 3) % words.length] as string}.`,
      publisher: `pub-${i % 500}`,
      latest: `1.${i % 10}.0`,
      tier: i % 5 === 0 ? 'pro' : 'free',
      access: i % 11 === 0 ? 'entitled' : 'public',
      keywords: [a, b],
      deprecated: i % 97 === 0,
      doc: { path: `packages/pub-${i % 500}/${a}-${b}-${i}.json`, sha256: '0'.repeat(64) },
    };
  }
  return out;
}

// The time a query takes over 20,000 capabilities (under 50 ms) is measured by
// `npm run bench -- registry` (test/bench/registry.bench.ts); here, only the answers.
describe('search over a large catalogue', () => {
  it('indexes 20,000 capabilities and answers queries over them', () => {
    const index = new SearchIndex(syntheticCapabilities(20_000));
    expect(index.size).toBe(20_000);
    const queries = ['pdf', 'index vector', 'tool 1234', 'summ', 'pub-42/sql'];
    for (const query of queries) expect(index.search(query).length, query).toBeGreaterThan(0);
    expect(index.search('index vector').length).toBeGreaterThan(0);
  });
});

// search-rank.ts holds the rules; here, that the SDK's search applies them to a catalogue.
describe('publisher names, typos and deprecation (search-rank.ts rules)', () => {
  const weather = Object.fromEntries([
    cap('acme/weather', 'Weather', 'Forecasts for any city', { deprecated: true }),
    cap('acme/forecast', 'Forecast', 'Weather forecasts, replaces acme/weather'),
    cap('zeta/news', 'News', 'Headlines'),
  ]);
  const publishers = {
    acme: { name: 'Acme Tools', keys: [] },
    zeta: { name: 'Zeta', keys: [] },
  };

  it("finds a publisher's capabilities by its display name", () => {
    expect(searchCatalogue(weather, 'Acme Tools', {}, publishers).map((h) => h.id)).toEqual(['acme/forecast', 'acme/weather']);
    expect(searchCatalogue(weather, 'Acme Tools')).toEqual([]);
  });

  it('tolerates one typo and lists the deprecated capability after its replacement', () => {
    expect(searchCatalogue(weather, 'weathr', {}, publishers).map((h) => h.id)).toEqual(['acme/forecast', 'acme/weather']);
    expect(searchCatalogue(weather, 'weather', {}, publishers).map((h) => h.id)).toEqual(['acme/forecast', 'acme/weather']);
  });
});
