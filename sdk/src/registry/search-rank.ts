/**
 * The ranking rules of catalogue search, in one place for the CLI, the SDK and the desktop app
 * (DESIGN §7 `search`; docs/ui.md "Fast: search results update within a frame or two of typing").
 *
 * This module imports nothing and touches no Node or browser API: it is plain data in, plain data
 * out, so the SDK's SearchIndex (sdk/src/registry/search.ts) and the app's search worker
 * (renderer/src/search/) run the very same code. eslint.config.js holds it to that: it may import
 * nothing, and it is the one SDK file the renderer's search folder may import.
 *
 * The rules, in order of precedence:
 * 1. Whole-phrase matches decide the band: exact id > exact name > exact short name (the part after
 *    the slash) > name prefix > id or short-name prefix > the publisher's display name or id.
 * 2. Every query word must match some word of the id, name, keywords, summary or the publisher's
 *    display name (unless the phrase already matched a band). A word scores by where and how it
 *    matched: exact > prefix > one typo (Damerau-Levenshtein distance 1, for words of 5 or more
 *    characters; for 4-character words only two swapped neighbours) > inside a longer word.
 *    A typo never outranks an exact or prefix match of the same word.
 * 3. Deprecated capabilities come after every other match, whatever their score; then score
 *    (highest first); then id by code unit, so the same catalogue and query give the same order.
 */

/** What the rules read of one capability. */
export interface RankDocument {
  id: string;
  name: string;
  summary: string;
  keywords: readonly string[];
  /** The publisher id (the part of the id before the slash). */
  publisher: string;
  /** The publisher's display name from the signed catalogue ("Acme Tools"); the id when it has none. */
  publisherName: string;
  deprecated: boolean;
}

/** Scores of the match kinds; word scores add up across the query's words. */
export const RANK_SCORES = {
  exactId: 10_000,
  exactName: 5_000,
  exactShortName: 4_000,
  namePrefix: 3_000,
  idPrefix: 2_500,
  publisher: 1_500,
  exact: { keyword: 60, name: 50, id: 50, publisher: 40, summary: 15 },
  prefix: { keyword: 25, name: 30, id: 30, publisher: 20, summary: 8 },
  typo: { keyword: 7, name: 6, id: 6, publisher: 5, summary: 4 },
  /** The query word inside a longer word of the name or summary. */
  inside: 3,
} as const;

/** Words shorter than this are matched exactly or as a prefix only, never inside a longer word. */
const MIN_INSIDE = 3;
/** Words at least this long tolerate one typo of any kind; 4-character words two swapped letters. */
const MIN_TYPO = 5;

const WORD_CHARACTER = /^[\p{L}\p{N}]$/u;

/** Lowercase words: runs of letters and digits (any script). */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let start = -1;
  let i = 0;
  while (i < lower.length) {
    const c = lower.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (c < 128) word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    else {
      const point = lower.codePointAt(i) as number;
      width = point > 0xffff ? 2 : 1;
      word = WORD_CHARACTER.test(String.fromCodePoint(point));
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(lower.slice(start, i));
      start = -1;
    }
    i += width;
  }
  if (start >= 0) out.push(lower.slice(start));
  return out;
}

/** Whether a word holds anything but digits (typos and inner matches of such words need one). */
function hasLetter(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return true;
  }
  return false;
}

/**
 * True when `a` and `b` differ by at most one insertion, deletion, substitution or swap of two
 * neighbouring characters (the optimal-string-alignment form of Damerau-Levenshtein distance ≤ 1).
 */
export function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la - lb > 1 || lb - la > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === la && i === lb) return true;
  // Compare the tails after the first difference from their ends.
  let ea = la - 1;
  let eb = lb - 1;
  while (ea >= i && eb >= i && a.charCodeAt(ea) === b.charCodeAt(eb)) {
    ea--;
    eb--;
  }
  const restA = ea - i + 1;
  const restB = eb - i + 1;
  if (restA <= 1 && restB <= 1) return true; // one substitution, insertion or deletion
  return la === lb && restA === 2 && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i);
}

/** Whether a query word `token` may match the catalogue word `word` with one typo. */
export function typoMatches(token: string, word: string): boolean {
  if (token.length >= MIN_TYPO) return word.length >= MIN_TYPO - 1 && withinOneEdit(token, word);
  if (token.length === MIN_TYPO - 1 && word.length === token.length) return withinOneEdit(token, word) && swapped(token, word);
  return false;
}

/** Same letters with exactly two neighbours swapped ("josn" / "json"). */
function swapped(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i < a.length - 1 && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i);
}

const KEYWORD = 1;
const NAME = 2;
const ID = 4;
const PUBLISHER = 8;
const SUMMARY = 16;
const FIELDS = [
  [KEYWORD, 'keyword'],
  [NAME, 'name'],
  [ID, 'id'],
  [PUBLISHER, 'publisher'],
  [SUMMARY, 'summary'],
] as const;

