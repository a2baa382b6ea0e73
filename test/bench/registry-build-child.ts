/**
 * One step of the registry-build bench (registry-build.bench.ts), in a process of its own so its
 * time and peak memory are its own:
 *
 *   gen <count> <dir>       a registry source tree on disk (registry.json, publishers/, entries/) of
 *                           the synthetic registry (registry-synthetic.ts): one version per capability
 *   build <dir> [full]      `adcap registry build` through the SDK (buildRegistry); "full" deletes the
 *                           build state first, so every bin, node and pack is recomputed
 *   publish <dir> <n>       one new version of one capability, written as `registry publish` writes its
 *                           version entry (the archive is the synthetic registry's one shared blob)
 *   read <dir>              the anchor: a plain script that lists the source tree and reads and parses
 *                           every entry, status and publisher file (what any build must at least do
 *                           without a record of what changed)
 *
 * Prints one JSON line: { ms, maxRssMiB, ... }.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildRegistry } from '../../sdk/src/registry/builder/build.js';
import { BUILD_STATE_FILE } from '../../sdk/src/registry/builder/build-state.js';
import { generateKey, type KeyFile } from '../../sdk/src/trust/keys.js';
import { entryFor, publishers } from './registry-synthetic.js';

const [mode, a, b] = process.argv.slice(2);

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function gen(count: number, dir: string): void {
  const root = generateKey();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'root-key.json'), JSON.stringify(root));
  writeFileSync(
    join(dir, 'registry.json'),
    json({ registry: 'bench', spec: 1, rootKeys: [{ keyId: root.keyId, publicKey: root.publicKey }], sequence: 0 }),
  );
  mkdirSync(join(dir, 'publishers'), { recursive: true });
  for (const file of publishers(count)) writeFileSync(join(dir, 'publishers', `${file.id}.json`), json(file));
  const made = new Set<string>();
  for (let i = 0; i < count; i++) {
    const entry = entryFor(i, `1.${i % 10}.0`, count);
    const entryDir = join(dir, 'entries', ...entry.id.split('/'));
    const pubDir = join(dir, 'entries', entry.id.split('/')[0] as string);
    if (!made.has(pubDir)) {
      mkdirSync(pubDir, { recursive: true });
      made.add(pubDir);
    }
    mkdirSync(entryDir);
    writeFileSync(join(entryDir, `${entry.version}.json`), json(entry));
  }
  mkdirSync(join(dir, 'status'), { recursive: true });
  console.log(JSON.stringify({ generated: count }));
}

async function build(dir: string, full: boolean): Promise<void> {
  if (full) rmSync(join(dir, BUILD_STATE_FILE), { force: true });
  const key = JSON.parse(readFileSync(join(dir, 'root-key.json'), 'utf8')) as KeyFile;
  const start = performance.now();
  const result = await buildRegistry(dir, { rootKeys: [key] });
  const ms = performance.now() - start;
  console.log(
    JSON.stringify({
      ms,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      capabilities: result.capabilities,
      incremental: result.v2.incremental,
      written: result.v2.written,
      v1Listed: result.v1Listed,
    }),
  );
}

function publish(dir: string, n: number): void {
  const count = readdirSync(join(dir, 'entries')).reduce((sum, pub) => sum + readdirSync(join(dir, 'entries', pub)).length, 0);
  // A version not published yet (entries are immutable: publish never rewrites one).
  let entry = entryFor((n * 7919) % count, `2.${n}.0`, count);
  let path = join(dir, 'entries', ...entry.id.split('/'), `${entry.version}.json`);
  while (existsSync(path)) {
    n++;
    entry = entryFor((n * 7919) % count, `2.${n}.0`, count);
    path = join(dir, 'entries', ...entry.id.split('/'), `${entry.version}.json`);
  }
  entry.publishedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  // As publish writes it: a temp file renamed into place.
  writeFileSync(`${path}.tmp`, json(entry));
  renameSync(`${path}.tmp`, path);
  console.log(JSON.stringify({ published: `${entry.id}@${entry.version}` }));
}

function read(dir: string): void {
  const start = performance.now();
  let files = 0;
  let bytes = 0;
  const readTree = (path: string): void => {
    for (const item of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, item.name);
      if (item.isDirectory()) readTree(child);
      else if (item.name.endsWith('.json')) {
        const text = readFileSync(child, 'utf8');
        JSON.parse(text);
        files++;
        bytes += text.length;
      }
    }
  };
  for (const sub of ['publishers', 'entries', 'status']) readTree(join(dir, sub));
  const ms = performance.now() - start;
  console.log(JSON.stringify({ ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, files, bytes }));
}

if (mode === 'gen' && a !== undefined && b !== undefined) gen(Number(a), b);
else if (mode === 'build' && a !== undefined) await build(a, b === 'full');
else if (mode === 'publish' && a !== undefined && b !== undefined) publish(a, Number(b));
else if (mode === 'read' && a !== undefined) read(a);
else throw new Error('usage: registry-build-child.ts gen <count> <dir> | build <dir> [full] | publish <dir> <n> | read <dir>');
