// The documents the code cites ("spec §n", "DESIGN §n", the host contract's
// sections by name, the UI brief's words) are part of the repository, every cited section exists in
// them, no reference points outside the repository, and no comment cites the issue tracker instead.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { briefQuotes, citationsIn, contractSections, designSections, quotedIn, specSections, trackerReferences } from './citations.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SPEC = readFileSync(join(ROOT, 'docs', 'spec', 'adcap-spec-1.0.txt'), 'utf8');
const CONTRACT = readFileSync(join(ROOT, 'docs', 'spec', 'host-integration-contract.txt'), 'utf8');
const DESIGN = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8');
const BRIEF = readFileSync(join(ROOT, 'docs', 'ui.md'), 'utf8');

const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** The files under `dir` whose names match `names`, outside node_modules, dist and generated code. */
function filesUnder(dir: string, names: RegExp): string[] {
  const files: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      if (name === 'node_modules' || name === 'dist' || name === 'generated') continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (names.test(name)) files.push(path);
    }
  };
  walk(join(ROOT, dir));
  return files;
}

/** Source and documentation files that cite the documents. */
function citingFiles(): string[] {
  const files: string[] = [];
  // test/docs holds this check's own examples, and test/fixtures data that is not ours to cite.
  const own = [join(ROOT, 'test', 'docs'), join(ROOT, 'test', 'fixtures')];
  for (const dir of ['sdk/src', 'sdk/examples', 'electron', 'renderer/src', 'build', 'e2e', 'test'])
    files.push(...filesUnder(dir, /\.(ts|tsx|mjs|cjs|js|css|md)$/).filter((file) => !own.some((d) => file.startsWith(d + sep))));
  for (const doc of readdirSync(join(ROOT, 'docs'))) if (doc.endsWith('.md') && doc !== 'design.md') files.push(join(ROOT, 'docs', doc));
  files.push(join(ROOT, 'README.md'), join(ROOT, 'SECURITY.md'), join(ROOT, 'sdk', 'README.md'));
  return files;
}