type Kind = 'exact' | 'prefix' | 'typo';

/** A word's score for each combination of the fields it occurs in (index: the field bits). */
function scoreTable(scores: Readonly<Record<(typeof FIELDS)[number][1], number>>): Uint8Array {
  const table = new Uint8Array(32);
  for (let mask = 0; mask < 32; mask++)
    for (const [bit, field] of FIELDS) if ((mask & bit) !== 0 && scores[field] > (table[mask] as number)) table[mask] = scores[field];
  return table;
}
const SCORE_TABLES: Record<Kind, Uint8Array> = {
  exact: scoreTable(RANK_SCORES.exact),
  prefix: scoreTable(RANK_SCORES.prefix),
  typo: scoreTable(RANK_SCORES.typo),
};
const INSIDE_TABLE = Uint8Array.from({ length: 32 }, (_, mask) => ((mask & (NAME | SUMMARY)) !== 0 ? RANK_SCORES.inside : 0));

/** The best score of a word found in the fields of `mask` with match kind `kind`. */
function fieldScore(kind: Kind, mask: number): number {
  return SCORE_TABLES[kind][mask] as number;
}

function insideScore(mask: number): number {
  return INSIDE_TABLE[mask] as number;
}

/** Each distinct word of a capability and the fields it occurs in (one bit per field). */
function wordsOf(doc: RankDocument): Map<string, number> {
  const words = new Map<string, number>();
  const add = (text: string, bit: number): void => {
    for (const token of tokenize(text)) words.set(token, (words.get(token) ?? 0) | bit);
  };
  for (const keyword of doc.keywords) add(keyword, KEYWORD);
  add(doc.name, NAME);
  add(doc.id, ID);
  add(doc.publisherName, PUBLISHER);
  add(doc.summary, SUMMARY);
  return words;
}

function shortNameOf(idLower: string): string {
  return idLower.slice(idLower.indexOf('/') + 1);
}

function phraseBand(doc: RankDocument, phrase: string): number {
  const S = RANK_SCORES;
  const id = doc.id.toLowerCase();
  const name = doc.name.toLowerCase();
  const shortName = shortNameOf(id);
  if (id === phrase) return S.exactId;
  if (name === phrase) return S.exactName;
  if (shortName === phrase) return S.exactShortName;
  if (name.startsWith(phrase)) return S.namePrefix;
  if (id.startsWith(phrase) || shortName.startsWith(phrase)) return S.idPrefix;
  if (doc.publisherName.toLowerCase() === phrase || doc.publisher.toLowerCase() === phrase) return S.publisher;
  return 0;
}

/** The score of one query word against one catalogue word found in the fields of `mask`. */
function wordScore(token: string, word: string, mask: number): number {
  if (word === token) return fieldScore('exact', mask);
  if (word.startsWith(token)) return fieldScore('prefix', mask);
  if (hasLetter(token) && hasLetter(word) && typoMatches(token, word)) return fieldScore('typo', mask);
  if (token.length >= MIN_INSIDE && word.includes(token)) return insideScore(mask);
  return 0;
}

/**
 * The score of one capability for a query (0: no match; an empty query matches everything with 0).
 * The plain statement of the rules above, one capability at a time: RankIndex gives the same
 * answers faster, and the tests hold the two to each other.
 */
export function scoreDocument(doc: RankDocument, query: string): number | null {
  const phrase = query.trim().toLowerCase();
  if (phrase === '') return 0;
  const tokens = tokenize(phrase);
  const band = phraseBand(doc, phrase);
  const words = wordsOf(doc);
  let total = band;
  for (const token of tokens) {
    let best = 0;
    for (const [word, mask] of words) {
      const score = wordScore(token, word, mask);
      if (score > best) best = score;
    }
    if (best === 0 && band === 0) return null;
    total += best;
  }
  return total;
}

