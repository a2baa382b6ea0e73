/**
 * The Discover screen's state. The host sends the catalogue's search index once per revision
 * (`catalogue.index`, in pages: the first cards show as soon as the first page is in), and the
 * search runs where the list is drawn: a worker (search/) answers each keystroke with the SDK's
 * ranking, so typing never waits for a round trip (docs/ui.md "Fast"). What this computer knows beyond
 * the catalogue (installed versions, contents and dates read from package documents) comes from
 * `catalogue.known` and is asked for again when the host says it changed.
 */
import { create } from 'zustand';
import {
  CATALOGUE_FLAGS,
  type CatalogueFacets,
  type CatalogueFilters,
  type CatalogueIndexPage,
  type CatalogueIndexRow,
  type HostError,
} from '../../../electron/common/index.js';
import { host } from '../host.js';
import { startSearcher, type Searcher } from '../search/client.js';
import { FIRST_PAGE } from '../start.js';
import type { FromWorker, SearchSort } from '../search/protocol.js';

/** The first page (FIRST_PAGE, asked as the page starts: start.ts) is small; the rest come in larger pages. */
const NEXT_PAGES = 20_000;
/** Cards in the first screen's "Recently updated". */
const RECENT = 4;

/** What a card shows of one capability. */
export interface DiscoverCard {
  id: string;
  name: string;
  summary: string;
  version: string | null;
  publisherName: string;
  verified: boolean;
  tier: 'free' | 'pro';
  access: 'public' | 'entitled';
  deprecated: boolean;
  installed: boolean;
  updateAvailable: boolean;
}

interface CatalogueState {
  text: string;
  filters: CatalogueFilters;
  sort: SearchSort;
  /** A keyword every capability shown has (a category from the catalogue's keywords), or null. */
  category: string | null;
  /** The index: 'idle' before the screen first opens, 'loading' while pages come, then 'ready'. */
  phase: 'idle' | 'loading' | 'ready' | 'error';
  error: HostError | null;
  revision: string | null;
  /** Rows received so far (the array grows in place while pages come; rowCount says how far). */
  rows: CatalogueIndexRow[];
  rowCount: number;
  totalRows: number;
  publishers: CatalogueIndexPage['publishers'];
  /** True once the worker has built its index and answers queries. */
  searchReady: boolean;
  /** Milliseconds the last search shown took where it ran. */
  searchMs: number;
  /** Where the search runs: in its worker, or on the page's thread where a worker could not start. */
  searchIn: 'worker' | 'page' | null;
  /**
   * Row numbers in the order shown, or null to show the rows as they came (while the index loads).
   * The first rows of an answer come first: `shownTotal` rows pass, and the order of those beyond
   * `order.length` follows when the list asks for it (`more`, search/protocol.ts 'rest').
   */
  order: Int32Array | null;
  shownTotal: number;
  /** The query text whose answer the list shows (the bench and tests wait for it). */
  shownText: string;
  facets: CatalogueFacets | null;
  contentsPending: number;
  categories: string[];
  installed: Map<string, { version: string; updateAvailable: boolean }>;
  /** Capabilities whose last publication date is known (their package document was read). */
  dated: number;
  unread: number;
  /** Rows of "Recently updated", newest first. */
  recent: Int32Array;
  setText(text: string): void;
  setFilters(filters: CatalogueFilters): void;
  setSort(sort: SearchSort): void;
  setCategory(category: string | null): void;
  /** Asks for the order of the shown answer's rows beyond its first ones (the list scrolled towards them). */
  more(): void;
  /** Opens the screen: loads the index the first time, else asks what changed. */
  open(): void;
  /** After installs, refreshes and reconnections: what is known again, and the index if its revision moved. */
  refresh(): void;
}

