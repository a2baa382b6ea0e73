/**
 * Reading citations of the project's documents: "spec §n" is
 * docs/spec/adcap-spec-1.0.txt, "DESIGN §n" is docs/design.md, and `host contract "Name"` is a
 * section or numbered step of docs/spec/host-integration-contract.txt; `docs/ui.md "…"` quotes the
 * product brief for the manager UI.
 */

export interface Citation {
  /** "quote" is a quotation of the contract's words (`host contract: "…"`), checked verbatim. */
  doc: 'spec' | 'DESIGN' | 'contract' | 'quote';
  section: string;
}

const NUMBER = String.raw`§\s?(\d+(?:\.\d+)*)`;
/** "spec §2", then any "-§4", ", §11", " and §3", " / §5" continuing the same document. */
const NUMBERED = new RegExp(String.raw`\b(spec|DESIGN)\s+${NUMBER}((?:\s*(?:[-–,/]|and|or)\s*${NUMBER})*)`, 'g');
const CONTINUED = new RegExp(NUMBER, 'g');
const CONTRACT = /host contract(,?|:)\s+"([^"]+)"/g;

export function citationsIn(text: string): Citation[] {
  const found: { at: number; citation: Citation }[] = [];
  for (const m of text.matchAll(NUMBERED)) {
    const doc = m[1] as 'spec' | 'DESIGN';
    found.push({ at: m.index, citation: { doc, section: m[2] as string } });
    for (const more of (m[3] ?? '').matchAll(CONTINUED)) found.push({ at: m.index, citation: { doc, section: more[1] as string } });
  }
  for (const m of text.matchAll(CONTRACT))
    found.push({ at: m.index, citation: { doc: m[1] === ':' ? 'quote' : 'contract', section: m[2] as string } });
  return found.sort((a, b) => a.at - b.at).map((f) => f.citation);
}

/** Spec headings: "3. The manifest#", "3.1 Skills#". */
export function specSections(text: string): Set<string> {
  return new Set([...text.matchAll(/^(\d+(?:\.\d+)*)\.?\s+\S.*#\s*$/gm)].map((m) => m[1] as string));
}

/** Design headings: "## 8. The `adcap` command", "### 8.1 …". */
export function designSections(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s/gm)].map((m) => m[1] as string));
}

/** Contract headings ("Free and Pro#") and numbered steps ("5. Skills: …"). */
export function contractSections(text: string): Set<string> {
  const headings = [...text.matchAll(/^([^\n#]+)#\s*$/gm)].map((m) => (m[1] as string).trim());
  const steps = [...text.matchAll(/^\d+\.\s+([A-Z][\w ]*?):/gm)].map((m) => (m[1] as string).trim());
  return new Set([...headings, ...steps]);
}

/**
 * A comment's text with the comment markers of its continuation lines (` * `, `// `) taken out and
 * white space made single, so a quotation that wraps over lines reads as one.
 */
export function unwrapped(text: string): string {
  return text.replace(/[ \t]*\r?\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/g, ' ').replace(/\s+/g, ' ');
}

/**
 * Quotations of the product brief for the manager UI: `docs/ui.md "A"`, `docs/ui.md: "A"` and any
 * `, "B"` after it. A bare `docs/ui.md` (no quotation) names the document only.
 */
export function briefQuotes(text: string): string[] {
  const quotes: string[] = [];
  if (!text.includes('docs/ui.md')) return quotes;
  for (const m of unwrapped(text).matchAll(/docs\/ui\.md:? ((?:"[^"]+")(?:, "[^"]+")*)/g))
    for (const q of (m[1] as string).matchAll(/"([^"]+)"/g)) quotes.push(q[1] as string);
  return quotes;
}

/** Whether `quote` is the document's words (case and white space aside); "…" or "..." leaves words out. */
export function quotedIn(doc: string, quote: string): boolean {
  const words = doc.replace(/\s+/g, ' ').toLowerCase();
  let from = 0;
  for (const part of quote.toLowerCase().split(/\s*(?:…|\.\.\.)\s*/)) {
    if (part === '') continue;
    const at = words.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}

/**
 * References to the issue tracker by number (the word issue or issues, any case, then a number), each
 * with its line: a comment cites the rule or the section it implements, which outlives the tracker.
 */
export function trackerReferences(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\bissues? #?\d+/gi)) found.push({ line: i + 1, text: m[0] });
  });
  return found;
}
