/**
 * Catalogue search (DESIGN §7 `search`): ranks by id, name, summary, keywords and the publisher's
 * display name with the rules of search-rank.ts (shared with the desktop app's search worker), and
 * filters by tier, access and installed state. Deterministic: the same catalogue and query always
 * give the same order (deprecated last, then score, then id by code unit).
 */
import { RankIndex, compareRanked } from './search-rank.js';
import type { Access, CatalogueCapability, CataloguePublisher, Tier } from './types.js';

/** Filters of a catalogue search. */
export interface SearchFilters {
  /** Only capabilities of this product tier. */
  tier?: Tier;
  /** Only capabilities with this download access. */
  access?: Access;
  /** true: only installed capabilities; false: only those not installed; absent: both. */
  installed?: boolean;
  /** Ids installed on this host; the install store is the caller's, so the caller passes the set. */
  installedIds?: ReadonlySet<string>;
  /** Deprecated capabilities are listed (after all the others) unless this is false. */
  includeDeprecated?: boolean;
  /** At most this many hits, the most relevant; absent: every hit. */
  limit?: number;
}

/** One capability found by `Arcotheon.search()`, with the fields a search result shows. */
export interface SearchHit {
  /** The capability id. */
  id: string;
  /** The display name. */
  name: string;
  /** One line about it. */
  summary: string;
  /** The latest stable version, or null when there is none. */
  latest: string | null;
  /** The latest prerelease newer than `latest`, or null. */
  latestPrerelease: string | null;
  /** Its product tier. */
  tier: Tier;
  /** Whether downloads need the host's authorisation. */
  access: Access;
  /** Whether it is installed in this home. */
  installed: boolean;
  /** Whether the registry deprecated it. */
  deprecated: boolean;
  /** The publisher id. */
  publisher: string;
  /** Its keywords. */
  keywords: string[];
  /** How well it matches the query (higher first). */
  score: number;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The one ranking of search hits, in a catalogue and across remotes: deprecated capabilities last,
 * then score (highest first), then id by code unit (search-rank.ts, compareRanked).
 * `Arcotheon.search` (and so `adcap search` and the desktop app) and SearchIndex use it.
 */
export function compareSearchHits(
  a: Pick<SearchHit, 'score' | 'deprecated' | 'id'>,
  b: Pick<SearchHit, 'score' | 'deprecated' | 'id'>,
): number {
  return compareRanked(a, b);
}

/**
 * What a SearchIndex searches: a catalogue in memory, or a remote's stored index
 * (search-index/disk-index.ts), which answers the same with the same rules.
 */
export interface SearchSource {
  readonly size: number;
  search(query: string, filters: SearchFilters): SearchHit[];
  /** The ids of every hit of search() without a limit, in no particular order, without making the hits. */
  matchIds(query: string, filters: SearchFilters): string[];
  entries(): Array<[string, CatalogueCapability]>;
}

/** A catalogue's search: the rules and the index of search-rank.ts over its capabilities. */
export class SearchIndex {
  private source: SearchSource;

  /**
   * @param publishers - the catalogue's publishers: their display names are searched too
   *   ("Acme Tools" finds Acme's capabilities).
   */
  constructor(capabilities: Readonly<Record<string, CatalogueCapability>>, publishers: Readonly<Record<string, CataloguePublisher>> = {}) {
    this.source = new CatalogueSearch(capabilities, publishers);
  }

  /**
   * A SearchIndex over another source of the same answers (a remote's stored index).
   * @internal
   */
  static over(source: SearchSource): SearchIndex {
    const index = new SearchIndex({});
    index.source = source;
    return index;
  }

  get size(): number {
    return this.source.size;
  }

  /**
   * Every capability of the catalogue by id (code-unit order), as search sees it.
   * @internal For the Arcotheon app, which sends them to its Discover screen (catalogue.index).
   */
  entries(): Array<[string, CatalogueCapability]> {
    return this.source.entries();
  }

  /** The hits of `query` in relevance order; with `filters.limit`, only the first that many are ranked and made. */
  search(query: string, filters: SearchFilters = {}): SearchHit[] {
    return this.source.search(query, filters);
  }

