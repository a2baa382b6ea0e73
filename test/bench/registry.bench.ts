/**
 * Registry bench: a catalogue of 20,000 capabilities, signed by a root
 * key, then
 *   - verify-and-load: verifyCatalogue over the bytes (strict parse, signature, shape, digest),
 *   - client load: RegistryClient.update() from a file:// remote (read capped, verify, store) and
 *     catalogue({ refresh: 'never' }) (the offline path every command takes),
 *   - search: building the index once, then queries over it (median of several runs).
 * Registered with test/bench/registry.ts, so `npm run bench -- registry` runs it; targets: search
 * under 50 ms.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { verifyCatalogue } from '../../sdk/src/registry/catalogue.js';
import { RegistryClient } from '../../sdk/src/registry/client/registry-client.js';
import { SearchIndex } from '../../sdk/src/registry/search.js';
import type { CatalogueCapability, CataloguePayload } from '../../sdk/src/registry/types.js';
import { registerBench } from './registry.js';
import { CATALOG_CONTEXT, signEnvelope } from '../../sdk/src/trust/envelope.js';
import { generateKey } from '../../sdk/src/trust/keys.js';

export interface RegistryBenchResult {
  name: string;
  /** Median milliseconds. */
  medianMs: number;
  runs: number;
  detail?: string;
}

const WORDS = [
  'pdf',
  'forms',
  'csv',
  'tables',
  'search',
  'index',
  'vector',
  'image',
  'audio',
  'translate',
  'summarise',
  'chart',
  'sql',
  'http',
  'git',
  'docs',
];

export function syntheticCatalogue(count: number, publishers = 500): CataloguePayload {
  const root = generateKey();
  const capabilities: Record<string, CatalogueCapability> = {};
  for (let i = 0; i < count; i++) {
    const a = WORDS[i % WORDS.length] as string;
    const b = WORDS[(i * 7 + 3) % WORDS.length] as string;
    const pub = `pub-${i % publishers}`;
    capabilities[`${pub}/${a}-${b}-${i}`] = {
      name: `${a} ${b} tool ${i}`,
      summary: `Helps with ${a} and ${b} work, number ${i}, for agents that need ${WORDS[(i * 3) % WORDS.length] as string}.`,
      publisher: pub,
      latest: `1.${i % 10}.0`,
      tier: i % 5 === 0 ? 'pro' : 'free',
      access: i % 11 === 0 ? 'entitled' : 'public',
      keywords: [a, b],
      deprecated: i % 97 === 0,
      doc: { path: `packages/${pub}/${a}-${b}-${i}.json`, sha256: 'ab'.repeat(32) },
    };
  }
  const publisherRecords: CataloguePayload['publishers'] = {};
  for (let p = 0; p < publishers; p++) {
    const key = p === 0 ? root : generateKey();
    publisherRecords[`pub-${p}`] = { name: `Publisher ${p}`, keys: [{ keyId: key.keyId, publicKey: key.publicKey, status: 'active' }] };
  }
  return {
    registry: 'bench',
    spec: 1,
    sequence: 1,
    generatedAt: `${new Date().toISOString().slice(0, 19)}Z`,
    publishers: publisherRecords,
    capabilities,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function measure(runs: number, fn: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function runRegistryBench(count = 20_000): Promise<RegistryBenchResult[]> {
  const root = generateKey();
  const payload = syntheticCatalogue(count);
  const bytes = Buffer.from(`${JSON.stringify(signEnvelope(payload, CATALOG_CONTEXT, [root]))}\n`);
  const results: RegistryBenchResult[] = [];
  const detail = `${count} capabilities, ${(bytes.length / 1024 / 1024).toFixed(1)} MiB catalogue`;

  results.push({
    name: 'catalogue verify-and-load (verifyCatalogue)',
    medianMs: await measure(7, () => verifyCatalogue(bytes, [root.publicKey])),
    runs: 7,
    detail,
  });

  const temp = await mkdtemp(join(tmpdir(), 'adcap-bench-registry-'));
  try {
    await mkdir(join(temp, 'v1'), { recursive: true });
    await writeFile(join(temp, 'v1', 'catalog.json'), bytes);
    const remote = { name: 'bench', url: `${pathToFileURL(join(temp, 'v1')).href}/`, rootKeys: [root.publicKey] };
    let home = 0;
    results.push({
      name: 'client update() from file:// (fetch, verify, store)',
      medianMs: await measure(5, () => new RegistryClient({ home: join(temp, `home-${home++}`), remote }).update()),
      runs: 5,
      detail,
    });
    results.push({
      name: 'client catalogue() offline load (stored copy re-verified)',
      medianMs: await measure(5, () => new RegistryClient({ home: join(temp, 'home-0'), remote }).catalogue({ refresh: 'never' })),
      runs: 5,
      detail,
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }

  let index: SearchIndex | undefined;
  results.push({
    name: 'search index build',
    medianMs: await measure(5, () => (index = new SearchIndex(payload.capabilities))),
    runs: 5,
    detail,
  });
  const built = index as SearchIndex;
  const queries = ['pdf', 'index vector', 'tool 1234', 'summ', 'pub-42/sql-chart-42', 'nothing-matches-this'];
  for (const query of queries) {
    results.push({
      name: `search "${query}"`,
      medianMs: await measure(15, () => built.search(query)),
      runs: 15,
      detail: `${built.search(query).length} hits`,
    });
  }
  results.push({
    name: 'search with filters (tier pro, not installed)',
    medianMs: await measure(15, () => built.search('pdf', { tier: 'pro', installed: false, installedIds: new Set() })),
    runs: 15,
  });
  return results;
}

/** Search should answer well under 50 ms on 20,000 capabilities. */
export const SEARCH_TARGET_MS = 50;

registerBench({
  name: 'registry: 20,000-capability catalogue (verify, load, search)',
  async run(report) {
    for (const result of await runRegistryBench()) {
      report({
        label: `${result.name} (median of ${result.runs}${result.detail === undefined ? '' : `; ${result.detail}`})`,
        value: result.medianMs,
        unit: 'ms',
        ...(result.name.startsWith('search') && result.name !== 'search index build' ? { target: SEARCH_TARGET_MS } : {}),
      });
    }
  },
});
