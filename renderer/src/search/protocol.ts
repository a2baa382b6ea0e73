/**
 * Messages between the Discover screen and its search worker (worker.ts): the index once per
 * revision, what this computer knows when it changes, and a query per keystroke; the worker answers
 * each query with its first rows in order (a transferred Int32Array of row numbers), the count and
 * the facet counts; the order of every row follows when the list asks for it ('rest').
 */
import type {
  CatalogueFacets,
  CatalogueFilters,
  CatalogueIndexPage,
  CatalogueIndexRow,
  CatalogueKnownData,
} from '../../../electron/common/index.js';
import type { RankIndexData } from '../../../sdk/src/registry/search-rank.js';

/** RankIndexData as a message carries it: each key table's strings as an array (SortedStrings has a method). */
export type RankIndexWire = Omit<RankIndexData, 'ids' | 'names' | 'shortNames' | 'publishers'> &
  Record<'ids' | 'names' | 'shortNames' | 'publishers', { keys: string[]; docs: Int32Array }>;

/** How the list is ordered: best match (deprecated last), name, or last published first. */
export type SearchSort = 'relevance' | 'name' | 'updated';

export interface SearchQuery {
  type: 'query';
  /** Answers carry it back; the page shows only the answer to its latest query. */
  seq: number;
  text: string;
  filters: CatalogueFilters;
  sort: SearchSort;
  /** A keyword every row shown must have (a category), lowercase. */
  category: string | null;
}

export interface SearchKnown {
  installed: string[];
  learned: CatalogueKnownData['learned'];
}

export type ToWorker =
  /** The index to search; `data`, when it was built elsewhere ('build'). */
  | { type: 'load'; revision: string; rows: CatalogueIndexRow[]; publishers: CatalogueIndexPage['publishers']; data?: RankIndexWire }
  /** Only build the index's data and send it back ('built'): the page searches, the worker builds. */
  | { type: 'build'; revision: string; rows: CatalogueIndexRow[]; publishers: CatalogueIndexPage['publishers'] }
  | ({ type: 'known' } & SearchKnown)
  | SearchQuery
  /** The order of every row of the answer to query `seq` (the list needs rows past the first ones). */
  | { type: 'rest'; seq: number }
  | { type: 'recent'; seq: number; limit: number };

export interface SearchResult {
  type: 'result';
  seq: number;
  revision: string;
  text: string;
  /** Row numbers (into the index's rows) in the order shown: the first `total`, or fewer ('rest' brings them all). */
  order: Int32Array;
  /** How many rows pass the query and its filters. */
  total: number;
  facets: CatalogueFacets;
  /** Rows whose contents are not known (their package documents are not read yet). */
  contentsPending: number;
  /** Milliseconds the search took in the worker (the bench reports it beside the time to the screen). */
  searchMs: number;
}

export type FromWorker =
  | { type: 'ready'; revision: string; categories: string[]; buildMs: number }
  | { type: 'built'; revision: string; data: RankIndexWire; buildMs: number }
  | SearchResult
  /** Every row of the answer to query `seq` in order, when its first answer held only the first rows and the list asked. */
  | { type: 'rest'; seq: number; revision: string; order: Int32Array }
  | { type: 'recent'; seq: number; revision: string; order: Int32Array }
  | { type: 'failed'; message: string };