/** The relevance order of two matches: deprecated last, then score (highest first), then id. */
export function compareRanked(
  a: { deprecated: boolean; score: number; id: string },
  b: { deprecated: boolean; score: number; id: string },
): number {
  return Number(a.deprecated) - Number(b.deprecated) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The capabilities a query matched: indices into the documents and their scores. */
export interface RankMatches {
  count: number;
  docs: Int32Array;
  scores: Int32Array;
  /** True when `docs` is already in relevance order (the empty query's, precomputed). */
  ordered: boolean;
}

/** Sorted strings read one at a time: an array in memory, or slices of a stored index's text. */
export interface SortedStrings {
  readonly length: number;
  get(i: number): string;
  /** The first index whose string is not below `value`, when the source can find it faster than by get(). */
  lowerBound?(value: string): number;
}

/** An array as SortedStrings. */
export function sortedStrings(values: readonly string[]): SortedStrings {
  return { length: values.length, get: (i) => values[i] as string };
}

/** The first index of `keys` not below `prefix`. */
function lowerBound(keys: SortedStrings, prefix: string): number {
  if (keys.lowerBound !== undefined) return keys.lowerBound(prefix);
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys.get(mid) < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first string after every string that starts with `prefix` (code-unit order), or null. */
function successor(prefix: string): string | null {
  for (let end = prefix.length - 1; end >= 0; end--) {
    const c = prefix.charCodeAt(end);
    if (c < 0xffff) return prefix.slice(0, end) + String.fromCharCode(c + 1);
  }
  return null;
}

/** The range [from, to) of sorted `keys` that start with `prefix`. */
function prefixRange(keys: SortedStrings, prefix: string): [number, number] {
  const next = successor(prefix);
  return [lowerBound(keys, prefix), next === null ? keys.length : lowerBound(keys, next)];
}

/**
 * Keys (lowercase ids, names, short names, publisher names and ids) and the documents that have
 * them, sorted by key (then in document order), so that the documents of one key, or of every key
 * with a prefix, are one contiguous range found by two binary searches.
 */
export interface RankKeys {
  keys: SortedStrings;
  docs: Int32Array;
}

/**
 * The distinct words of a catalogue in code-unit order, each followed by "\n" in one text (a word
 * is letters and digits only, so "\n" never occurs inside one): word w is
 * text.slice(starts[w], starts[w + 1] - 1). One native indexOf over the text finds every word
 * holding a query word.
 */
export interface RankWords {
  count: number;
  text: string;
  starts: Int32Array;
}

/**
 * Everything a RankIndex searches, as plain strings and typed arrays, so that it can be built
 * from documents in memory (rankIndexData) or read back from a stored index
 * (sdk/src/registry/search-index/segment.ts) without building anything again.
 */
export interface RankIndexData {
  size: number;
  words: RankWords;
  /** Postings of word w: documents postingDocs[postingStart[w] .. postingStart[w + 1]) (ascending) with their field masks. */
  postingStart: Int32Array;
  postingDocs: Int32Array;
  postingMasks: Uint8Array;
  ids: RankKeys;
  names: RankKeys;
  shortNames: RankKeys;
  publishers: RankKeys;
  /** 1 for a deprecated document. */
  deprecated: Uint8Array;
  /** Documents in id order (code units). */
  byId: Int32Array;
  /** Documents in name order (case-insensitive, then id), for "sort by name". */
  byName: Int32Array;
}

/** Pairs of key and document sorted by key (then document), as RankKeys. */
function sealKeys(keys: string[], docs: number[]): RankKeys {
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = (keys[i - 1] as string) <= (keys[i] as string);
  const order = Int32Array.from(keys, (_, i) => i);
  if (!inOrder)
    order.sort((a, b) => {
      const x = keys[a] as string;
      const y = keys[b] as string;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  const sorted = Array.from(order, (i) => keys[i] as string);
  return { keys: sortedStrings(sorted), docs: Int32Array.from(order, (i) => docs[i] as number) };
}

/** The data of a RankIndex over `docs` (document d is docs[d]). */
export function rankIndexData(docs: readonly RankDocument[]): RankIndexData {
  const n = docs.length;
  const wordNumbers = new Map<string, number>();
  const wordText: string[] = [];
  // Postings in document order: (word, document, fields) triples, merged per word and document.
  let capacity = Math.max(1024, n * 16);
  let postWord = new Int32Array(capacity);
  let postDoc = new Int32Array(capacity);
  let postMask = new Uint8Array(capacity);
  let postings = 0;
  const lastDoc: number[] = [];
  const lastAt: number[] = [];
  let doc = 0;
  const addText = (text: string, bit: number): void => {
    for (const token of tokenize(text)) {
      let w = wordNumbers.get(token);
      if (w === undefined) {
        w = wordText.length;
        wordNumbers.set(token, w);
        wordText.push(token);
        lastDoc.push(-1);
        lastAt.push(0);
      }
      if (lastDoc[w] === doc) {
        const at = lastAt[w] as number;
        postMask[at] = (postMask[at] as number) | bit;
        continue;
      }
      if (postings === capacity) {
        capacity *= 2;
        const grow = <T extends Int32Array | Uint8Array>(from: T, to: T): T => (to.set(from), to);
        postWord = grow(postWord, new Int32Array(capacity));
        postDoc = grow(postDoc, new Int32Array(capacity));
        postMask = grow(postMask, new Uint8Array(capacity));
      }
      lastDoc[w] = doc;
      lastAt[w] = postings;
      postWord[postings] = w;
      postDoc[postings] = doc;
      postMask[postings] = bit;
      postings++;
    }
  };
  const table = (): { keys: string[]; docs: number[] } => ({ keys: [], docs: [] });
  const ids = table();
  const names = table();
  const shortNames = table();
  const publishers = table();
  const original = table();
  const deprecated = new Uint8Array(n);
  for (doc = 0; doc < n; doc++) {
    const d = docs[doc] as RankDocument;
    const id = d.id.toLowerCase();
    const add = (to: { keys: string[]; docs: number[] }, key: string): void => {
      to.keys.push(key);
      to.docs.push(doc);
    };
    add(original, d.id);
    add(ids, id);
    add(names, d.name.toLowerCase());
    add(shortNames, shortNameOf(id));
    const publisherName = d.publisherName.toLowerCase();
    const publisher = d.publisher.toLowerCase();
    add(publishers, publisherName);
    if (publisher !== publisherName) add(publishers, publisher);
    deprecated[doc] = d.deprecated ? 1 : 0;
    for (const keyword of d.keywords) addText(keyword, KEYWORD);
    addText(d.name, NAME);
    addText(d.id, ID);
    addText(d.publisherName, PUBLISHER);
    addText(d.summary, SUMMARY);
  }

  // Words in code-unit order, numbered by their place; postings grouped by word (a counting sort
  // keeps document order inside each word).
  const sortedWords = [...wordText].sort();
  const place = new Int32Array(wordText.length);
  sortedWords.forEach((word, i) => (place[wordNumbers.get(word) as number] = i));
  const count = sortedWords.length;
  const postingStart = new Int32Array(count + 1);
  for (let p = 0; p < postings; p++) {
    const next = (place[postWord[p] as number] as number) + 1;
    postingStart[next] = (postingStart[next] as number) + 1;
  }
  for (let w = 0; w < count; w++) postingStart[w + 1] = (postingStart[w + 1] as number) + (postingStart[w] as number);
  const fill = postingStart.slice(0, count);
  const postingDocs = new Int32Array(postings);
  const postingMasks = new Uint8Array(postings);
  for (let p = 0; p < postings; p++) {
    const w = place[postWord[p] as number] as number;
    const at = fill[w] as number;
    fill[w] = at + 1;
    postingDocs[at] = postDoc[p] as number;
    postingMasks[at] = postMask[p] as number;
  }
  const starts = new Int32Array(count + 1);
  let offset = 0;
  sortedWords.forEach((word, i) => {
    starts[i] = offset;
    offset += word.length + 1;
  });
  starts[count] = offset;

  const byOriginalId = sealKeys(original.keys, original.docs);
  const byId = byOriginalId.docs;
  const idRank = new Int32Array(n);
  byId.forEach((d, rank) => (idRank[d] = rank));
  const nameKeys = sealKeys(names.keys, names.docs);
  // Name order: the names table, with equal names put in id order.
  const byName = nameKeys.docs.slice();
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && nameKeys.keys.get(j) === nameKeys.keys.get(i)) j++;
    if (j - i > 1) byName.subarray(i, j).sort((a, b) => (idRank[a] as number) - (idRank[b] as number));
    i = j;
  }
  return {
    size: n,
    words: { count, text: sortedWords.map((word) => `${word}\n`).join(''), starts },
    postingStart,
    postingDocs,
    postingMasks,
    ids: sealKeys(ids.keys, ids.docs),
    names: nameKeys,
    shortNames: sealKeys(shortNames.keys, shortNames.docs),
    publishers: sealKeys(publishers.keys, publishers.docs),
    deprecated,
    byId,
    byName,
  };
}

/** The range of `table.docs` holding the documents whose key is `key`. */
function exactKeys(table: RankKeys, key: string): [number, number] {
  return [lowerBound(table.keys, key), lowerBound(table.keys, `${key}\u0000`)];
}

/** Keys of up to 2^21 ranks (two million capabilities) pack into a float64 sort key. */
const RANK_SPAN = 2 ** 21;
const SCORE_SPAN = 2 ** 24;

/** Index of the first value of ascending `values` above `x`. */
function upperBound(values: Int32Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Moves the k smallest values of `keys` to its front, in any order (quickselect). */
function selectSmallest(keys: Float64Array, k: number): void {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo < hi) {
    const pivot = keys[(lo + hi) >>> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((keys[i] as number) < pivot) i++;
      while ((keys[j] as number) > pivot) j--;
      if (i <= j) {
        const t = keys[i] as number;
        keys[i] = keys[j] as number;
        keys[j] = t;
        i++;
        j--;
      }
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else return;
  }
}

/** The words a query word matches in a dictionary beyond its prefix range: by one typo, and inside a longer word. */
export interface WordLookups {
  typo: readonly string[];
  inside: readonly string[];
}

/**
 * A sorted word list (RankWords) and the lookups of a query word in it that are not a prefix
 * range: the typo candidates among words of nearby length, and the words holding it. A RankIndex
 * has one over its own words; a stored index of many segments has one over the words of all of
 * them, so that these scans run once per query instead of once per segment.
 */
export class RankDictionary {
  /** Numbers of the words holding a letter, by length (typo candidates), made at the first typo lookup. */
  private letterWordsByLength: Map<number, number[]> | null = null;

  constructor(readonly words: RankWords) {}

  /** The word at word number w (words are numbered in code-unit order). */
  word(w: number): string {
    const { text, starts } = this.words;
    return text.slice(starts[w] as number, (starts[w + 1] as number) - 1);
  }

  /** The first word number whose word is not below `value` (compared in place, no strings made). */
  private lowerBound(value: string): number {
    const { text, starts } = this.words;
    let lo = 0;
    let hi = this.words.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const from = starts[mid] as number;
      const length = (starts[mid + 1] as number) - 1 - from;
      // Code-unit order of the word at `from` against `value`.
      let order = 0;
      const common = Math.min(length, value.length);
      for (let i = 0; i < common && order === 0; i++) order = text.charCodeAt(from + i) - value.charCodeAt(i);
      if (order === 0) order = length - value.length;
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The number of `word`, or -1. */
  find(word: string): number {
    const at = this.lowerBound(word);
    if (at >= this.words.count) return -1;
    const from = this.words.starts[at] as number;
    return (this.words.starts[at + 1] as number) - 1 - from === word.length && this.words.text.startsWith(word, from) ? at : -1;
  }

  /** The range [from, to) of word numbers that start with `token` (exact match included). */
  prefixRange(token: string): [number, number] {
    const next = successor(token);
    return [this.lowerBound(token), next === null ? this.words.count : this.lowerBound(next)];
  }

  private typoCandidates(length: number): readonly number[] {
    if (this.letterWordsByLength === null) {
      const byLength = new Map<number, number[]>();
      const { count, text, starts } = this.words;
      for (let w = 0; w < count; w++) {
        const from = starts[w] as number;
        const to = (starts[w + 1] as number) - 1;
        let letter = false;
        for (let i = from; i < to && !letter; i++) {
          const c = text.charCodeAt(i);
          letter = c < 48 || c > 57;
        }
        if (!letter) continue;
        const list = byLength.get(to - from);
        if (list === undefined) byLength.set(to - from, [w]);
        else list.push(w);
      }
      this.letterWordsByLength = byLength;
    }
    return this.letterWordsByLength.get(length) ?? [];
  }

  /**
   * The numbers of the words `token` matches by one typo, then of those holding it (inside a longer
   * word), each word once and none that starts with `token` (the prefix range has those).
   */
  lookups(token: string): { typo: number[]; inside: number[] } {
    const typo: number[] = [];
    const inside: number[] = [];
    const [from, to] = this.prefixRange(token);
    const seen = new Set<number>();
    const taken = (w: number): boolean => (w >= from && w < to) || seen.has(w);
    if (token.length >= MIN_TYPO - 1 && hasLetter(token)) {
      const lengths = token.length >= MIN_TYPO ? [token.length - 1, token.length, token.length + 1] : [token.length];
      for (const length of lengths)
        for (const w of this.typoCandidates(length)) {
          if (taken(w) || !typoMatches(token, this.word(w))) continue;
          seen.add(w);
          typo.push(w);
        }
    }
    if (token.length >= MIN_INSIDE) {
      // Every word holding the query word, by one scan of the words' text. A word holding a query
      // word with a letter holds a letter itself, as the rule wants.
      const { text, starts } = this.words;
      let at = text.indexOf(token);
      while (at >= 0) {
        const w = upperBound(starts, at) - 1;
        if (!taken(w)) {
          seen.add(w);
          inside.push(w);
        }
        at = text.indexOf(token, starts[w + 1] as number);
      }
    }
    return { typo, inside };
  }

  /** lookups() as words, for another index that has its own numbers. */
  lookupWords(token: string): WordLookups {
    const { typo, inside } = this.lookups(token);
    return { typo: typo.map((w) => this.word(w)), inside: inside.map((w) => this.word(w)) };
  }
}

/**
 * Scratch space of a query, one set per thread for every RankIndex (a search is synchronous, so no
 * two use it at once; a stored index of 16 segments held 16 sets of 8 arrays of its size before,
 * 16 MB at 500,000 capabilities). A document belongs to the current query when its stamp is the
 * query's number, and to the current query word when its word stamp is the word's; the other
 * arrays of a document outside them hold leftovers of earlier queries and are never read. Numbers
 * are unique across indexes, so one index's leftovers never pass for another's.
 */
interface QueryScratch {
  stamp: Int32Array;
  band: Int32Array;
  total: Int32Array;
  matched: Int32Array;
  touched: Int32Array;
  wordStamp: Int32Array;
  wordBest: Int32Array;
  wordHits: Int32Array;
  query: number;
  word: number;
}

function newScratch(size: number, query: number, word: number): QueryScratch {
  const array = (): Int32Array => new Int32Array(size);
  return {
    stamp: array(),
    band: array(),
    total: array(),
    matched: array(),
    touched: array(),
    wordStamp: array(),
    wordBest: array(),
    wordHits: array(),
    query,
    word,
  };
}

let sharedScratch = newScratch(0, 0, 0);

/**
 * The scratch space for an index of `size` documents: grown (stamps all new) when a larger index
 * asks, by a quarter at least, so that segments of slightly different sizes searched in turn do not
 * each make a set.
 */
function queryScratch(size: number): QueryScratch {
  const capacity = sharedScratch.stamp.length;
  if (capacity < size) sharedScratch = newScratch(Math.max(size, Math.ceil(capacity * 1.25)), sharedScratch.query, sharedScratch.word);
  return sharedScratch;
}

/** Starts a query: a number no stamp holds (past 2^31 the stamps are cleared and numbering starts again). */
function nextQuery(scratch: QueryScratch): void {
  if (scratch.query === 0x7fffffff) {
    scratch.stamp.fill(0);
    scratch.query = 0;
  }
  scratch.query++;
}

/** Starts a query word, as nextQuery. */
function nextWord(scratch: QueryScratch): void {
  if (scratch.word === 0x7fffffff) {
    scratch.wordStamp.fill(0);
    scratch.word = 0;
  }
  scratch.word++;
}

/** The inverse of a permutation: out[order[i]] = i. */
function inverse(order: Int32Array): Int32Array {
  const out = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) out[order[i] as number] = i;
  return out;
}

/**
 * An inverted index over a catalogue's words, built once: a query looks up its words (exact, by
 * prefix range, by typo among words of nearby length) and walks their postings instead of reading
 * every capability, so a keystroke over 100,000 capabilities costs a few milliseconds. It gives
 * the answers of scoreDocument and compareRanked (test/sdk/registry/search-rank.test.ts).
 *
 * Built from documents (`new RankIndex(docs)`), or from RankIndexData read back from a stored
 * index (`RankIndex.fromData`), where a document is read only when asked for.
 */
export class RankIndex {
  readonly size: number;
  private readonly data: RankIndexData;
  private readonly documentAt: (d: number) => RankDocument;
  /** The index's own words. */
  private readonly dictionary: RankDictionary;
  /** Each document's place in id order, in name order, and the empty query's answer: made when first asked for. */
  private ranks: { id?: Int32Array; name?: Int32Array; defaultOrder?: Int32Array } = {};
  // The query's scratch space (queryScratch), taken at the start of each search.
  private scratch: QueryScratch = queryScratch(0);
  private touchedCount = 0;
  private wordHitCount = 0;

  constructor(docs: readonly RankDocument[]);
  constructor(data: RankIndexData, documentAt: (d: number) => RankDocument);
  constructor(source: readonly RankDocument[] | RankIndexData, documentAt?: (d: number) => RankDocument) {
    if (Array.isArray(source)) {
      const docs = source as readonly RankDocument[];
      this.data = rankIndexData(docs);
      this.documentAt = (d) => docs[d] as RankDocument;
    } else {
      this.data = source as RankIndexData;
      this.documentAt = documentAt as (d: number) => RankDocument;
    }
    this.size = this.data.size;
    this.dictionary = new RankDictionary(this.data.words);
  }

  /**
   * Each document's place in id order (code units): the last tie-break. Made at the first search
   * that ranks; the id order itself when documents are numbered in id order (a stored segment's
   * are), as the inverse of that order is itself.
   */
  get idRank(): Int32Array {
    if (this.ranks.id === undefined) {
      const { byId } = this.data;
      let identity = true;
      for (let i = 0; i < byId.length && identity; i++) identity = byId[i] === i;
      this.ranks.id = identity ? byId : inverse(byId);
    }
    return this.ranks.id;
  }

  /** Each document's place in name order (case-insensitive, then id), for "sort by name"; made when first asked for. */
  get nameRank(): Int32Array {
    this.ranks.name ??= inverse(this.data.byName);
    return this.ranks.name;
  }

  /** The empty query's answer: every document, deprecated last, then by id; made when first asked for. */
  private get defaultOrder(): Int32Array {
    if (this.ranks.defaultOrder === undefined) {
      const { byId, deprecated } = this.data;
      const order = new Int32Array(this.size);
      let rank = 0;
      for (const wanted of [0, 1]) for (const d of byId) if (deprecated[d] === wanted) order[rank++] = d;
      this.ranks.defaultOrder = order;
    }
    return this.ranks.defaultOrder;
  }

  /** The index over the data of a stored index; `documentAt` reads document d when it is asked for. */
  static fromData(data: RankIndexData, documentAt: (d: number) => RankDocument): RankIndex {
    return new RankIndex(data, documentAt);
  }

  /** The document at index `d`. */
  document(d: number): RankDocument {
    return this.documentAt(d);
  }

  /** Every document in id order (code units). */
  idOrder(): Int32Array {
    return this.data.byId;
  }

  /** Whether document d is deprecated. */
  isDeprecated(d: number): boolean {
    return this.data.deprecated[d] === 1;
  }

  /** The documents whose id is `id` exactly (code units): a range of the id order. */
  withId(id: string): number[] {
    const { ids } = this.data;
    const [from, to] = exactKeys(ids, id.toLowerCase());
    const out: number[] = [];
    for (let i = from; i < to; i++) {
      const d = ids.docs[i] as number;
      if (this.documentAt(d).id === id) out.push(d);
    }
    return out;
  }

  /**
   * The capabilities matching `query` that `accept` lets through (for an empty query all of them,
   * each with score 0, already in order); `byRelevance` or `byRank` orders them. `lookups` gives
   * a query word's typo and inside matches from a shared dictionary (RankDictionary.lookupWords)
   * instead of this index's own words; the words this index lacks are skipped.
   */
  search(query: string, accept?: (doc: number) => boolean, lookups?: (token: string) => WordLookups): RankMatches {
    const phrase = query.trim().toLowerCase();
    const n = this.size;
    if (phrase === '') {
      if (accept === undefined) return { count: n, docs: this.defaultOrder.slice(), scores: new Int32Array(n), ordered: true };
      const docs = new Int32Array(n);
      let count = 0;
      for (const d of this.defaultOrder) if (accept(d)) docs[count++] = d;
      return { count, docs, scores: new Int32Array(count), ordered: true };
    }
    const tokens = tokenize(phrase);
    this.scratch = queryScratch(n);
    nextQuery(this.scratch);
    this.touchedCount = 0;
    const S = RANK_SCORES;
    const { ids, names, shortNames, publishers } = this.data;
    this.raise(ids, exactKeys(ids, phrase), S.exactId);
    this.raise(names, exactKeys(names, phrase), S.exactName);
    this.raise(shortNames, exactKeys(shortNames, phrase), S.exactShortName);
    this.raise(names, prefixRange(names.keys, phrase), S.namePrefix);
    this.raise(ids, prefixRange(ids.keys, phrase), S.idPrefix);
    this.raise(shortNames, prefixRange(shortNames.keys, phrase), S.idPrefix);
    this.raise(publishers, exactKeys(publishers, phrase), S.publisher);

    for (const token of tokens) this.scoreWord(token, lookups?.(token));

    const count = this.touchedCount;
    const docs = new Int32Array(count);
    const scores = new Int32Array(count);
    let kept = 0;
    const { touched, band: bands, matched, total } = this.scratch;
    for (let i = 0; i < count; i++) {
      const d = touched[i] as number;
      const band = bands[d] as number;
      if (band === 0 && matched[d] !== tokens.length) continue;
      if (accept !== undefined && !accept(d)) continue;
      docs[kept] = d;
      scores[kept] = band + (total[d] as number);
      kept++;
    }
    return { count: kept, docs, scores, ordered: false };
  }

  private touch(d: number): void {
    const scratch = this.scratch;
    if (scratch.stamp[d] === scratch.query) return;
    scratch.stamp[d] = scratch.query;
    scratch.band[d] = 0;
    scratch.total[d] = 0;
    scratch.matched[d] = 0;
    scratch.touched[this.touchedCount++] = d;
  }

  /** Raises the band of the documents table.docs[from .. to) to at least `band`. */
  private raise(table: RankKeys, [from, to]: [number, number], band: number): void {
    const { docs } = table;
    const bands = this.scratch.band;
    for (let i = from; i < to; i++) {
      const d = docs[i] as number;
      this.touch(d);
      if (band > (bands[d] as number)) bands[d] = band;
    }
  }

  /** Each document's best score for word w in this query word, by the score table of the match kind. */
  private walk(w: number, table: Uint8Array): void {
    const { postingDocs, postingMasks, postingStart } = this.data;
    const { wordStamp, wordBest, wordHits, word: round } = this.scratch;
    const end = postingStart[w + 1] as number;
    for (let p = postingStart[w] as number; p < end; p++) {
      const s = table[postingMasks[p] as number] as number;
      if (s === 0) continue;
      const d = postingDocs[p] as number;
      if (wordStamp[d] !== round) {
        wordStamp[d] = round;
        wordBest[d] = s;
        wordHits[this.wordHitCount++] = d;
      } else if (s > (wordBest[d] as number)) wordBest[d] = s;
    }
  }

  /** Adds each document's best score for one query word to its total. */
  private scoreWord(token: string, shared?: WordLookups): void {
    nextWord(this.scratch);
    this.wordHitCount = 0;
    const { starts } = this.data.words;
    const [from, to] = this.dictionary.prefixRange(token);
    for (let w = from; w < to; w++)
      this.walk(w, (starts[w + 1] as number) - (starts[w] as number) - 1 === token.length ? SCORE_TABLES.exact : SCORE_TABLES.prefix);
    if (shared === undefined) {
      const { typo, inside } = this.dictionary.lookups(token);
      for (const w of typo) this.walk(w, SCORE_TABLES.typo);
      for (const w of inside) this.walk(w, INSIDE_TABLE);
    } else {
      for (const word of shared.typo) {
        const w = this.dictionary.find(word);
        if (w >= 0) this.walk(w, SCORE_TABLES.typo);
      }
      for (const word of shared.inside) {
        const w = this.dictionary.find(word);
        if (w >= 0) this.walk(w, INSIDE_TABLE);
      }
    }
    const { wordHits, wordBest, matched, total } = this.scratch;
    for (let i = 0; i < this.wordHitCount; i++) {
      const d = wordHits[i] as number;
      this.touch(d);
      matched[d] = (matched[d] as number) + 1;
      total[d] = (total[d] as number) + (wordBest[d] as number);
    }
  }

  /** The matched documents in relevance order (compareRanked): deprecated last, score, id. */
  byRelevance(matches: RankMatches): Int32Array {
    return this.rankedTop(matches, matches.count).docs;
  }

  /**
   * The first `k` of the matched documents in relevance order (compareRanked), without sorting
   * the others: a search as you type shows a page, not every match.
   */
  topByRelevance(matches: RankMatches, k: number): Int32Array {
    return this.rankedTop(matches, k).docs;
  }

  /** topByRelevance with each kept document's score, in the same places. */
  rankedTop(matches: RankMatches, k: number): { docs: Int32Array; scores: Int32Array } {
    const want = Math.max(0, Math.min(k, matches.count));
    if (matches.ordered) return { docs: matches.docs.slice(0, want), scores: matches.scores.slice(0, want) };
    const { docs, scores } = matches;
    const { deprecated } = this.data;
    if (this.size >= RANK_SPAN) {
      const order = Array.from({ length: matches.count }, (_, i) => i);
      order.sort(
        (a, b) =>
          (deprecated[docs[a] as number] as number) - (deprecated[docs[b] as number] as number) ||
          (scores[b] as number) - (scores[a] as number) ||
          (this.idRank[docs[a] as number] as number) - (this.idRank[docs[b] as number] as number),
      );
      const kept = order.slice(0, want);
      return { docs: Int32Array.from(kept, (i) => docs[i] as number), scores: Int32Array.from(kept, (i) => scores[i] as number) };
    }
    // One float64 key per match (deprecated, then score highest first, then id rank), sorted
    // natively: no comparator calls. Scores are far below SCORE_SPAN, so the key holds them whole.
    const keys = new Float64Array(matches.count);
    for (let i = 0; i < matches.count; i++) {
      const d = docs[i] as number;
      const score = Math.min(scores[i] as number, SCORE_SPAN - 1);
      keys[i] = ((deprecated[d] as number) * SCORE_SPAN + (SCORE_SPAN - 1 - score)) * RANK_SPAN + (this.idRank[d] as number);
    }
    let sorted = keys;
    if (want < keys.length) {
      selectSmallest(keys, want);
      sorted = keys.subarray(0, want);
    }
    sorted.sort();
    const keptScores = Int32Array.from(sorted, (key) => SCORE_SPAN - 1 - (Math.floor(key / RANK_SPAN) % SCORE_SPAN));
    return { docs: this.fromKeys(sorted), scores: keptScores };
  }

  /** The matched documents ordered by a rank per document (`nameRank`, or a caller's), then by id. */
  byRank(matches: RankMatches, rank: Int32Array): Int32Array {
    if (this.size >= RANK_SPAN || rank.some((r) => r >= RANK_SPAN || r < 0))
      return this.sortWith(
        matches,
        (a, b) => (rank[a] as number) - (rank[b] as number) || (this.idRank[a] as number) - (this.idRank[b] as number),
      );
    const keys = new Float64Array(matches.count);
    for (let i = 0; i < matches.count; i++) {
      const d = matches.docs[i] as number;
      keys[i] = (rank[d] as number) * RANK_SPAN + (this.idRank[d] as number);
    }
    return this.fromKeys(keys.sort());
  }

  private fromKeys(keys: Float64Array): Int32Array {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = this.data.byId[(keys[i] as number) % RANK_SPAN] as number;
    return out;
  }

  private sortWith(matches: RankMatches, compare: (a: number, b: number) => number): Int32Array {
    return matches.docs.slice(0, matches.count).sort(compare);
  }
}
