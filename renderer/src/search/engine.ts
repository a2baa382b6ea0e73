/**
 * The Discover screen's search, run where the list is drawn (docs/ui.md "Fast: search results update
 * within a frame or two of typing"): the host sends the index once (`catalogue.index`), and each
 * keystroke is answered here from an in-memory index with the SDK's own ranking rules
 * (sdk/src/registry/search-rank.ts, the one SDK module the renderer may import), then filtered,
 * counted per facet and sorted. Plain code without DOM: it runs in the search worker (worker.ts), or
 * on the page's thread where a worker cannot start.
 */
import { RankIndex, type RankDocument, type RankMatches } from '../../../sdk/src/registry/search-rank.js';
import { CATALOGUE_FLAGS, type CatalogueFacets, type CatalogueIndexPage, type CatalogueIndexRow } from '../../../electron/common/index.js';
import type { SearchKnown, SearchQuery, SearchResult } from './protocol.js';

/** How many categories (the commonest keywords) the screen offers. */
const CATEGORIES = 14;

export class SearchEngine {
  readonly revision: string;
  private readonly rows: CatalogueIndexRow[];
  private readonly index: RankIndex;
  /** Each row's keywords, lowercase (categories match a whole keyword). */
  private readonly keywords: string[][];
  /** The commonest keywords, most common first. */
  readonly categories: string[];
  private installed = new Set<string>();
  private learned = new Map<string, SearchKnown['learned'][number]>();
  /** Row rank by last publication, newest first; rows without a date after, by name. */
  private updatedRank: Int32Array;
  /** Row rank when browsing: the order the host sent the rows in. */
  private readonly browseRank: Int32Array;

