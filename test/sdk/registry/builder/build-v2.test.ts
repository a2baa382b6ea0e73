/**
 * `registry build` writes v2/ beside v1/ (docs/scaling.md "Version 2", docs/deploy.md "Upload
 * order"): content-addressed files named by their SHA-256, a publish touching one bin, one node,
 * one pack and the top level, the v1 subset past the cap, and garbage collection after the grace
 * period.
 */
import { createHash } from 'node:crypto';
import { access, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../../sdk/src/registry/builder/build.js';
import { binOf, fanoutFor, type SearchRecord, type TopLevelPayload } from '../../../../sdk/src/registry/layout-v2.js';
import { decodeSegment } from '../../../../sdk/src/registry/search-index/segment.js';
import { decodeWireSegment, nodesPerSegment } from '../../../../sdk/src/registry/search-index/wire-segment.js';
import { verifyEnvelope } from '../../../../sdk/src/trust/envelope.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
const DAY = 86_400_000;

beforeEach(async () => {
  reg = await TestRegistry.create();
  await reg.addPublisher('acme');
  await reg.addPublisher('beta');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.publish({ id: 'acme/csv', version: '1.0.0' });
  await reg.publish({ id: 'beta/img', version: '1.0.0' });
});
afterEach(async () => {
  await reg.cleanup();
});

async function top(): Promise<TopLevelPayload> {
  const envelope = JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as unknown;
  return verifyEnvelope<TopLevelPayload>(envelope, 'arcotheon-catalog-v2', [reg.rootKey]).payload;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('registry build: v2/ (docs/scaling.md)', () => {
  it('writes a signed top level whose every pin names a file hashing to it, with the same sequence as v1/', async () => {
    const built = await reg.build();
    const payload = await top();
    expect(payload).toMatchObject({ registry: 'test-registry', spec: 2, sequence: built.sequence, generatedAt: built.generatedAt });
    expect(payload.fanout).toBe(fanoutFor(3));
    expect(payload.capabilities).toBe(3);
    const check = async (path: string, size: number): Promise<Buffer> => {
      const bytes = await reg.read(`v2/${path}`);
      expect(bytes.length).toBe(size);
      expect(path).toContain(createHash('sha256').update(bytes).digest('hex'));
      return bytes;
    };
    const bins = new Map<string, Record<string, { doc: { path: string; sha256: string } }>>();
    for (const [n, [path, size]] of payload.nodes.entries()) {
      const node = JSON.parse((await check(path, size)).toString('utf8')) as [string, number][];
      expect(node).toHaveLength(payload.fanout);
      for (const [b, [binPath, binSize]] of node.entries()) {
        const records = JSON.parse((await check(binPath, binSize)).toString('utf8')) as Record<
          string,
          { doc: { path: string; sha256: string } }
        >;
        for (const id of Object.keys(records)) expect(binOf(id, payload.fanout ** 2)).toBe(n * payload.fanout + b);
        bins.set(binPath, records);
      }
    }
    const all = Object.assign({}, ...bins.values()) as Record<string, { doc: { path: string; sha256: string } }>;
    expect(Object.keys(all).sort()).toEqual(['acme/csv', 'acme/pdf', 'beta/img']);
    // The package document is the v1 document's bytes, named by their hash.
    const pdf = all['acme/pdf'] as { doc: { path: string; sha256: string } };
    expect((await reg.read(`v2/${pdf.doc.path}`)).equals(await reg.read('v1/packages/acme/pdf.json'))).toBe(true);
    const records: SearchRecord[] = [];
    for (const [path, size] of payload.search)
      records.push(...(JSON.parse(gunzipSync(await check(path, size)).toString('utf8')) as SearchRecord[]));
    expect(records.find((record) => record[0] === 'acme/pdf')).toEqual([
      'acme/pdf',
      'Test acme/pdf',
      'Extract PDF text',
      [],
      '1.0.0',
      null,
      0,
    ]);
    const publisherNode = JSON.parse((await check(...payload.publishers)).toString('utf8')) as [string, number][];
    const publishers = Object.assign(
      {},
      ...(await Promise.all(publisherNode.map(async (pin) => JSON.parse((await check(...pin)).toString('utf8')) as object))),
    );
    expect(Object.keys(publishers).sort()).toEqual(['acme', 'beta']);
    // Wire segments: pinned with their node ranges, covering every node once, each the client's
    // segment of those nodes' records (the pack's records, in id order).
    const segments = payload.segments ?? [];
    expect(segments.map((pin) => [pin[2], pin[3]])).toEqual([[0, nodesPerSegment(payload)]]);
    for (const [path, size, firstNode, nodes] of segments) {
      const { file, count } = decodeWireSegment(gunzipSync(await check(path, size)), { path, fanout: payload.fanout, firstNode, nodes });
      expect(count).toBe(3);
      const segment = decodeSegment(Buffer.concat(file.chunks));
      expect(Array.from(segment.idOrder(), (d) => segment.record(d))).toEqual([...records].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    }
    const v1 = await reg.catalogueEnvelope();
    expect(v1.payload.sequence).toBe(payload.sequence);
  });

  it('after one publish, touches one bin, one node, one pack, one wire segment, the new document and the top level', async () => {
    await reg.build();
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    const built = await reg.build();
    expect(built.v2.written).toEqual({ docs: 1, bins: 1, nodes: 1, search: 1, publishers: 0, index: 1 });
    expect(built.v2.topLevelWritten).toBe(true);
    // Nothing changed: only the top level (a new sequence and date).
    const again = await reg.build();
    expect(again.v2.written).toEqual({ docs: 0, bins: 0, nodes: 0, search: 0, publishers: 0, index: 0 });
    expect((await top()).sequence).toBe(3);
  });

  it('keepUnchanged keeps the top level too: same sequence, same bytes', async () => {
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], keepUnchanged: true });
    const first = await reg.read('v2/catalog.json');
    const kept = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], keepUnchanged: true });
    expect(kept.unchanged).toBe(true);
    expect((await reg.read('v2/catalog.json')).equals(first)).toBe(true);
  });

  it('collects files no snapshot references only after the grace period', async () => {
    const now = Date.now();
    await reg.build(new Date(now));
    const oldBins = new Set(await readdir(reg.path('v2/bins')));
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build(new Date(now + 1000));
    const retired = JSON.parse(await readFile(reg.path('v2/.retired.json'), 'utf8')) as Record<string, string>;
    const gone = Object.keys(retired).filter((path) => path.startsWith('bins/'));
    expect(gone).toHaveLength(1);
    expect(oldBins.has((gone[0] as string).slice('bins/'.length))).toBe(true);
    // Within the grace period (7 days) it stays; after it, the next build deletes it.
    await reg.build(new Date(now + 6 * DAY));
    expect(await exists(reg.path(`v2/${gone[0] as string}`))).toBe(true);
    const late = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: new Date(now + 8 * DAY) });
    expect(late.v2.collected).toBeGreaterThanOrEqual(3); // the bin, its node, its pack (and the old document)
    expect(await exists(reg.path(`v2/${gone[0] as string}`))).toBe(false);
    // Everything the current top level pins is still there.
    const payload = await top();
    for (const [path] of [...payload.nodes, ...payload.search, payload.publishers]) expect(await exists(reg.path(`v2/${path}`))).toBe(true);
  });

  it('past the v1 cap, v1/ lists the most recently published that fit and v2/ lists all', async () => {
    await rm(reg.path('v1'), { recursive: true, force: true });
    const full = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey] });
    const size = (await reg.read('v1/catalog.json')).length;
    // publishedAt has whole seconds: the newest must be a second later to be the most recent.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await reg.publish({ id: 'beta/newest', version: '1.0.0' });
    const built = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], v1MaxBytes: size + 8 * 1024 - 200 });
    expect(full.v1Listed).toBe(3);
    expect(built.capabilities).toBe(4);
    expect(built.v1Listed).toBeLessThan(4);
    const v1 = await reg.catalogueEnvelope();
    expect(Object.keys(v1.payload.capabilities)).toContain('beta/newest');
    expect((await reg.read('v1/catalog.json')).length).toBeLessThanOrEqual(size + 8 * 1024 - 200);
    expect((await top()).capabilities).toBe(4);
  });
});

describe('v2 files are content-addressed', () => {
  it('names every file under nodes/, bins/, publishers/, search/ and docs/ by its SHA-256', async () => {
    await reg.build();
    for (const dir of ['nodes', 'bins', 'publishers', 'search', 'docs']) {
      for (const name of await readdir(join(reg.dir, 'v2', dir))) {
        const bytes = await readFile(join(reg.dir, 'v2', dir, name));
        expect(name.slice(0, 64)).toBe(createHash('sha256').update(bytes).digest('hex'));
      }
    }
  });
});
