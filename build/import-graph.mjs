#!/usr/bin/env node
// `node build/import-graph.mjs`: the repository's import graph, as docs/architecture.md reports it.
// Reads every TypeScript/JavaScript source of sdk/src, electron, renderer/src, test and e2e, resolves
// relative imports (and `@arcotheon/sdk[/internal]` to the SDK's entry points), and prints:
// - the folders and how many imports run between each pair (sdk/src/<layer>, electron/<world>, renderer/src);
// - imports that run back up a layer of DESIGN §2 (an SDK layer importing a higher one);
// - import circles (strongly connected components of more than one file), type-only imports included.
// `--json` prints the same as JSON. Static text only: nothing is executed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SDK_LAYERS } from './sdk-layers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOP = ['sdk/src', 'electron', 'renderer/src', 'test', 'e2e'];
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP = /(^|\/)(node_modules|dist|fixtures|generated)(\/|$)/;

function walk(dir, out) {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (SKIP.test(rel)) continue;
    const info = statSync(join(root, rel));
    if (info.isDirectory()) walk(rel, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts')) out.push(rel);
  }
  return out;
}

const files = TOP.flatMap((dir) => walk(dir, []));
const known = new Set(files);
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function resolveImport(from, spec) {
  if (spec === '@arcotheon/sdk') return 'sdk/src/index.ts';
  if (spec === '@arcotheon/sdk/internal') return 'sdk/src/internal.ts';
  if (!spec.startsWith('.')) return null;
  const base = relative(root, resolve(root, dirname(from), spec));
  for (const candidate of [base, base.replace(/\.(m|c)?js$/, '.$1ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}/index.ts`]) {
    if (known.has(candidate)) return candidate;
  }
  return null;
}

const edges = new Map(files.map((f) => [f, new Set()]));
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveImport(file, m[1] ?? m[2]);
    if (target !== null && target !== file) edges.get(file).add(target);
  }
}

/** The folder a file counts under: an SDK layer, an electron world, the renderer, tests. */
function area(file) {
  const sdk = /^sdk\/src\/([^/]+)/.exec(file);
  if (sdk) return sdk[1].endsWith('.ts') ? `sdk/src/${sdk[1]}` : `sdk/src/${sdk[1]}/`;
  const el = /^electron\/([^/]+)/.exec(file);
  if (el) return el[1].endsWith('.ts') ? `electron/${el[1]}` : `electron/${el[1]}/`;
  if (file.startsWith('renderer/src')) return 'renderer/src/';
  return `${file.split('/')[0]}/`;
}
function sdkLayer(file) {
  const m = /^sdk\/src\/([^/]+)/.exec(file);
  if (!m) return -1;
  const name = m[1] === 'errors.ts' ? 'errors' : m[1];
  return SDK_LAYERS.findIndex((names) => names.includes(name));
}

const between = new Map();
const upward = [];
for (const [from, targets] of edges) {
  for (const to of targets) {
    const key = `${area(from)} -> ${area(to)}`;
    if (area(from) !== area(to)) between.set(key, (between.get(key) ?? 0) + 1);
    const a = sdkLayer(from);
    const b = sdkLayer(to);
    if (a >= 0 && b >= 0 && b > a) upward.push(`${from} -> ${to}`);
  }
}

// Tarjan's strongly connected components.
let index = 0;
const stack = [];
const meta = new Map();
const circles = [];
function strong(v) {
  meta.set(v, { index, low: index, on: true });
  index += 1;
  stack.push(v);
  for (const w of edges.get(v)) {
    if (!meta.has(w)) {
      strong(w);
      meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
    } else if (meta.get(w).on) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
  }
  if (meta.get(v).low === meta.get(v).index) {
    const component = [];
    for (;;) {
      const w = stack.pop();
      meta.get(w).on = false;
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) circles.push(component.sort());
  }
}
for (const f of files) if (!meta.has(f)) strong(f);

const report = {
  files: files.length,
  imports: [...edges.values()].reduce((n, s) => n + s.size, 0),
  between: Object.fromEntries([...between].sort((x, y) => y[1] - x[1])),
  upward,
  circles,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`${report.files} files, ${report.imports} imports between them`);
  console.log(`\nimports that run back up an SDK layer: ${upward.length}`);
  for (const u of upward) console.log(`  ${u}`);
  console.log(`\nimport circles: ${circles.length}`);
  for (const c of circles) console.log(`  ${c.length} files: ${c.join(', ')}`);
  console.log('\nimports between folders (source folders only):');
  for (const [k, n] of Object.entries(report.between)) if (!/^(test|e2e)\//.test(k)) console.log(`  ${String(n).padStart(4)}  ${k}`);
}
