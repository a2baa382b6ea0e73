/**
 * The Discover screen's search, run where the list is drawn (docs/ui.md "Fast: search results update
 * within a frame or two of typing"): the host sends the index once (`catalogue.index`), and each
 * keystroke is answered here from an in-memory index with the SDK's own ranking rules
 * (sdk/src/registry/search-rank.ts, the one SDK module the renderer may import), then filtered,
 * counted per facet and sorted. Plain code without DOM: it runs in the search worker (worker.ts), or
 * on the page's thread where a worker cannot start.
 *
 * A keystroke's answer carries the first rows in order (a screen and more) and the count; the
 * order of every other match is worked out only when the list scrolls towards it (handler.ts).
 * Sorting 20,000 matches of a one-letter query is most of a search's time, and the list shows a
 * screenful of them.
 */
import {
  RankIndex,
  rankIndexData,
  sortedStrings,
  type RankDocument,
  type RankKeys,
  type RankMatches,
} from '../../../sdk/src/registry/search-rank.js';
import { CATALOGUE_FLAGS, type CatalogueFacets, type CatalogueIndexPage, type CatalogueIndexRow } from '../../../electron/common/index.js';
import type { RankIndexWire, SearchKnown, SearchQuery, SearchResult } from './protocol.js';

/** How many categories (the commonest keywords) the screen offers. */
const CATEGORIES = 14;

/** Rows a query's first answer carries in order: more than a tall window shows, with room to scroll. */
export const FIRST_ROWS = 100;

const KEY_TABLES = ['ids', 'names', 'shortNames', 'publishers'] as const;

/** What the ranking reads of each row. */
function documentsOf(rows: readonly CatalogueIndexRow[], publishers: CatalogueIndexPage['publishers']): (d: number) => RankDocument {
  return (d) => {
    const [id, name, summary, keywords, , , flags, publisher] = rows[d] as CatalogueIndexRow;
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
  };
}

/**
 * The SDK's index data over the rows, built where building does not hold up the page (the worker),
 * and the buffers to transfer with it.
 */
export function buildIndexData(
  rows: readonly CatalogueIndexRow[],
  publishers: CatalogueIndexPage['publishers'],
): { data: RankIndexWire; transfer: ArrayBuffer[] } {
  const documentAt = documentsOf(rows, publishers);
  const data = rankIndexData(Array.from(rows, (_, d) => documentAt(d)));
  const keys = (table: RankKeys): { keys: string[]; docs: Int32Array } => ({
    keys: Array.from({ length: table.keys.length }, (_, i) => table.keys.get(i)),
    docs: table.docs,
  });
  const wire: RankIndexWire = {
    ...data,
    ids: keys(data.ids),
    names: keys(data.names),
    shortNames: keys(data.shortNames),
    publishers: keys(data.publishers),
  };
  const buffers = [data.words.starts, data.postingStart, data.postingDocs, data.postingMasks, data.deprecated, data.byId, data.byName];
  for (const table of KEY_TABLES) buffers.push(wire[table].docs);
  return { data: wire, transfer: [...new Set(buffers.map((b) => b.buffer as ArrayBuffer))] };
}

/** A query's answer: the first rows now, and every row's order on demand. */
export interface Answer {
  result: SearchResult;
  /** The order of every match (null when `result.order` already holds them all). */
  rest: (() => Int32Array) | null;
}

