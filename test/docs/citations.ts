/**
 * Reading citations of the project's documents: "spec §n" is
 * docs/spec/adcap-spec-1.0.txt, "DESIGN §n" is docs/design.md, and `host contract "Name"` is a
 * section or numbered step of docs/spec/host-integration-contract.txt.
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
