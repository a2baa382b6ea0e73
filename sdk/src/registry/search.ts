/**
 * Catalogue search (issue 3): ranks by id, name, summary and keywords and filters by tier, access
 * and installed state. Pure and deterministic: the same catalogue and query always give the same
 * order (score, then non-deprecated first, then id by code unit). The index precomputes lowercase
 * fields and tokens once so a query over 20,000 capabilities is a single linear scan.
 */
import type { Access, CatalogueCapability, Tier } from './types.js';

/** Filters of a catalogue search. */
export interface SearchFilters {
  tier?: Tier;
  access?: Access;
  /** true: only installed capabilities; false: only those not installed; absent: both. */
  installed?: boolean;
  /** Ids installed on this host; the install store is the caller's, so the caller passes the set. */
  installedIds?: ReadonlySet<string>;
  /** Deprecated capabilities are listed (after the others at equal score) unless this is false. */
  includeDeprecated?: boolean;
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

/** Scores of the match kinds, highest first; token scores add up across query tokens. */
const SEARCH_SCORES = {
  exactId: 10_000,
  exactName: 5_000,
  exactShortName: 4_000,
  namePrefix: 3_000,
  idPrefix: 2_500,
  keywordExact: 60,
  nameTokenExact: 50,
  idTokenExact: 50,
  nameTokenPrefix: 30,
  idTokenPrefix: 30,
  keywordPrefix: 25,
  summaryTokenExact: 15,
  summaryTokenPrefix: 8,
  substring: 3,
} as const;

interface IndexedCapability {
  id: string;
  capability: CatalogueCapability;
  /** Every searchable field, lowercase, in one string: a token absent from it matches nothing. */
  text: string;
  /** The fields one by one, made the first time the phrase or a query token occurs in `text` (fieldsOf). */
  fields?: IndexedFields;
}

interface IndexedFields {
  idLower: string;
  shortName: string;
  nameLower: string;
  summaryLower: string;
  keywords: string[];
  idTokens: string[];
  nameTokens: string[];
  summaryTokens: string[];
}

/**
 * Lowercasing and tokenising every field of a 100,000-entry catalogue costs more than the search
 * that uses a few thousand of them; an index built for one search (the CLI's) makes them only for
 * the items the query occurs in, and keeps them for the next query.
 */
function fieldsOf(item: IndexedCapability): IndexedFields {
  if (item.fields !== undefined) return item.fields;
  const { id, capability } = item;
  const idLower = id.toLowerCase();
  item.fields = {
    idLower,
    shortName: idLower.slice(id.indexOf('/') + 1),
    nameLower: capability.name.toLowerCase(),
    summaryLower: capability.summary.toLowerCase(),
    keywords: capability.keywords.map((k) => k.toLowerCase()),
    idTokens: tokenize(id),
    nameTokens: tokenize(capability.name),
    summaryTokens: tokenize(capability.summary),
  };
  return item.fields;
}

function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The one ranking of search hits, in a catalogue and across remotes: score (highest first), then
 * non-deprecated first, then id by code unit. `Arcotheon.search` (and so `adcap search` and the
 * desktop app) and SearchIndex use it.
 */
export function compareSearchHits(
  a: Pick<SearchHit, 'score' | 'deprecated' | 'id'>,
  b: Pick<SearchHit, 'score' | 'deprecated' | 'id'>,
): number {
  return b.score - a.score || Number(a.deprecated) - Number(b.deprecated) || compareCodeUnits(a.id, b.id);
}

export class SearchIndex {
  private readonly items: IndexedCapability[];

  constructor(capabilities: Readonly<Record<string, CatalogueCapability>>) {
    this.items = Object.keys(capabilities)
      .sort(compareCodeUnits)
      .map((id) => {
        const capability = capabilities[id] as CatalogueCapability;
        // One toLowerCase of the joined fields is each field's: '\n' is not a letter, so no
        // context-sensitive mapping (the final sigma) reaches across a field's end.
        const text = [id, capability.name, capability.summary, ...capability.keywords].join('\n').toLowerCase();
        return { id, capability, text };
      });
  }

  get size(): number {
    return this.items.length;
  }