export class SearchEngine {
  readonly revision: string;
  private readonly rows: CatalogueIndexRow[];
  /** Each row's CATALOGUE_FLAGS, in one typed array: a query reads it for every match. */
  private readonly flags: Uint8Array;
  private readonly index: RankIndex;
  /** Each row's keywords, lowercase (categories match a whole keyword). */
  private readonly keywords: string[][];
  /** The commonest keywords, most common first. */
  readonly categories: string[];
  /** Per row: installed (1) or not. */
  private installed: Uint8Array;
  /** Per row: its tools, skills and workflows when its package document was read, else -1. */
  private tools: Int32Array;
  private skills: Int32Array;
  private workflows: Int32Array;
  private updatedAt: Array<string | null>;
  /**
   * The rows in each order a list can take, for sorts that are not by relevance: the name order
   * (the index's), last publication first (rows without a date after, by name), and browsing (the
   * order the host sent the rows in: deprecated last, then name). Each is a permutation of the rows,
   * so a sorted answer is one pass over it, with no sort.
   */
  private byName: Int32Array;
  private byUpdated: Int32Array;
  private readonly byBrowse: Int32Array;
  /** Per row: the number of the last query it matched (a pass over an order keeps those rows). */
  private readonly stamp: Int32Array;
  private queries = 0;

