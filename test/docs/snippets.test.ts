// The JavaScript examples in the READMEs and docs/ are code a reader copies: each one parses as an
// ES module (`node --check`, top-level await allowed; an `await` inside a plain arrow does not), and
// every name it imports from '@arcotheon/sdk' is one the SDK exports.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../sdk/src/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Snippet {
  file: string;
  line: number;
  code: string;
}

/** The ```js blocks of a Markdown file, with the line each starts on. */
function jsBlocks(file: string, text: string): Snippet[] {
  const found: Snippet[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(?:js|javascript|mjs)\s*$/.test(lines[i] as string)) continue;
    const start = i + 1;
    while (i + 1 < lines.length && !(lines[i + 1] as string).startsWith('```')) i++;
    found.push({ file, line: start + 1, code: lines.slice(start, i + 1).join('\n') });
    i++;
  }
  return found;
}

function snippets(): Snippet[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), join(ROOT, 'sdk', 'README.md'), ...docs].flatMap((file) =>
    jsBlocks(relative(ROOT, file), readFileSync(file, 'utf8')),
  );
}

describe('the JavaScript examples in the documentation', () => {
  it('finds the blocks and their lines', () => {
    const text = 'intro\n```js\nconst a = 1;\n```\ntext\n```sh\nls\n```\n```js\nawait a();\n```\n';
    expect(jsBlocks('x.md', text)).toEqual([
      { file: 'x.md', line: 3, code: 'const a = 1;' },
      { file: 'x.md', line: 10, code: 'await a();' },
    ]);
  });

  it('each parses as an ES module, and the check refuses what a reader could not run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snippets-'));
    const check = (name: string, code: string): string => {
      const path = join(dir, `${name}.mjs`);
      writeFileSync(path, code);
      try {
        execFileSync(process.execPath, ['--check', path], { stdio: 'pipe' });
        return '';
      } catch (error) {
        return String((error as { stderr?: Buffer }).stderr ?? error);
      }
    };
    // The check itself: an await in a plain arrow is refused, top-level await is not.
    expect(check('bad', 'const xs = [1].map((x) => await x);\n')).toMatch(/SyntaxError/);
    expect(check('good', 'const x = await Promise.resolve(1);\n')).toBe('');
    const all = snippets();
    expect(all.length).toBeGreaterThanOrEqual(4);
    const broken = all
      .map((s, i) => ({ s, error: check(`snippet-${i}`, s.code) }))
      .filter((r) => r.error !== '')
      .map((r) => `${r.s.file}:${r.s.line}: ${/SyntaxError: .*/.exec(r.error)?.[0] ?? r.error}`);
    expect(broken).toEqual([]);
  });

  it("imports only names the SDK exports from '@arcotheon/sdk'", () => {
    const missing: string[] = [];
    for (const s of snippets())
      for (const m of s.code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@arcotheon\/sdk'/g))
        for (const name of (m[1] as string).split(',').map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0] as string,
        ))
          if (name !== '' && !(name in sdk)) missing.push(`${s.file}:${s.line}: ${name}`);
    expect(missing).toEqual([]);
  });
});
