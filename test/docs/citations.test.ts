// The documents the code cites ("spec §n", "DESIGN §n", the host contract's
// sections by name) are part of the repository, every cited section exists in them, and no
// reference points outside the repository.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { citationsIn, contractSections, designSections, specSections } from './citations.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SPEC = readFileSync(join(ROOT, 'docs', 'spec', 'adcap-spec-1.0.txt'), 'utf8');
const CONTRACT = readFileSync(join(ROOT, 'docs', 'spec', 'host-integration-contract.txt'), 'utf8');
const DESIGN = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8');

const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** Source and documentation files that cite the documents. */
function citingFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|tsx|mjs|cjs|js|md)$/.test(name)) files.push(path);
    }
  };
  for (const dir of ['sdk/src', 'sdk/examples', 'electron']) walk(join(ROOT, dir));
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

  it('every "spec §n", "DESIGN §n" and host contract section cited in sdk/src, electron and the docs exists', () => {
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
        /\.\.\/shared\//,
        /\/work\/shared/,
        /background-skills-and-capsules/,
        /(?<![\w/.])spec\/(?:adcap-spec|host-integration)/,
      ]) {
        if (pattern.test(text) && !(file.startsWith(join(ROOT, 'docs')) && pattern.source.startsWith('(?<!')))
          outside.push(`${relative(ROOT, file)}: ${pattern.source}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
