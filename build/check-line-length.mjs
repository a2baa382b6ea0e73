#!/usr/bin/env node
// `npm run lines` (issue 15 item 11): no source line over 140 characters. Prettier (printWidth
// 140) wraps code but not long strings, comments or regular expressions; those lines are wrapped
// by hand. Lines written before the formatter came are counted per file in
// build/long-lines.json, an allowance that may only shrink: the check fails when a file has more
// long lines than it allows. `node build/check-line-length.mjs --update` lowers the allowance to
// what is left (it never raises one); `--reset` writes the allowance anew from the tree (once,
// after formatting a merge that moved code between files); `--list` prints every long line.
// Files checked: the repository's source files (tracked, or new and not ignored), less what
// .prettierignore leaves alone.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAX = 140;
const root = fileURLToPath(new URL('..', import.meta.url));
const allowanceFile = fileURLToPath(new URL('./long-lines.json', import.meta.url));
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html)$/;
// The parts of .prettierignore that hold tracked source files (examples' capability sources are
// published byte for byte; the probe fixtures are the test).
const SKIPPED = [/^examples\/[^/]+\//, /^test\/fixtures\/probe\//, /^sandbox-profiles\//];

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
const allowance = JSON.parse(readFileSync(allowanceFile, 'utf8'));
const total = Object.values(counts).reduce((a, b) => a + b, 0);
if (process.argv.includes('--reset')) {
  const fresh = Object.fromEntries(
    Object.keys(counts)
      .sort()
      .map((f) => [f, counts[f]]),
  );
  writeFileSync(allowanceFile, `${JSON.stringify(fresh, null, 2)}\n`);
  console.log(`long-lines.json: ${total} lines over ${MAX} allowed in ${Object.keys(fresh).length} files`);
  process.exit(0);
}
if (process.argv.includes('--update')) {
  const lowered = Object.fromEntries(
    Object.keys(allowance)
      .filter((f) => (counts[f] ?? 0) > 0)
      .sort()
      .map((f) => [f, Math.min(allowance[f], counts[f])]),
  );
  writeFileSync(allowanceFile, `${JSON.stringify(lowered, null, 2)}\n`);
  const allowed = Object.values(lowered).reduce((a, b) => a + b, 0);
  console.log(`long-lines.json: ${allowed} lines over ${MAX} allowed in ${Object.keys(lowered).length} files`);
  process.exit(0);
}
if (process.argv.includes('--list')) for (const l of lines) console.log(l);
const over = Object.entries(counts).filter(([f, n]) => n > (allowance[f] ?? 0));
if (over.length > 0) {
  for (const [f, n] of over) {
    console.error(`${f}: ${n} line(s) over ${MAX} characters (allowed: ${allowance[f] ?? 0}); wrap them:`);
    for (const l of lines.filter((x) => x.startsWith(`${f}:`)).slice(0, 20)) console.error(`  ${l}`);
  }
  process.exit(1);
}
const inFiles = Object.keys(counts).length;
console.log(`lines: none over ${MAX} characters beyond the allowance (${total} old ones left, in ${inFiles} files; --list shows them)`);
