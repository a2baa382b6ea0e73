// Hostile text is escaped and long lists are cut with a count.
import { describe, expect, it } from 'vitest';
import { cliListText, DEFAULT_LIST_ROWS, groupedDigits, truncatedList, truncatedRows } from '../../../sdk/src/cli/terminal-text.js';

describe('cliListText', () => {
  it('makes control characters and text-reordering marks visible, and leaves other text alone', () => {
    expect(cliListText('Greets \u001b[31mred\u001b[0m\u0007 people')).toBe('Greets \\u{1b}[31mred\\u{1b}[0m\\u{7} people');
    expect(cliListText('line\nbreak\r\ttab\u007f\u009b')).toBe('line\\u{a}break\\u{d}\\u{9}tab\\u{7f}\\u{9b}');
    expect(cliListText('evil\u202eexe.txt \u2066x\u2069 zero\u200bwidth\u2028')).toBe(
      'evil\\u{202e}exe.txt \\u{2066}x\\u{2069} zero\\u{200b}width\\u{2028}',
    );
    expect(cliListText('Café – naïve 😀 漢字 "quotes" \\ backslash')).toBe('Café – naïve 😀 漢字 "quotes" \\ backslash');
  });
});

describe('groupedDigits', () => {
  it('writes a count as toLocaleString("en-US") does', () => {
    for (const n of [0, 7, 999, 1000, 1234, 99999, 100000, 1234567, 1000000000, 9007199254740991]) {
      expect(groupedDigits(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});

describe('truncatedRows', () => {
  const rows = Array.from({ length: 1254 }, (_, i) => `row ${i}`);

  it('keeps the first rows and says how many more there are, with thousands separated', () => {
    const cut = truncatedRows(rows, DEFAULT_LIST_ROWS);
    expect(cut).toHaveLength(DEFAULT_LIST_ROWS + 1);
    expect(cut.slice(0, DEFAULT_LIST_ROWS)).toEqual(rows.slice(0, DEFAULT_LIST_ROWS));
    expect(cut.at(-1)).toBe(`… and 1,234 more; use --limit <n> or --all to see more`);
    expect(truncatedRows(rows, 0, 'narrow it')).toEqual(['… and 1,254 more; narrow it']);
  });

  it('prints everything when the list fits or there is no limit', () => {
    expect(truncatedRows(rows.slice(0, 20), 20)).toEqual(rows.slice(0, 20));
    expect(truncatedRows(rows, null)).toEqual(rows);
    expect(truncatedRows([], 5)).toEqual([]);
  });
});

describe('truncatedList', () => {
  it('makes rows of the items shown only, and counts the rest as truncatedRows does', () => {
    const items = Array.from({ length: 1254 }, (_, i) => i);
    const made: number[] = [];
    const row = (i: number): string => {
      made.push(i);
      return `item ${i}`;
    };
    expect(truncatedList(items, 3, row, { hint: 'narrow it' })).toEqual(['item 0', 'item 1', 'item 2', '… and 1,251 more; narrow it']);
    expect(made).toEqual([0, 1, 2]);
    expect(truncatedList(items.slice(0, 2), 3, row)).toEqual(['item 0', 'item 1']);
    expect(truncatedList(items.slice(0, 4), null, row)).toEqual(['item 0', 'item 1', 'item 2', 'item 3']);
    // The first items of a longer list, and how many there are in all.
    expect(truncatedList(items.slice(0, 3), 3, row, { total: 1254 }).at(-1)).toBe('… and 1,251 more; use --limit <n> or --all to see more');
    expect(truncatedList(items.slice(0, 3), 3, row, { total: 3 })).toEqual(['item 0', 'item 1', 'item 2']);
  });
});
