/**
 * The Discover screen's state: the query text, the filters, and the result pages the virtualised
 * list has asked for. The host searches (one ranking for the CLI and the UI); the renderer asks for
 * the first page on each keystroke and for further pages as the user scrolls, and drops answers to
 * queries the user has already typed past.
 */
import { create } from 'zustand';
import type { CatalogueCard, CatalogueFacets, CatalogueFilters, HostError } from '../../../electron/common/index.js';
import { host } from '../host.js';

const PAGE_SIZE = 60;

interface CatalogueState {
  text: string;
  filters: CatalogueFilters;
  /** Bumped by every new query; answers for an older generation are dropped. */
  generation: number;
  total: number;
  /** Loaded result pages by page index. */
  pages: Record<number, CatalogueCard[]>;
  facets: CatalogueFacets | null;
  contentsPending: number;
  loading: boolean;
  /** The query text whose answer the list shows (the bench and tests wait for it). */
  shownText: string;
  /** True once a first answer arrived (the list keeps its layout while loading). */
  loaded: boolean;
  error: HostError | null;
  setText(text: string): void;
  setFilters(filters: CatalogueFilters): void;
  /** Loads the pages covering result rows [start, end]. */
  ensureRange(start: number, end: number): void;
  /** Queries again with the same text and filters (after installs, refreshes). */
  refresh(): void;
}

const inFlight = new Set<string>();

export const useCatalogue = create<CatalogueState>((set, get) => {
  const fetchPage = async (page: number, generation: number): Promise<void> => {
    const key = `${generation}:${page}`;
    if (inFlight.has(key)) return;
    inFlight.add(key);
    const { text, filters } = get();
    const result = await host().catalogue.query({ text, filters, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
    inFlight.delete(key);
    if (get().generation !== generation) return;
    if (!result.ok) {
      set({ loading: false, loaded: true, error: result.error });
      return;
    }
    const value = result.value;
    set((s) => ({
      shownText: page === 0 ? text : s.shownText,
      loading: false,
      loaded: true,
      error: null,
      total: value.total,
      facets: value.facets,
      contentsPending: value.contentsPending,
      pages: page === 0 ? { 0: value.hits } : { ...s.pages, [page]: value.hits },
    }));
  };
  // One first-page query at a time: keystrokes typed while the host answers are coalesced into
  // one query for the latest text, so fast typing never queues a backlog of stale searches.
  let busy = false;
  let again = false;
  const firstPage = async (generation: number): Promise<void> => {
    busy = true;
    await fetchPage(0, generation);
    busy = false;
    if (again) {
      again = false;
      void firstPage(get().generation);
    }
  };
  const requery = (): void => {
    const generation = get().generation + 1;
    set({ generation, loading: true });
    if (busy) again = true;
    else void firstPage(generation);
  };
  return {
    text: '',
    filters: {},
    generation: 0,
    total: 0,
    pages: {},
    facets: null,
    contentsPending: 0,
    loading: false,
    shownText: '',
    loaded: false,
    error: null,
    setText(text) {
      set({ text });
      requery();
    },
    setFilters(filters) {
      set({ filters });
      requery();
    },
    ensureRange(start, end) {
      const { pages, generation, total } = get();
      const last = Math.min(end, Math.max(0, total - 1));
      for (let page = Math.floor(start / PAGE_SIZE); page <= Math.floor(last / PAGE_SIZE); page++) {
        if (pages[page] === undefined) void fetchPage(page, generation);
      }
    },
    refresh() {
      requery();
    },
  };
});

/** The card at result row `index`, or null while its page loads. */
export function cardAt(pages: Record<number, CatalogueCard[]>, index: number): CatalogueCard | null {
  return pages[Math.floor(index / PAGE_SIZE)]?.[index % PAGE_SIZE] ?? null;
}