  /** `built`: the index data buildIndexData made of these rows elsewhere; without it, it is built here. */
  constructor(revision: string, rows: CatalogueIndexRow[], publishers: CatalogueIndexPage['publishers'], built?: RankIndexWire) {
    this.revision = revision;
    this.rows = rows;
    const documentAt = documentsOf(rows, publishers);
    if (built === undefined) this.index = new RankIndex(Array.from(rows, (_, d) => documentAt(d)));
    else {
      const table = (wire: { keys: string[]; docs: Int32Array }): RankKeys => ({ keys: sortedStrings(wire.keys), docs: wire.docs });
      this.index = RankIndex.fromData(
        {
          ...built,
          ids: table(built.ids),
          names: table(built.names),
          shortNames: table(built.shortNames),
          publishers: table(built.publishers),
        },
        documentAt,
      );
    }
    this.keywords = rows.map((row) => row[3].map((k) => k.toLowerCase()));
    const counts = new Map<string, number>();
    for (const list of this.keywords) for (const keyword of new Set(list)) counts.set(keyword, (counts.get(keyword) ?? 0) + 1);
    this.categories = [...counts]
      .filter(([, count]) => count > 1 || rows.length < 50)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, CATEGORIES)
      .map(([keyword]) => keyword);
    const n = rows.length;
    this.flags = Uint8Array.from(rows, (row) => row[6]);
    this.byName = new Int32Array(n);
    this.index.nameRank.forEach((rank, d) => (this.byName[rank] = d));
    this.byBrowse = Int32Array.from(rows, (_, d) => d);
    this.stamp = new Int32Array(n);
    this.installed = new Uint8Array(n);
    this.tools = new Int32Array(n).fill(-1);
    this.skills = new Int32Array(n).fill(-1);
    this.workflows = new Int32Array(n).fill(-1);
    this.updatedAt = new Array<string | null>(n).fill(null);
    this.byUpdated = this.byName;
  }

  /** What this computer knows beyond the catalogue: installed ids, contents and dates read so far. */
  setKnown(known: SearchKnown): void {
    const n = this.rows.length;
    const rowOf = new Map(this.rows.map((row, d) => [row[0], d]));
    this.installed = new Uint8Array(n);
    for (const id of known.installed) {
      const d = rowOf.get(id);
      if (d !== undefined) this.installed[d] = 1;
    }
    this.tools = new Int32Array(n).fill(-1);
    this.skills = new Int32Array(n).fill(-1);
    this.workflows = new Int32Array(n).fill(-1);
    this.updatedAt = new Array<string | null>(n).fill(null);
    for (const l of known.learned) {
      const d = rowOf.get(l.id);
      if (d === undefined) continue;
      this.tools[d] = l.tools;
      this.skills[d] = l.skills;
      this.workflows[d] = l.workflows;
      this.updatedAt[d] = l.updatedAt;
    }
    // Last publication first; rows without a date after, by name.
    const dated: number[] = [];
    for (const d of this.byName) if (this.updatedAt[d] !== null) dated.push(d);
    dated.sort((a, b) => {
      const x = this.updatedAt[a] as string;
      const y = this.updatedAt[b] as string;
      return x === y ? (this.index.nameRank[a] as number) - (this.index.nameRank[b] as number) : x < y ? 1 : -1;
    });
    const byUpdated = new Int32Array(n);
    byUpdated.set(dated);
    let at = dated.length;
    for (const d of this.byName) if (this.updatedAt[d] === null) byUpdated[at++] = d;
    this.byUpdated = byUpdated;
  }

  /**
   * The answer to a query: the rows that pass its filters (each facet counted over all filters but
   * its own), the first FIRST_ROWS of them in order, and the rest's order on demand.
   */
  search(query: SearchQuery): Answer {
    const started = performance.now();
    const { filters } = query;
    const matches = this.index.search(query.text);
    const { flags, installed, tools, skills, workflows, stamp } = this;
    const PRO = CATALOGUE_FLAGS.pro;
    const ENTITLED = CATALOGUE_FLAGS.entitled;
    // An empty search is browsing: the rows' own order (the host's: deprecated last, then name).
    const byOrder =
      query.text.trim() === '' && query.sort === 'relevance'
        ? this.byBrowse
        : query.sort === 'name'
          ? this.byName
          : query.sort === 'updated'
            ? this.byUpdated
            : null;
    const mark = ++this.queries;
    // Each facet is counted over all filters but its own, in local counters.
    let pro = 0;
    let free = 0;
    let entitled = 0;
    let open = 0;
    let yes = 0;
    let no = 0;
    let withTools = 0;
    let withSkills = 0;
    let withWorkflows = 0;
    let pending = 0;
    let kept: RankMatches;
    const filtered =
      filters.includeDeprecated === false ||
      query.category !== null ||
      filters.tier !== undefined ||
      filters.access !== undefined ||
      filters.installed !== undefined ||
      filters.hasTools !== undefined ||
      filters.hasSkills !== undefined ||
      filters.hasWorkflows !== undefined;
    if (!filtered) {
      // No filter (what typing mostly is): every match is kept, and the facets are plain counts.
      kept = matches;
      for (let i = 0; i < matches.count; i++) {
        const d = matches.docs[i] as number;
        const f = flags[d] as number;
        if ((f & PRO) !== 0) pro++;
        if ((f & ENTITLED) !== 0) entitled++;
        if (installed[d] === 1) yes++;
        const t = tools[d] as number;
        if (t < 0) pending++;
        else {
          if (t > 0) withTools++;
          if ((skills[d] as number) > 0) withSkills++;
          if ((workflows[d] as number) > 0) withWorkflows++;
        }
        if (byOrder !== null) stamp[d] = mark;
      }
      free = matches.count - pro;
      open = matches.count - entitled;
      no = matches.count - yes;
    } else {
      const F_OTHER = 1;
      const F_TIER = 2;
      const F_ACCESS = 4;
      const F_INSTALLED = 8;
      const F_TOOLS = 16;
      const F_SKILLS = 32;
      const F_WORKFLOWS = 64;
      kept = { count: 0, docs: new Int32Array(matches.count), scores: new Int32Array(matches.count), ordered: matches.ordered };
      for (let i = 0; i < matches.count; i++) {
        const d = matches.docs[i] as number;
        const f = flags[d] as number;
        const isPro = (f & PRO) !== 0;
        const isEntitled = (f & ENTITLED) !== 0;
        const isInstalled = installed[d] === 1;
        const t = tools[d] as number;
        const k = skills[d] as number;
        const w = workflows[d] as number;
        // One bit per filter the row fails, so each facet's count (all filters but its own) is one pass.
        let failed = 0;
        if (filters.includeDeprecated === false && (f & CATALOGUE_FLAGS.deprecated) !== 0) failed |= F_OTHER;
        if (query.category !== null && !(this.keywords[d] as string[]).includes(query.category)) failed |= F_OTHER;
        if (filters.tier !== undefined && isPro !== (filters.tier === 'pro')) failed |= F_TIER;
        if (filters.access !== undefined && isEntitled !== (filters.access === 'entitled')) failed |= F_ACCESS;
        if (filters.installed !== undefined && isInstalled !== filters.installed) failed |= F_INSTALLED;
        if (filters.hasTools !== undefined && (t < 0 || t > 0 !== filters.hasTools)) failed |= F_TOOLS;
        if (filters.hasSkills !== undefined && (k < 0 || k > 0 !== filters.hasSkills)) failed |= F_SKILLS;
        if (filters.hasWorkflows !== undefined && (w < 0 || w > 0 !== filters.hasWorkflows)) failed |= F_WORKFLOWS;
        if (failed === 0) {
          kept.docs[kept.count] = d;
          kept.scores[kept.count] = matches.scores[i] as number;
          kept.count++;
          stamp[d] = mark;
        }
        if ((failed & ~F_TIER) === 0) {
          if (isPro) pro++;
          else free++;
        }
        if ((failed & ~F_ACCESS) === 0) {
          if (isEntitled) entitled++;
          else open++;
        }
        if ((failed & ~F_INSTALLED) === 0) {
          if (isInstalled) yes++;
          else no++;
        }
        if (t < 0) pending++;
        else {
          if (t > 0 && (failed & ~F_TOOLS) === 0) withTools++;
          if (k > 0 && (failed & ~F_SKILLS) === 0) withSkills++;
          if (w > 0 && (failed & ~F_WORKFLOWS) === 0) withWorkflows++;
        }
      }
    }
    const facets: CatalogueFacets = {
      tier: { free, pro },
      access: { public: open, entitled },
      installed: { yes, no },
      hasTools: withTools,
      hasSkills: withSkills,
      hasWorkflows: withWorkflows,
    };
    let order: Int32Array;
    let rest: (() => Int32Array) | null = null;
    if (byOrder !== null && kept.count === byOrder.length) {
      // Every row passes: the order is the list's own.
      order = byOrder.slice(0, FIRST_ROWS);
      if (order.length < kept.count) rest = () => byOrder.slice();
    } else if (byOrder !== null) {
      order = this.inOrder(byOrder, mark, Math.min(FIRST_ROWS, kept.count));
      if (order.length < kept.count)
        rest = () => {
          // Marked again: a later query may have marked rows since.
          const again = ++this.queries;
          for (let i = 0; i < kept.count; i++) stamp[kept.docs[i] as number] = again;
          return this.inOrder(byOrder, again, kept.count);
        };
    } else if (kept.count <= FIRST_ROWS) order = this.index.byRelevance(kept);
    else {
      // The first rows are the SDK's own top FIRST_ROWS in relevance order, without sorting the rest.
      order = this.index.topByRelevance(kept, FIRST_ROWS);
      rest = () => this.index.byRelevance(kept);
    }
    return {
      result: {
        type: 'result',
        seq: query.seq,
        revision: this.revision,
        text: query.text,
        order,
        total: kept.count,
        facets,
        contentsPending: pending,
        searchMs: performance.now() - started,
      },
      rest,
    };
  }

  /** The first `count` rows of `order` that the query numbered `stamp` kept (`count` of them at most). */
  private inOrder(order: Int32Array, stamp: number, count: number): Int32Array {
    const out = new Int32Array(count);
    let at = 0;
    for (let i = 0; i < order.length && at < count; i++) {
      const d = order[i] as number;
      if (this.stamp[d] === stamp) out[at++] = d;
    }
    return out;
  }

  /** The newest capabilities by their last publication (only those whose date is known). */
  recentlyUpdated(limit: number): Int32Array {
    const out: number[] = [];
    for (let i = 0; i < this.byUpdated.length && out.length < limit; i++) {
      const d = this.byUpdated[i] as number;
      if (this.updatedAt[d] === null) break;
      if (((this.rows[d] as CatalogueIndexRow)[6] & CATALOGUE_FLAGS.deprecated) === 0) out.push(d);
    }
    return Int32Array.from(out);
  }
}
