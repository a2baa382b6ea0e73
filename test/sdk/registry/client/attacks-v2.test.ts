/**
 * The registry client's attacks (attacks.test.ts) played against the v2/ layout (docs/scaling.md
 * "What stays guaranteed"): a real registry built by the real builder, tampered with file by file,
 * and the exact code the client must refuse it with; plus what v2 adds: a node or bin that does
 * not hash to its pin, a mixed snapshot, a top level signed in the v1 context, and a refresh that
 * follows changed pins only.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentCache } from '../../../../sdk/src/cache/content-cache.js';
import type { TopLevelPayload } from '../../../../sdk/src/registry/layout-v2.js';
import type { RegistryClient } from '../../../../sdk/src/registry/client/registry-client.js';
import { signEnvelope, type SignatureContext } from '../../../../sdk/src/trust/envelope.js';
import { generateKey, type KeyFile } from '../../../../sdk/src/trust/keys.js';
import type { Envelope } from '../../../../sdk/src/format/manifest-types.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const DAY = 86_400_000;

function v2Client(options: { now?: () => Date; maxCatalogAgeMs?: number } = {}): RegistryClient {
  return reg.client(home, { layout: 'auto', ...options });
}

async function topLevel(): Promise<Envelope<TopLevelPayload>> {
  return JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as Envelope<TopLevelPayload>;
}

async function resignTop(
  edit: (payload: TopLevelPayload) => TopLevelPayload | void,
  options: { keys?: KeyFile[]; context?: SignatureContext } = {},
): Promise<void> {
  const payload = structuredClone((await topLevel()).payload);
  const edited = edit(payload) ?? payload;
  const signed = signEnvelope(edited, options.context ?? 'arcotheon-catalog-v2', options.keys ?? [reg.rootKey]);
  await reg.write('v2/catalog.json', JSON.stringify(signed));
}

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-client-v2-home-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.publish({ id: 'acme/csv', version: '1.0.0', summary: 'Tables from CSV files' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('registry client over v2/ (docs/scaling.md)', () => {
  it('prefers v2/ beside a v1/ URL: search, show, download work the same, and the layout is reported', async () => {
    const client = v2Client();
    const loaded = await client.update();
    expect(loaded.layout).toBe('v2');
    expect(loaded.capabilityCount).toBe(2);
    expect(loaded.payload.publishers['acme']?.name).toBe('acme Inc.');
    expect((await client.search('pdf')).map((hit) => hit.id)).toEqual(['acme/pdf']);
    expect((await client.capability('acme/csv')).summary).toBe('Tables from CSV files');
    expect(await client.record('acme/none')).toBeNull();
    const doc = await client.packageDoc('acme/pdf');
    expect(Object.keys(doc.versions)).toEqual(['1.0.0']);
    const archive = await client.downloadArchive('acme/pdf', '1.0.0', { cache: new ContentCache(join(home, 'cache')) });
    expect(archive.signedBy).toEqual([reg.keyOf('acme').keyId]);
    // A new process reads the stored snapshot offline.
    const offline = await v2Client().catalogue({ refresh: 'never' });
    expect(offline.layout).toBe('v2');
    expect((await v2Client().search('csv')).map((hit) => hit.id)).toEqual(['acme/csv']);
  });

  it('a registry without v2/ is read as version 1; a v1-only client on a v2 tree still reads v1/', async () => {
    await rm(reg.path('v2'), { recursive: true });
    expect((await v2Client().update()).layout).toBe('v1');
    await reg.build();
    const other = await mkdtemp(join(tmpdir(), 'adcap-client-v1-home-'));
    try {
      const old = reg.client(other, { layout: 'v1' });
      const loaded = await old.update();
      expect(loaded.layout).toBe('v1');
      expect((await old.search('pdf')).map((hit) => hit.id)).toEqual(['acme/pdf']);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refresh after one publish follows changed pins only: the top level, one node, one bin', async () => {
    const client = v2Client();
    const cold = await client.update();
    await reg.publish({ id: 'acme/pdf', version: '1.1.0', summary: 'Extract PDF text, faster' });
    const built = await reg.build();
    expect(built.v2.written).toMatchObject({ docs: 1, bins: 1, nodes: 1, search: 1, publishers: 0 });
    const top = await reg.read('v2/catalog.json');
    const refreshed = await v2Client().update();
    expect(refreshed.changed).toBe(true);
    // Exactly the new top level, one node (F pins) and one bin: no pack, no publisher file.
    const [node] = await newFiles('nodes');
    const [bin] = await newFiles('bins');
    const nodeBytes = (await reg.read(`v2/nodes/${node as string}`)).length;
    const binBytes = (await reg.read(`v2/bins/${bin as string}`)).length;
    expect(refreshed.downloadedBytes).toBe(top.length + nodeBytes + binBytes);
    expect(refreshed.downloadedBytes).toBeLessThan(cold.downloadedBytes);
    const hits = await v2Client().search('pdf');
    expect(hits.map((hit) => [hit.id, hit.latest])).toEqual([['acme/pdf', '1.1.0']]);
    expect(hits[0]?.summary).toBe('Extract PDF text, faster');
  });

  it('rollback: a replayed older top level is E_ROLLBACK and the stored snapshot stays', async () => {
    const old = await reg.read('v2/catalog.json');
    await reg.build();
    expect((await v2Client().update()).payload.sequence).toBe(2);
    await reg.write('v2/catalog.json', old);
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_ROLLBACK' });
    expect((await v2Client().catalogue({ refresh: 'never' })).payload.sequence).toBe(2);
  });

  it('same sequence, other content: a re-signed top level is E_ROLLBACK', async () => {
    await v2Client().update();
    await resignTop((payload) => ({ ...payload, capabilities: payload.capabilities + 1 }));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_ROLLBACK' });
  });

  it('a top level signed in the v1 catalogue context is E_CATALOG; a fresh client then reads v1/', async () => {
    await v2Client().update();
    await resignTop((payload) => ({ ...payload, sequence: payload.sequence + 1 }), { context: 'arcotheon-catalog-v1' });
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
    const fresh = await mkdtemp(join(tmpdir(), 'adcap-client-fresh-'));
    try {
      expect((await reg.client(fresh, { layout: 'auto' }).update()).layout).toBe('v1');
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('a v1 catalogue signature never verifies as a top level, nor a top level signature as a v1 catalogue', async () => {
    await v2Client().update();
    await reg.build();
    const v1 = await reg.catalogueEnvelope();
    const top = await topLevel();
    await reg.write('v2/catalog.json', JSON.stringify({ payload: top.payload, signatures: v1.signatures }));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
    await reg.write('v1/catalog.json', JSON.stringify({ payload: v1.payload, signatures: top.signatures }));
    await expect(reg.client(home, { name: 'old', layout: 'v1' }).update()).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('untrusted root: a top level signed by a key that is not pinned is E_CATALOG once v2 was read', async () => {
    await v2Client().update();
    await resignTop((payload) => ({ ...payload, sequence: payload.sequence + 1 }), { keys: [generateKey()] });
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('stale: a top level older than maxCatalogAge is E_STALE, online and offline (freeze)', async () => {
    await reg.build(new Date(Date.now() - 31 * DAY));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_STALE' });
    await reg.build(new Date(Date.now() - 20 * DAY));
    await v2Client().update();
    await expect(v2Client({ now: () => new Date(Date.now() + 11 * DAY) }).catalogue({ refresh: 'never' })).rejects.toMatchObject({
      code: 'E_STALE',
    });
  });

  it('a node that does not hash to its pin is E_CATALOG, and the previous snapshot stays whole', async () => {
    await v2Client().update();
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build();
    const fresh = await newFiles('nodes');
    expect(fresh.length).toBeGreaterThan(0);
    for (const node of fresh)
      await reg.write(`v2/nodes/${node}`, (await reg.read(`v2/nodes/${node}`)).toString('utf8').replace('bins/', 'bins/ '));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
    const stored = await v2Client().catalogue({ refresh: 'never' });
    expect(stored.payload.sequence).toBe(1);
    expect((await v2Client().search('pdf'))[0]?.latest).toBe('1.0.0');
  });

  it('a bin that does not hash to its pin is E_CATALOG', async () => {
    await v2Client().update();
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build();
    const fresh = await newFiles('bins');
    expect(fresh).toHaveLength(1);
    const path = `v2/bins/${fresh[0] as string}`;
    await reg.write(path, (await reg.read(path)).toString('utf8').replace('1.1.0', '1.0.0'));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
    expect((await v2Client().catalogue({ refresh: 'never' })).payload.sequence).toBe(1);
  });

  it('mixed snapshot: a new top level whose node is served with the old snapshot bytes is refused; a missing bin too', async () => {
    const before = await topLevel();
    await v2Client().update();
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build();
    const after = await topLevel();
    const n = after.payload.nodes.findIndex((pin, i) => pin[0] !== before.payload.nodes[i]?.[0]);
    const oldNode = await reg.read(`v2/${before.payload.nodes[n]?.[0] as string}`);
    const newNodePath = `v2/${after.payload.nodes[n]?.[0] as string}`;
    const newNode = await reg.read(newNodePath);
    await reg.write(newNodePath, oldNode);
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_CATALOG' });
    await reg.write(newNodePath, newNode);
    const [bin] = await newFiles('bins');
    await rm(reg.path(`v2/bins/${bin as string}`));
    await expect(v2Client().update()).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
    const stored = await v2Client().catalogue({ refresh: 'never' });
    expect(stored.payload.sequence).toBe(before.payload.sequence);
    expect((await v2Client().search('pdf'))[0]?.latest).toBe('1.0.0');
  });

  it('a package document that does not match its pin is E_DOC_HASH', async () => {
    const client = v2Client();
    await client.update();
    const record = await client.record('acme/pdf');
    const path = `v2/${record?.doc.path as string}`;
    await reg.write(path, (await reg.read(path)).toString('utf8').replace('Extract PDF text', 'Extract PDF text!'));
    await expect(client.packageDoc('acme/pdf')).rejects.toMatchObject({ code: 'E_DOC_HASH' });
  });

  it('tampered stored top level under home/ is refused on load (E_CATALOG)', async () => {
    await v2Client().update();
    const path = join(home, 'remotes', 'test', 'v2', 'catalog.json');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"capabilities":2', '"capabilities":3'));
    await expect(v2Client().catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('a stored top level verified in full is recorded by its SHA-256: those bytes under those keys skip the signature check', async () => {
    await v2Client().update();
    const remote = (...parts: string[]): string => join(home, 'remotes', 'test', ...parts);
    const bytes = await readFile(remote('v2', 'catalog.json'));
    const record = JSON.parse(await readFile(remote('v2-verified.json'), 'utf8')) as Record<string, unknown>;
    expect(record['catalogueSha256']).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect((await v2Client().catalogue({ refresh: 'never' })).layout).toBe('v2');
    // The same payload with a broken signature: refused, unless a record names these very bytes.
    const envelope = JSON.parse(bytes.toString('utf8')) as Envelope<TopLevelPayload>;
    const signature = envelope.signatures[0] as { sig: string };
    signature.sig = `${signature.sig.startsWith('A') ? 'B' : 'A'}${signature.sig.slice(1)}`;
    const broken = Buffer.from(JSON.stringify(envelope));
    await writeFile(remote('v2', 'catalog.json'), broken);
    await expect(v2Client().catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
    await writeFile(
      remote('v2-verified.json'),
      JSON.stringify({ ...record, catalogueSha256: createHash('sha256').update(broken).digest('hex') }),
    );
    expect((await v2Client().catalogue({ refresh: 'never' })).layout).toBe('v2');
    // Other root keys pinned: the record is not theirs, so the full check runs (and refuses).
    const other = reg.client(home, { layout: 'auto', remote: { ...reg.remote(), rootKeys: [generateKey().publicKey] } });
    await expect(other.catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('tampered stored search index: a segment that no longer hashes to its name is rebuilt from the verified pack', async () => {
    await v2Client().update();
    const dir = join(home, 'remotes', 'test', 'search-index');
    let tampered = 0;
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.seg')) continue;
      const bytes = await readFile(join(dir, name));
      const at = bytes.indexOf('Extract PDF text');
      if (at < 0) continue;
      bytes.write('Install me, safe', at, 'latin1');
      await writeFile(join(dir, name), bytes);
      tampered++;
    }
    expect(tampered).toBe(1);
    const hits = await v2Client().search('pdf');
    expect(hits.map((hit) => hit.summary)).toEqual(['Extract PDF text']);
    expect(await v2Client().search('safe')).toEqual([]);
  });

  it('a truncated segment or a manifest naming other nodes is rebuilt, never used', async () => {
    await v2Client().update();
    const dir = join(home, 'remotes', 'test', 'search-index');
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.seg')) continue;
      const bytes = await readFile(join(dir, name));
      await writeFile(join(dir, name), bytes.subarray(0, bytes.length >> 1));
    }
    expect((await v2Client().search('csv')).map((hit) => hit.id)).toEqual(['acme/csv']);
    // A manifest whose segments claim other nodes: each is rebuilt from its own node's pack.
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { segments: Array<{ nodes: string[] }> };
    for (const segment of manifest.segments) segment.nodes = segment.nodes.map(() => 'f'.repeat(64));
    await writeFile(manifestPath, JSON.stringify(manifest));
    expect((await v2Client().search('pdf')).map((hit) => hit.id)).toEqual(['acme/pdf']);
    const rebuilt = JSON.parse(await readFile(manifestPath, 'utf8')) as { segments: Array<{ nodes: string[] }> };
    expect(rebuilt.segments.every((segment) => segment.nodes.length > 0 && !segment.nodes.includes('f'.repeat(64)))).toBe(true);
  });

  it('offline, a damaged index cannot be rebuilt: the search says so (E_DOWNLOAD) instead of answering from it', async () => {
    await v2Client().update();
    const dir = join(home, 'remotes', 'test', 'search-index');
    for (const name of await readdir(dir)) if (name.endsWith('.seg')) await writeFile(join(dir, name), 'garbage');
    // Neither the search packs nor the wire segments (v2/index/) can be read.
    await rm(reg.path('v2/search'), { recursive: true });
    await rm(reg.path('v2/index'), { recursive: true });
    await expect(v2Client().search('pdf')).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
  });
});

/** The nodes and bins the current top level pins. */
async function pinned(): Promise<{ nodes: Set<string>; bins: Set<string> }> {
  const top = (await topLevel()).payload;
  const nodes = new Set(top.nodes.map((pin) => pin[0]));
  const bins = new Set<string>();
  for (const pin of top.nodes) {
    const node = JSON.parse((await reg.read(`v2/${pin[0]}`)).toString('utf8')) as [string, number][];
    for (const bin of node) bins.add(bin[0]);
  }
  return { nodes, bins };
}

let first: { nodes: Set<string>; bins: Set<string> };
beforeEach(async () => {
  first = await pinned();
});

/** File names under v2/<dir>/ the newest top level pins and the first build did not. */
async function newFiles(dir: 'nodes' | 'bins'): Promise<string[]> {
  const now = await pinned();
  return [...now[dir]].filter((path) => !first[dir].has(path)).map((path) => path.slice(dir.length + 1));
}