  /**
   * The ids of every hit of `query` (search() without a limit returns as many), in no particular
   * order and without making the hits: how many there are in all, beside a page of them.
   * @internal
   */
  matchIds(query: string, filters: SearchFilters = {}): string[] {
    return this.source.matchIds(query, filters);
  }
}

/** Search over a catalogue's capabilities in memory. */
class CatalogueSearch implements SearchSource {
  private readonly ids: string[];
  private readonly capabilities: Readonly<Record<string, CatalogueCapability>>;
  private readonly publishers: Readonly<Record<string, CataloguePublisher>>;
  private index: RankIndex | null = null;

  constructor(capabilities: Readonly<Record<string, CatalogueCapability>>, publishers: Readonly<Record<string, CataloguePublisher>>) {
    this.capabilities = capabilities;
    this.publishers = publishers;
    this.ids = Object.keys(capabilities).sort(compareCodeUnits);
  }

  get size(): number {
    return this.ids.length;
  }

  entries(): Array<[string, CatalogueCapability]> {
    return this.ids.map((id) => [id, this.capabilities[id] as CatalogueCapability]);
  }

  /** The word index, built at the first search (a catalogue that is only listed never pays for it). */
  private rankIndex(): RankIndex {
    if (this.index === null)
      this.index = new RankIndex(
        this.ids.map((id) => {
          const c = this.capabilities[id] as CatalogueCapability;
          const publisher = Object.hasOwn(this.publishers, c.publisher) ? this.publishers[c.publisher] : undefined;
          return {
            id,
            name: c.name,
            summary: c.summary,
            keywords: c.keywords,
            publisher: c.publisher,
            publisherName: publisher?.name ?? c.publisher,
            deprecated: c.deprecated,
          };
        }),
      );
    return this.index;
  }

  /** The filters as a test of one document. */
  private accept(filters: SearchFilters): (d: number) => boolean {
    const installedIds = filters.installedIds ?? new Set<string>();
    return (d: number): boolean => {
      const id = this.ids[d] as string;
      const c = this.capabilities[id] as CatalogueCapability;
      if (filters.tier !== undefined && c.tier !== filters.tier) return false;
      if (filters.access !== undefined && c.access !== filters.access) return false;
      if (filters.includeDeprecated === false && c.deprecated) return false;
      return filters.installed === undefined || installedIds.has(id) === filters.installed;
    };
  }

  matchIds(query: string, filters: SearchFilters): string[] {
    const matches = this.rankIndex().search(query, this.accept(filters));
    return Array.from(matches.docs.subarray(0, matches.count), (d) => this.ids[d] as string);
  }

  search(query: string, filters: SearchFilters): SearchHit[] {
    const installedIds = filters.installedIds ?? new Set<string>();
    const index = this.rankIndex();
    const matches = index.search(query, this.accept(filters));
    // Hits are made (and ranked) only for what the limit keeps.
    const { docs, scores } = index.rankedTop(matches, filters.limit === undefined ? matches.count : Math.max(0, filters.limit));
    return Array.from(docs, (d, i) => {
      const id = this.ids[d] as string;
      const c = this.capabilities[id] as CatalogueCapability;
      return {
        id,
        name: c.name,
        summary: c.summary,
        latest: c.latest ?? null,
        latestPrerelease: c.latestPrerelease ?? null,
        tier: c.tier,
        access: c.access,
        installed: installedIds.has(id),
        deprecated: c.deprecated,
        publisher: c.publisher,
        keywords: c.keywords,
        score: scores[i] as number,
      };
    });
  }
}

/** One-shot search; build a SearchIndex once when searching the same catalogue repeatedly. */
export function searchCatalogue(
  capabilities: Readonly<Record<string, CatalogueCapability>>,
  query: string,
  filters: SearchFilters = {},
  publishers: Readonly<Record<string, CataloguePublisher>> = {},
): SearchHit[] {
  return new SearchIndex(capabilities, publishers).search(query, filters);
}