  constructor(revision: string, rows: CatalogueIndexRow[], publishers: CatalogueIndexPage['publishers']) {
    this.revision = revision;
    this.rows = rows;
    const docs: RankDocument[] = rows.map(([id, name, summary, keywords, , , flags, publisher]) => {
      const p = publishers[publisher];
      return {
        id,
        name,
        summary,
        keywords,
        publisher: p?.id ?? id.slice(0, id.indexOf('/')),
        publisherName: p?.name ?? '',
        deprecated: (flags & CATALOGUE_FLAGS.deprecated) !== 0,
      };
    });
    this.index = new RankIndex(docs);
    this.keywords = rows.map((row) => row[3].map((k) => k.toLowerCase()));
    const counts = new Map<string, number>();
    for (const list of this.keywords) for (const keyword of new Set(list)) counts.set(keyword, (counts.get(keyword) ?? 0) + 1);
    this.categories = [...counts]
      .filter(([, count]) => count > 1 || rows.length < 50)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, CATEGORIES)
      .map(([keyword]) => keyword);
    this.updatedRank = this.index.nameRank;
    this.browseRank = Int32Array.from(rows, (_, d) => d);
  }

  /** What this computer knows beyond the catalogue: installed ids, contents and dates read so far. */
  setKnown(known: SearchKnown): void {
    this.installed = new Set(known.installed);
    this.learned = new Map(known.learned.map((l) => [l.id, l]));
    const dated = this.rows.map((row, d) => ({ d, at: this.learned.get(row[0])?.updatedAt ?? null }));
    dated.sort((a, b) => {
      if (a.at !== b.at) {
        if (a.at === null) return 1;
        if (b.at === null) return -1;
        return a.at < b.at ? 1 : -1;
      }
      return (this.index.nameRank[a.d] as number) - (this.index.nameRank[b.d] as number);
    });
    this.updatedRank = new Int32Array(this.rows.length);
    dated.forEach(({ d }, rank) => (this.updatedRank[d] = rank));
  }

  search(query: SearchQuery): SearchResult {
    const started = performance.now();
    const { filters } = query;
    const matches = this.index.search(query.text);
    const facets: CatalogueFacets = {
      tier: { free: 0, pro: 0 },
      access: { public: 0, entitled: 0 },
      installed: { yes: 0, no: 0 },
      hasTools: 0,
      hasSkills: 0,
      hasWorkflows: 0,
    };
    const F_OTHER = 1;
    const F_TIER = 2;
    const F_ACCESS = 4;
    const F_INSTALLED = 8;
    const F_TOOLS = 16;
    const F_SKILLS = 32;
    const F_WORKFLOWS = 64;
    const kept: RankMatches = {
      count: 0,
      docs: new Int32Array(matches.count),
      scores: new Int32Array(matches.count),
      ordered: matches.ordered,
    };
    let pending = 0;
    for (let i = 0; i < matches.count; i++) {
      const d = matches.docs[i] as number;
      const row = this.rows[d] as CatalogueIndexRow;
      const flags = row[6];
      const tier = (flags & CATALOGUE_FLAGS.pro) !== 0 ? 'pro' : 'free';
      const access = (flags & CATALOGUE_FLAGS.entitled) !== 0 ? 'entitled' : 'public';
      const installed = this.installed.has(row[0]);
      const contents = this.learned.get(row[0]);
      // One bit per filter the row fails, so each facet's count (all filters but its own) is one pass.
      let failed = 0;
      if (filters.includeDeprecated === false && (flags & CATALOGUE_FLAGS.deprecated) !== 0) failed |= F_OTHER;
      if (query.category !== null && !(this.keywords[d] as string[]).includes(query.category)) failed |= F_OTHER;
      if (filters.tier !== undefined && tier !== filters.tier) failed |= F_TIER;
      if (filters.access !== undefined && access !== filters.access) failed |= F_ACCESS;
      if (filters.installed !== undefined && installed !== filters.installed) failed |= F_INSTALLED;
      if (filters.hasTools !== undefined && (contents === undefined || contents.tools > 0 !== filters.hasTools)) failed |= F_TOOLS;
      if (filters.hasSkills !== undefined && (contents === undefined || contents.skills > 0 !== filters.hasSkills)) failed |= F_SKILLS;
      if (filters.hasWorkflows !== undefined && (contents === undefined || contents.workflows > 0 !== filters.hasWorkflows))
        failed |= F_WORKFLOWS;
      if (failed === 0) {
        kept.docs[kept.count] = d;
        kept.scores[kept.count] = matches.scores[i] as number;
        kept.count++;
      }
      if ((failed & ~F_TIER) === 0) facets.tier[tier]++;
      if ((failed & ~F_ACCESS) === 0) facets.access[access]++;
      if ((failed & ~F_INSTALLED) === 0) facets.installed[installed ? 'yes' : 'no']++;
      if (contents === undefined) pending++;
      else {
        if (contents.tools > 0 && (failed & ~F_TOOLS) === 0) facets.hasTools++;
        if (contents.skills > 0 && (failed & ~F_SKILLS) === 0) facets.hasSkills++;
        if (contents.workflows > 0 && (failed & ~F_WORKFLOWS) === 0) facets.hasWorkflows++;
      }
    }
    // An empty search is browsing: the rows' own order (the host's: deprecated last, then name).
    const order =
      query.text.trim() === '' && query.sort === 'relevance'
        ? this.index.byRank(kept, this.browseRank)
        : query.sort === 'name'
          ? this.index.byRank(kept, this.index.nameRank)
          : query.sort === 'updated'
            ? this.index.byRank(kept, this.updatedRank)
            : this.index.byRelevance(kept);
    return {
      type: 'result',
      seq: query.seq,
      revision: this.revision,
      text: query.text,
      order,
      facets,
      contentsPending: pending,
      searchMs: performance.now() - started,
    };
  }

  /** The newest capabilities by their last publication (only those whose date is known). */
  recentlyUpdated(limit: number): Int32Array {
    const dated: number[] = [];
    for (let d = 0; d < this.rows.length; d++) {
      const row = this.rows[d] as CatalogueIndexRow;
      const updatedAt = this.learned.get(row[0])?.updatedAt ?? null;
      if ((row[6] & CATALOGUE_FLAGS.deprecated) === 0 && updatedAt !== null) dated.push(d);
    }
    dated.sort((a, b) => (this.updatedRank[a] as number) - (this.updatedRank[b] as number));
    return Int32Array.from(dated.slice(0, limit));
  }
}