  search(query: string, filters: SearchFilters = {}): SearchHit[] {
    const phrase = query.trim().toLowerCase();
    const tokens = tokenize(phrase);
    const installedIds = filters.installedIds ?? new Set<string>();
    const hits: SearchHit[] = [];
    for (const item of this.items) {
      const c = item.capability;
      if (filters.tier !== undefined && c.tier !== filters.tier) continue;
      if (filters.access !== undefined && c.access !== filters.access) continue;
      if (filters.includeDeprecated === false && c.deprecated) continue;
      const installed = installedIds.has(item.id);
      if (filters.installed !== undefined && installed !== filters.installed) continue;
      const score = phrase.length === 0 ? 0 : scoreItem(item, phrase, tokens);
      if (score <= 0 && phrase.length > 0) continue;
      hits.push({
        id: item.id,
        name: c.name,
        summary: c.summary,
        latest: c.latest ?? null,
        latestPrerelease: c.latestPrerelease ?? null,
        tier: c.tier,
        access: c.access,
        installed,
        deprecated: c.deprecated,
        publisher: c.publisher,
        keywords: c.keywords,
        score,
      });
    }
    hits.sort(compareSearchHits);
    return filters.limit === undefined ? hits : hits.slice(0, Math.max(0, filters.limit));
  }
}

/** One-shot search; build a SearchIndex once when searching the same catalogue repeatedly. */
export function searchCatalogue(
  capabilities: Readonly<Record<string, CatalogueCapability>>,
  query: string,
  filters: SearchFilters = {},
): SearchHit[] {
  return new SearchIndex(capabilities).search(query, filters);
}

/**
 * Whole-phrase matches decide the band (exact id > exact name > exact short name > name prefix >
 * id prefix); inside a band, token matches add up. Every query token must match somewhere, unless
 * the whole phrase already matched, so "pdf tools" does not list everything with "tools" in it.
 */
function scoreItem(entry: IndexedCapability, phrase: string, tokens: readonly string[]): number {
  const S = SEARCH_SCORES;
  // A band needs the phrase in the id or the name, a token score a token in some field: both are
  // substrings of `text`, so an item holding neither scores 0 without looking at its fields.
  if (!entry.text.includes(phrase) && !tokens.some((token) => entry.text.includes(token))) return 0;
  const item = fieldsOf(entry);
  let band = 0;
  if (item.idLower === phrase) band = S.exactId;
  else if (item.nameLower === phrase) band = S.exactName;
  else if (item.shortName === phrase) band = S.exactShortName;
  else if (item.nameLower.startsWith(phrase)) band = S.namePrefix;
  else if (item.idLower.startsWith(phrase) || item.shortName.startsWith(phrase)) band = S.idPrefix;

  let tokenScore = 0;
  for (const token of tokens) {
    // Every match kind below implies a substring of some field, so one native search rules out
    // most of a large catalogue before any per-token work.
    const best = entry.text.includes(token) ? scoreToken(item, token) : 0;
    if (best === 0 && band === 0) return 0;
    tokenScore += best;
  }
  return band + tokenScore;
}

function scoreToken(item: IndexedFields, token: string): number {
  const S = SEARCH_SCORES;
  let best = 0;
  for (const keyword of item.keywords) {
    if (keyword === token) return S.keywordExact;
    if (best < S.keywordPrefix && keyword.startsWith(token)) best = S.keywordPrefix;
  }
  for (const t of item.nameTokens) {
    if (t === token) best = Math.max(best, S.nameTokenExact);
    else if (best < S.nameTokenPrefix && t.startsWith(token)) best = S.nameTokenPrefix;
  }
  for (const t of item.idTokens) {
    if (t === token) best = Math.max(best, S.idTokenExact);
    else if (best < S.idTokenPrefix && t.startsWith(token)) best = S.idTokenPrefix;
  }
  if (best >= S.summaryTokenExact) return best;
  for (const t of item.summaryTokens) {
    if (t === token) return S.summaryTokenExact;
    if (best < S.summaryTokenPrefix && t.startsWith(token)) best = S.summaryTokenPrefix;
  }
  if (best === 0 && (item.nameLower.includes(token) || item.summaryLower.includes(token))) best = S.substring;
  return best;
}