export const useCatalogue = create<CatalogueState>((set, get) => {
  let seq = 0;
  /** The query whose answer the list shows (its 'rest' completes the order). */
  let shownSeq = 0;
  let recentSeq = 0;
  /** The query whose other rows were asked for (once per answer). */
  let restAsked = 0;
  let searcher: Searcher | null = null;
  let loading: Promise<void> | null = null;

  const receive = (message: FromWorker): void => {
    const state = get();
    if (message.type === 'result') answered = Math.max(answered, message.seq);
    if (message.type === 'failed') {
      set({
        phase: 'error',
        error: { code: 'E_IO', message: `Search stopped working: ${message.message}. Reload the page to start it again.` },
      });
      return;
    }
    if (message.revision !== state.revision) return;
    if (message.type === 'ready') {
      asked = answered;
      set({ searchReady: true, categories: message.categories, searchIn: searcher?.where() ?? null });
      query();
      recent();
    } else if (message.type === 'result') {
      if (message.seq === seq) {
        shownSeq = message.seq;
        restAsked = 0;
        set({
          order: message.order,
          shownTotal: message.total,
          facets: message.facets,
          contentsPending: message.contentsPending,
          shownText: message.text,
          searchMs: message.searchMs,
        });
      } else send();
    } else if (message.type === 'rest') {
      if (message.seq === shownSeq && message.seq === seq) set({ order: message.order });
    } else if (message.type === 'recent' && message.seq === recentSeq) set({ recent: message.order });
  };

  // One query in the worker at a time: keys typed while it answers are coalesced into one query
  // for the latest text, sent when the answer comes, so fast typing never queues stale searches.
  let asked = 0;
  let answered = 0;
  const query = (): void => {
    seq++;
    send();
  };
  const send = (): void => {
    const { text, filters, sort, category, searchReady } = get();
    if (!searchReady || searcher === null || asked > answered || asked === seq) return;
    asked = seq;
    searcher.send({ type: 'query', seq, text, filters, sort, category });
  };

  const recent = (): void => {
    if (!get().searchReady || searcher === null) return;
    searcher.send({ type: 'recent', seq: ++recentSeq, limit: RECENT });
  };

  const loadKnown = async (read = false): Promise<void> => {
    const result = await host().catalogue.known(read ? { read: true } : {});
    if (!result.ok) return;
    const known = result.value;
    if (known.revision !== get().revision) {
      if (get().phase === 'ready') void loadIndex();
      return;
    }
    set({
      installed: new Map(known.installed.map((i) => [i.id, { version: i.version, updateAvailable: i.updateAvailable }])),
      dated: known.learned.filter((l) => l.updatedAt !== null).length,
      unread: known.unread,
    });
    searcher?.send({ type: 'known', installed: known.installed.map((i) => i.id), learned: known.learned });
    query();
    recent();
  };

  const loadIndex = (): Promise<void> => {
    if (loading !== null) return loading;
    loading = (async () => {
      set({ phase: 'loading', error: null });
      let first = await host().catalogue.index({ limit: FIRST_PAGE });
      for (;;) {
        if (!first.ok) {
          set({ phase: 'error', error: first.error });
          return;
        }
        const page = first.value;
        const rows = [...page.rows];
        set({
          revision: page.revision,
          rows,
          rowCount: rows.length,
          totalRows: page.total,
          publishers: page.publishers,
          searchReady: false,
          order: null,
          shownText: '',
          facets: null,
        });
        let restarted = false;
        while (rows.length < page.total) {
          const next = await host().catalogue.index({ revision: page.revision, offset: rows.length, limit: NEXT_PAGES });
          if (!next.ok || next.value.revision !== page.revision) {
            first = next;
            restarted = true;
            break;
          }
          rows.push(...next.value.rows);
          set({ rowCount: rows.length });
        }
        if (restarted) continue;
        searcher ??= startSearcher(receive, rows.length);
        searcher.send({ type: 'load', revision: page.revision, rows, publishers: page.publishers });
        set({ phase: 'ready' });
        await loadKnown(get().sort === 'updated');
        return;
      }
    })().finally(() => {
      loading = null;
    });
    return loading;
  };

  return {
    text: '',
    filters: {},
    sort: 'relevance',
    category: null,
    phase: 'idle',
    error: null,
    revision: null,
    rows: [],
    rowCount: 0,
    totalRows: 0,
    publishers: [],
    searchReady: false,
    searchIn: null,
    searchMs: 0,
    order: null,
    shownTotal: 0,
    shownText: '',
    facets: null,
    contentsPending: 0,
    categories: [],
    installed: new Map(),
    dated: 0,
    unread: 0,
    recent: new Int32Array(0),
    setText(text) {
      set({ text });
      query();
    },
    setFilters(filters) {
      set({ filters });
      query();
      // Contents filters need the package documents: the host reads them in the background.
      if (filters.hasTools !== undefined || filters.hasSkills !== undefined || filters.hasWorkflows !== undefined) void loadKnown(true);
    },
    setSort(sort) {
      set({ sort });
      query();
      if (sort === 'updated') void loadKnown(true);
    },
    setCategory(category) {
      set({ category });
      query();
    },
    more() {
      const { order, shownTotal } = get();
      if (searcher === null || order === null || order.length >= shownTotal || shownSeq !== seq || restAsked === shownSeq) return;
      restAsked = shownSeq;
      searcher.send({ type: 'rest', seq: shownSeq });
    },
    open() {
      if (get().phase === 'idle' || get().phase === 'error') void loadIndex();
    },
    refresh() {
      if (get().phase === 'ready') void loadKnown();
      else if (get().phase === 'error') void loadIndex();
    },
  };
});

/** The card of row `row`, from the index and what is known. */
export function cardOf(state: Pick<CatalogueState, 'rows' | 'publishers' | 'installed'>, row: number): DiscoverCard | null {
  const r = state.rows[row];
  if (r === undefined) return null;
  const [id, name, summary, , latest, latestPrerelease, flags, publisher] = r;
  const p = state.publishers[publisher];
  const installed = state.installed.get(id);
  return {
    id,
    name,
    summary,
    version: latest ?? latestPrerelease,
    publisherName: p?.name ?? id.slice(0, id.indexOf('/')),
    verified: p?.verified ?? false,
    tier: (flags & CATALOGUE_FLAGS.pro) !== 0 ? 'pro' : 'free',
    access: (flags & CATALOGUE_FLAGS.entitled) !== 0 ? 'entitled' : 'public',
    deprecated: (flags & CATALOGUE_FLAGS.deprecated) !== 0,
    installed: installed !== undefined,
    updateAvailable: installed?.updateAvailable ?? false,
  };
}
