// ARCOTHEON_* variables change what a user's run does, so a test that sets one tests something a
// user does not run unless it says why the two differ. Every place in test/ and e2e/ that sets one
// carries a comment saying why (on its line or in the few lines above); every variable the product
// reads (sdk/src, electron/, build/) is documented for users, so none exists only to make a test
// pass. A test starts the built app with none set (e2e/first-hour.e2e.ts).
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/ui-process.js';

async function files(dir: string, pattern: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path, pattern)));
    else if (pattern.test(entry.name)) out.push(path);
  }
  return out;
}

/** A line that gives an ARCOTHEON_ variable a value: `ARCOTHEON_X: …` in an env object, or `env['ARCOTHEON_X'] = …`. */
const SETS = /(?:^|[\s{,])ARCOTHEON_[A-Z_]+\s*:(?!:)|\[['"]ARCOTHEON_[A-Z_]+['"]\]\s*=[^=]/;
const COMMENT = /\/\/|^\s*\*|\/\*/;

describe('ARCOTHEON_ variables in tests', () => {
  it('every test or e2e line that sets one says why, in a comment on it or just above it', async () => {
    const unexplained: string[] = [];
    for (const file of await files(join(REPO, 'test'), /\.ts$/).then(async (t) => [...t, ...(await files(join(REPO, 'e2e'), /\.ts$/))])) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (!SETS.test(line) || COMMENT.test(line.split(SETS)[0] ?? '')) return;
        const above = lines.slice(Math.max(0, i - 4), i + 1);
        if (!above.some((l) => COMMENT.test(l))) unexplained.push(`${relative(REPO, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(unexplained).toEqual([]);
  });

  it('the pattern finds a setting line and passes a commented one (so the check above can fail)', () => {
    // The check's own examples: strings, nothing is set.
    expect(SETS.test('    env: { ARCOTHEON_HOME: home },')).toBe(true);
    expect(SETS.test("  process.env['ARCOTHEON_POLICY'] = path;")).toBe(true);
    expect(SETS.test("  if (process.env['ARCOTHEON_UI_TARGET'] === 'electron')")).toBe(false);
  });

  it('every variable the product reads is documented for users', async () => {
    const product = [
      ...(await files(join(REPO, 'sdk', 'src'), /\.ts$/)),
      ...(await files(join(REPO, 'electron'), /\.(ts|mjs)$/)),
      ...(await files(join(REPO, 'build'), /\.(ts|mjs|cjs)$/)),
    ];
    const read = new Set<string>();
    for (const file of product)
      for (const match of (await readFile(file, 'utf8')).matchAll(/ARCOTHEON_[A-Z][A-Z_]*[A-Z]/g)) read.add(match[0]);
    const docs = (
      await Promise.all(
        [
          'README.md',
          'SECURITY.md',
          join('sdk', 'README.md'),
          ...(await readdir(join(REPO, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => join('docs', f)),
        ].map((f) => readFile(join(REPO, f), 'utf8')),
      )
    ).join('\n');
    const undocumented = [...read].filter((name) => !docs.includes(name)).sort();
    expect(undocumented).toEqual([]);
  });
});
