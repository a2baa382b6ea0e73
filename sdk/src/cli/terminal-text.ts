/**
 * Text for a person's terminal from hostile sources (package manifests, registry catalogues): the
 * CLI never prints such text raw (DESIGN §8, SECURITY.md). This is the list helper (escape,
 * and truncate long lists with a count); terminal-safe.ts has a
 * general escaping helper for all CLI output, and the two are meant to become one.
 */

/**
 * Control characters (C0, DEL, C1), and the Unicode format characters that reorder or hide text
 * (bidi embeddings, overrides and isolates, the line and paragraph separators, zero-width marks).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/** One line of hostile text made printable: each unsafe character becomes a visible `\u{…}`. */
export function cliListText(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

/** How many rows a list prints for a person unless told otherwise (`--limit`, `--all`). */
export const DEFAULT_LIST_ROWS = 20;

/**
 * The first `limit` rows, then one line that says how many were left out and how to see them
 * ("… and 1,234 more; use --limit N or --all"). `limit` null shows every row.
 */
export function truncatedRows(rows: readonly string[], limit: number | null, hint = 'use --limit <n> or --all to see more'): string[] {
  return truncatedList(rows, limit, (row) => row, { hint });
}

/**
 * truncatedRows over items made rows by `row`, only those shown (a search may list every
 * capability). `total`: how many there are in all when `items` holds the first ones only.
 */
export function truncatedList<T>(
  items: readonly T[],
  limit: number | null,
  row: (item: T) => string,
  options: { hint?: string; total?: number } = {},
): string[] {
  const total = Math.max(options.total ?? items.length, items.length);
  if (limit === null || total <= limit) return items.map(row);
  const left = total - Math.min(limit, items.length);
  const hint = options.hint ?? 'use --limit <n> or --all to see more';
  return [...items.slice(0, limit).map(row), `… and ${groupedDigits(left)} more; ${hint}`];
}

/**
 * A count with a comma every three digits, as `toLocaleString('en-US')` writes it, without
 * starting Intl's number formatting: its first use cost ~17 ms of every `adcap search` that
 * printed a count.
 */
export function groupedDigits(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
