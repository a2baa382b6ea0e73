/**
 * Terminal-safe text. Everything `adcap` prints may carry text from packages,
 * registries or tools (names, reasons, catalogue summaries, a tool's stderr inside an E_TOOL
 * message), and a terminal obeys control sequences in it: `\r` and ANSI erase sequences can hide
 * lines of a permission prompt, OSC 52 writes the clipboard, bidi overrides reorder what is shown.
 * So every CLI output goes through `terminalSafe`, which writes such characters as visible `\uXXXX`
 * escapes. Newline and tab pass (our own line structure); nothing else below U+0020, DEL, C1
 * controls, nor the Unicode format characters that reorder or hide text (bidi marks, embeddings,
 * overrides and isolates, zero-width characters, line and paragraph separators, BOM) does: the
 * same set as terminal-text.ts's list helper, which formats its escapes as `\u{…}`.
 *
 * The escape is also valid inside JSON strings, so `--json` output stays parseable and means the
 * same (JSON.stringify already escapes C0 controls; C1, DEL and bidi controls it leaves raw).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
