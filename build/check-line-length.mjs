#!/usr/bin/env node
// `npm run lines`: no source line over 140 characters. Prettier (printWidth
// 140) wraps code but not long strings, comments or regular expressions; those lines are wrapped
// by hand (a string as a concatenation of parts, a comment on more lines). The check fails on
// any line over the limit and names the first ones of each file; `--list` prints every one.
// Files checked: the repository's source files (tracked, or new and not ignored), less what
// .prettierignore leaves alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAX = 140;
const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html)$/;
// The parts of .prettierignore that hold tracked source files (examples' capability sources are
// published byte for byte; the probe fixtures are the test). Generated code (the schema validators
// of build/schema-validators.mjs) is not wrapped by hand.
const SKIPPED = [/^examples\/[^/]+\//, /^test\/fixtures\/probe\//, /^sandbox-profiles\//, /\.generated\.ts$/, /^sdk\/src\/generated\//];

const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((f) => SOURCE.test(f) && !SKIPPED.some((re) => re.test(f)));
const counts = {};
const lines = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(`${root}${file}`, 'utf8');
  } catch {
    continue; // deleted in the work tree, not yet in the index
  }
  text.split('\n').forEach((line, i) => {
    if ([...line].length > MAX) {
      counts[file] = (counts[file] ?? 0) + 1;
      lines.push(`${file}:${i + 1}: ${[...line].length} characters`);
    }
  });
}
if (process.argv.includes('--list')) for (const l of lines) console.log(l);
const over = Object.entries(counts);
if (over.length > 0) {
  for (const [f, n] of over) {
    console.error(`${f}: ${n} line(s) over ${MAX} characters; wrap them:`);
    for (const l of lines.filter((x) => x.startsWith(`${f}:`)).slice(0, 20)) console.error(`  ${l}`);
  }
  process.exit(1);
}
console.log(`lines: none over ${MAX} characters in ${files.length} files`);