describe('the cited documents are in the repository', () => {
  it('parses the section numbers and names of the three documents', () => {
    const spec = specSections(SPEC);
    for (const n of ['1', '2', '3', '3.1', '3.2', '3.3', '7', '13', '14']) expect(spec.has(n), `spec §${n}`).toBe(true);
    expect(spec.has('15')).toBe(false);
    const design = designSections(DESIGN);
    for (const n of ['1', '2', '8', '9', '12']) expect(design.has(n), `DESIGN §${n}`).toBe(true);
    expect(design.has('13')).toBe(false);
    const contract = contractSections(CONTRACT);
    for (const name of ['Embedding', 'Free and Pro', 'Sandbox expectations by platform', 'Skills', 'Install'])
      expect(contract.has(name), name).toBe(true);
  });

  it('finds every form of citation the code uses, and only those', () => {
    const text =
      'see spec §2-§4 and spec §3.1; (spec §13 / DESIGN §11), DESIGN §8, §12; ' +
      'spec §7. Also host contract "Free and Pro" and host contract, "Install". ' +
      'The host contract: "Reject unless". Not: §5 alone.';
    expect(citationsIn(text)).toEqual([
      { doc: 'spec', section: '2' },
      { doc: 'spec', section: '4' },
      { doc: 'spec', section: '3.1' },
      { doc: 'spec', section: '13' },
      { doc: 'DESIGN', section: '11' },
      { doc: 'DESIGN', section: '8' },
      { doc: 'DESIGN', section: '12' },
      { doc: 'spec', section: '7' },
      { doc: 'contract', section: 'Free and Pro' },
      { doc: 'contract', section: 'Install' },
      { doc: 'quote', section: 'Reject unless' },
    ]);
  });

  it('every "spec §n", "DESIGN §n" and host contract section cited in the code, its tests and the docs exists', () => {
    const sections = { spec: specSections(SPEC), DESIGN: designSections(DESIGN), contract: contractSections(CONTRACT) };
    const contractNames = [...sections.contract];
    const missing: string[] = [];
    let count = 0;
    for (const file of citingFiles()) {
      for (const c of citationsIn(readFileSync(file, 'utf8'))) {
        count++;
        const found =
          c.doc === 'contract'
            ? contractNames.some((name) => name.startsWith(c.section))
            : c.doc === 'quote'
              ? flat(CONTRACT).toLowerCase().includes(flat(c.section).toLowerCase())
              : sections[c.doc].has(c.section);
        if (!found)
          missing.push(
            `${relative(ROOT, file)}: ${c.doc} ${c.doc === 'contract' || c.doc === 'quote' ? `"${c.section}"` : `§${c.section}`}`,
          );
      }
    }
    expect(missing).toEqual([]);
    // The scan really reads the code: it cites the documents hundreds of times.
    expect(count).toBeGreaterThan(300);
  });

  it('no file points at documents outside the repository', () => {
    const outside: string[] = [];
    for (const file of citingFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of [
        // ../shared/ held the documents before they were copied in; electron/shared/ is code.
        /\.\.\/shared\/[\w./-]*\.(?:md|txt)\b/,
        /\/work\/shared/,
        /background-skills-and-capsules/,
        /(?<![\w/.])spec\/(?:adcap-spec|host-integration)/,
        // The UI brief is docs/ui.md; a bare "UI.md" was the copy outside the repository.
        /(?<![\w/.])UI\.md/,
      ]) {
        if (pattern.test(text) && !(file.startsWith(join(ROOT, 'docs')) && pattern.source.startsWith('(?<!')))
          outside.push(`${relative(ROOT, file)}: ${pattern.source}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('every quotation of the UI brief (docs/ui.md "…") is its words, over the lines a comment wraps', () => {
    const text = [
      '/**',
      ' * The tray (docs/ui.md "Nothing blocks: long operations run in the',
      ' * background"), a rail (docs/ui.md: "Navigation", "Fast").',
      ' */',
    ].join('\n');
    expect(briefQuotes(text)).toEqual(['Nothing blocks: long operations run in the background', 'Navigation', 'Fast']);
    expect(quotedIn(BRIEF, 'Destructive actions … say exactly what will change')).toBe(true);
    expect(quotedIn(BRIEF, 'say exactly what will change … Destructive actions')).toBe(false);
    expect(quotedIn(BRIEF, 'Search results update at once')).toBe(false);
    const wrong: string[] = [];
    let count = 0;
    for (const file of citingFiles())
      for (const quote of briefQuotes(readFileSync(file, 'utf8'))) {
        count++;
        if (!quotedIn(BRIEF, quote)) wrong.push(`${relative(ROOT, file)}: docs/ui.md "${quote}"`);
      }
    expect(wrong).toEqual([]);
    // The renderer quotes the brief for what each screen does.
    expect(count).toBeGreaterThan(20);
  });
});

describe('comments cite rules and documents, not the issue tracker', () => {
  // Built from parts, so this file does not hold what it forbids.
  const ref = (rest: string): string => ['iss', 'ue', rest].join('');

  it('finds the forms a tracker reference takes', () => {
    const text = `// ${ref(' 12 item 4').replace('i', 'I')}: x\n * (${ref('s 14 and 17')})\n// tissue 3, issues, spec §3`;
    expect(trackerReferences(text)).toEqual([
      { line: 1, text: ref(' 12').replace('i', 'I') },
      { line: 2, text: ref('s 14') },
    ]);
  });

  it('no source, test or build file cites the issue tracker by number', () => {
    // Code and configuration, not data: fixtures' JSON, Markdown and archives are what they are.
    const code = /\.(ts|tsx|mts|cts|mjs|cjs|js|css|py|sh|sb|tmpl)$/;
    const dirs = ['sdk/src', 'electron', 'renderer/src', 'build', 'e2e', 'test', 'examples', 'sandbox-profiles'];
    const files = dirs.flatMap((dir) => filesUnder(dir, code));
    for (const name of readdirSync(ROOT))
      if (/^(eslint|vitest)\.config\.[jt]s$|^tsconfig.*\.json$/.test(name)) files.push(join(ROOT, name));
    const found: string[] = [];
    for (const file of files)
      for (const r of trackerReferences(readFileSync(file, 'utf8'))) found.push(`${relative(ROOT, file)}:${r.line}: ${r.text}`);
    expect(found).toEqual([]);
    expect(files.length).toBeGreaterThan(500);
  });
});
