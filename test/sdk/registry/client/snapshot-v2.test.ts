/**
 * The v2 client's search index plan (sdk/src/registry/client/snapshot-v2.ts, docs/scaling.md "Cold
 * start and offline search"): segments of consecutive nodes, as many as stay within SEGMENT_DOCS
 * capabilities, so a search walks a few segments instead of one per node.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchContext,
  nodesPerSegment,
  storedSegmentLists,
  syncIndex,
  syncSnapshot,
  V2Store,
} from '../../../../sdk/src/registry/client/snapshot-v2.js';
import { binOf, type TopLevelPayload } from '../../../../sdk/src/registry/layout-v2.js';
import { SearchIndexStore, SEGMENT_DOCS, type DiskSearchIndex } from '../../../../sdk/src/registry/search-index/disk-index.js';
import { decodeSegment } from '../../../../sdk/src/registry/search-index/segment.js';
import { decodeWireSegment, encodeWireSegment } from '../../../../sdk/src/registry/search-index/wire-segment.js';
import type { Envelope } from '../../../../sdk/src/format/manifest-types.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

describe('nodesPerSegment', () => {
  it('groups whole nodes up to SEGMENT_DOCS capabilities, a power of two dividing the fan-out', () => {
    expect(SEGMENT_DOCS).toBe(32_768);
    // 500,000 under F = 128: about 3,900 a node, 8 nodes (31,250) a segment, 16 segments.
    expect(nodesPerSegment({ fanout: 128, capabilities: 500_000 })).toBe(8);
    // 100,000 under F = 64: about 1,560 a node, 16 nodes a segment, 4 segments.
    expect(nodesPerSegment({ fanout: 64, capabilities: 100_000 })).toBe(16);
    // A small registry is one segment of every node.
    expect(nodesPerSegment({ fanout: 32, capabilities: 20_000 })).toBe(32);
    expect(nodesPerSegment({ fanout: 4, capabilities: 0 })).toBe(4);
    // Nodes larger than a segment on their own: one node a segment.
    expect(nodesPerSegment({ fanout: 16, capabilities: 16 * SEGMENT_DOCS * 2 })).toBe(1);
  });

  it('every grouping divides the fan-out, so each node is in exactly one segment', () => {
    for (const fanout of [4, 8, 16, 32, 64, 128, 256])
      for (const capabilities of [0, 1, 1_000, 33_000, 500_000, 1_000_000, 10_000_000]) {
        const group = nodesPerSegment({ fanout, capabilities });
        expect(fanout % group).toBe(0);
        expect(group === 1 || group * Math.ceil(capabilities / fanout) <= SEGMENT_DOCS).toBe(true);
      }
  });
});

describe('syncSnapshot over several segments', () => {
  let reg: TestRegistry;
  let home: string;
  beforeEach(async () => {
    reg = await TestRegistry.create();
    home = await mkdtemp(join(tmpdir(), 'adcap-snapshot-v2-'));
    await reg.addPublisher('acme');
    for (let i = 0; i < 24; i++) await reg.publish({ id: `acme/tool-${i}`, version: '1.0.0', summary: `Tool number ${i} for pdf files` });
    await reg.build();
  });
  afterEach(async () => {
    await reg.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  // The top level as the client accepted it, with a count that puts one node in each segment: the
  // plan of a registry far larger than this one, on a registry small enough to build in a test.
  const planned = async (): Promise<TopLevelPayload> => {
    const { payload } = JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as Envelope<TopLevelPayload>;
    return { ...payload, capabilities: payload.fanout * SEGMENT_DOCS };
  };

  it('a cold start writes one segment per group of nodes; a refresh rewrites only the segment of the changed node', async () => {
    const base = `${pathToFileURL(reg.path('v2')).href}/`;
    const store = new V2Store(join(home, 'v2'));
    const indexStore = new SearchIndexStore(join(home, 'search-index'));
    const top1 = await planned();
    expect(nodesPerSegment(top1)).toBe(1);
    const cold = await syncSnapshot(store, indexStore, top1, null, fetchContext(base, undefined));
    expect(cold.index.segments.length).toBe(top1.fanout);
    expect(cold.index.size).toBe(24);
    const before = await indexStore.readManifest();
    expect(before?.segments.map((segment) => segment.nodes?.length)).toEqual(top1.nodes.map(() => 1));

    await reg.publish({ id: 'acme/tool-7', version: '2.0.0', summary: 'Tool number 7, now for csv files' });
    await reg.build();
    const top2 = await planned();
    const context = fetchContext(base, undefined);
    const warm = await syncSnapshot(store, indexStore, top2, cold.snapshot, context);
    const after = await indexStore.readManifest();
    const node = Math.floor(binOf('acme/tool-7', top2.fanout * top2.fanout) / top2.fanout);
    // Every segment but the changed node's is the same file; that one holds the new record.
    after?.segments.forEach((segment, s) => {
      if (s === node) expect(segment.file).not.toBe(before?.segments[s]?.file);
      else expect(segment.file).toBe(before?.segments[s]?.file);
    });
    // Downloaded: the changed node and its changed bin, no search pack.
    const changedBins = (warm.snapshot.nodes[node] ?? []).filter((pin, b) => pin[0] !== cold.snapshot.nodes[node]?.[b]?.[0]);
    expect(changedBins.length).toBe(1);
    expect(context.downloaded).toBe((top2.nodes[node]?.[1] ?? 0) + (changedBins[0]?.[1] ?? 0));
    expect(warm.index.segmentOfNode(node)).toBe(node);
    expect(warm.index.has('acme/tool-7', warm.index.segmentOfNode(node))).toBe(true);
    const hits = warm.index.search('csv');
    expect(hits.map((hit) => [hit.id, hit.latest])).toEqual([['acme/tool-7', '2.0.0']]);
    expect(warm.index.search('pdf').map((hit) => hit.id)).not.toContain('acme/tool-7');
    expect(warm.index.size).toBe(24);
    // The files the manifest names are those on disk, by their SHA-256.
    for (const segment of after?.segments ?? [])
      expect((await readFile(join(home, 'search-index', `${segment.file}.seg`))).length).toBe(segment.size);
  });
  it('an index of one node a segment (manifest format 1, an earlier SDK) is regrouped offline, with nothing downloaded', async () => {
    const base = `${pathToFileURL(reg.path('v2')).href}/`;
    const store = new V2Store(join(home, 'v2'));
    const indexStore = new SearchIndexStore(join(home, 'search-index'));
    const top1 = await planned();
    const cold = await syncSnapshot(store, indexStore, top1, null, fetchContext(base, undefined));
    // The manifest as the earlier SDK wrote it: format 1, each segment naming its one `node`.
    const written = JSON.parse(await readFile(join(home, 'search-index', 'manifest.json'), 'utf8')) as {
      segments: { nodes?: string[]; node?: string }[];
    };
    const format1 = {
      ...written,
      format: 1,
      segments: written.segments.map(({ nodes, ...rest }) => ({ ...rest, node: nodes?.[0] })),
    };
    await writeFile(join(home, 'search-index', 'manifest.json'), JSON.stringify(format1));
    expect((await indexStore.readManifest())?.segments.every((segment) => segment.nodes?.length === 1)).toBe(true);

    // The registry's real size: every node in one segment. No fetch context: a download would fail.
    const { payload } = JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as Envelope<TopLevelPayload>;
    expect(nodesPerSegment(payload)).toBe(payload.fanout);
    const index = await syncIndex(store, indexStore, { ...cold.snapshot, top: payload }, cold.snapshot, null);
    expect(index.segments.length).toBe(1);
    expect(index.size).toBe(24);
    expect(index.search('pdf', { limit: 100 }).length).toBe(24);
    const after = await indexStore.readManifest();
    expect(after?.format).toBe(2);
    expect(after?.segments.map((segment) => segment.nodes?.length)).toEqual([payload.fanout]);
    // The single-node segments are gone; the one segment and the dictionary remain.
    const files = (await readdir(join(home, 'search-index'))).filter((name) => name.endsWith('.seg'));
    expect(files).toEqual([`${after?.segments[0]?.file}.seg`]);
  });

  it('a damaged single-node segment is not regrouped: offline, the index cannot be rebuilt and says so', async () => {
    const base = `${pathToFileURL(reg.path('v2')).href}/`;
    const store = new V2Store(join(home, 'v2'));
    const indexStore = new SearchIndexStore(join(home, 'search-index'));
    const cold = await syncSnapshot(store, indexStore, await planned(), null, fetchContext(base, undefined));
    const manifest = await indexStore.readManifest();
    const victim = manifest?.segments.find((segment) => segment.count > 0);
    const file = join(home, 'search-index', `${victim?.file}.seg`);
    const bytes = await readFile(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await writeFile(file, bytes);
    const { payload } = JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as Envelope<TopLevelPayload>;
    // A new process (a store of its own): this one still holds the segments it checked, by their hash.
    const later = new SearchIndexStore(join(home, 'search-index'));
    await expect(syncIndex(store, later, { ...cold.snapshot, top: payload }, cold.snapshot, null)).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
    });
  });

  it("storedSegmentLists answers from the one segment of the id's node, and only from one built from these nodes", async () => {
    const base = `${pathToFileURL(reg.path('v2')).href}/`;
    const store = new V2Store(join(home, 'v2'));
    const dir = join(home, 'search-index');
    const cold = await syncSnapshot(store, new SearchIndexStore(dir), await planned(), null, fetchContext(base, undefined));
    const nodeOf = (id: string): number => Math.floor(binOf(id, cold.snapshot.top.fanout ** 2) / cold.snapshot.top.fanout);
    // A new process each time (a store of its own, holding nothing yet).
    const lists = (id: string, snapshot = cold.snapshot): Promise<boolean | null> =>
      storedSegmentLists(new SearchIndexStore(dir), snapshot, id);
    for (let i = 0; i < 24; i++) expect(await lists(`acme/tool-${i}`)).toBe(true);
    expect(await lists('acme/absent')).toBe(false);
    expect(await lists('other/tool-1')).toBe(false);

    // Every other segment removed: the id's own is all it reads.
    const manifest = await new SearchIndexStore(dir).readManifest();
    const own = manifest?.segments[nodeOf('acme/tool-3')]?.file;
    for (const segment of manifest?.segments ?? []) if (segment.file !== own) await rm(join(dir, `${segment.file}.seg`), { force: true });
    expect(await lists('acme/tool-3')).toBe(true);
    const elsewhere = Array.from({ length: 24 }, (_, i) => `acme/tool-${i}`).find((id) => nodeOf(id) !== nodeOf('acme/tool-3'));
    expect(elsewhere).toBeDefined();
    // Its segment is gone: no answer (the caller opens the whole index, which makes it again).
    expect(await lists(elsewhere as string)).toBeNull();

    // A damaged segment is no answer either, never a wrong one.
    const file = join(dir, `${own}.seg`);
    const bytes = await readFile(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await writeFile(file, bytes);
    expect(await lists('acme/tool-3')).toBeNull();
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await writeFile(file, bytes);
    expect(await lists('acme/tool-3')).toBe(true);

    // A newer snapshot whose node of acme/tool-3 changed: the stored segment was built from the old
    // node, so it does not answer for the new one (the new version may list other ids).
    await reg.publish({ id: 'acme/tool-3', version: '2.0.0', summary: 'Tool number 3, version 2' });
    await reg.build();
    const top2 = await planned();
    expect(top2.nodes[nodeOf('acme/tool-3')]).not.toEqual(cold.snapshot.top.nodes[nodeOf('acme/tool-3')]);
    expect(await lists('acme/tool-3', { ...cold.snapshot, top: top2 })).toBeNull();
  });

  it('a sync in the same process reuses the segments it checked (by hash) instead of reading the files again', async () => {
    const base = `${pathToFileURL(reg.path('v2')).href}/`;
    const store = new V2Store(join(home, 'v2'));
    const indexStore = new SearchIndexStore(join(home, 'search-index'));
    const cold = await syncSnapshot(store, indexStore, await planned(), null, fetchContext(base, undefined));
    const before = cold.index.search('pdf');
    expect(before.length).toBeGreaterThan(0);
    for (const name of await readdir(join(home, 'search-index'))) if (name.endsWith('.seg')) await rm(join(home, 'search-index', name));
    const again = await syncIndex(store, indexStore, cold.snapshot, cold.snapshot, null);
    expect(again.segments.every((segment, s) => segment === cold.index.segments[s])).toBe(true);
    // A hit's summary is read from its segment's file (docs/scaling.md "Client memory"): gone, the
    // search says so, and the store no longer holds the segment, so the next sync reads the files.
    expect(() => again.search('pdf')).toThrow(expect.objectContaining({ code: 'E_CATALOG' }) as Error);
    await expect(syncIndex(store, indexStore, cold.snapshot, null, null)).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
    // A new process has only the files: gone, and offline nothing can be rebuilt.
    await expect(syncIndex(store, new SearchIndexStore(join(home, 'search-index')), cold.snapshot, null, null)).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
    });
  });
});

describe('a cold start from the registry\'s wire segments (docs/scaling.md "Wire segments")', () => {
  let reg: TestRegistry;
  let home: string;
  beforeEach(async () => {
    reg = await TestRegistry.create();
    home = await mkdtemp(join(tmpdir(), 'adcap-snapshot-wire-'));
    await reg.addPublisher('acme');
    await reg.addPublisher('beta');
    for (let i = 0; i < 24; i++)
      await reg.publish({ id: `${i % 3 === 0 ? 'beta' : 'acme'}/tool-${i}`, version: '1.0.0', summary: `Tool number ${i} for pdf files` });
    await reg.build();
  });
  afterEach(async () => {
    await reg.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  const base = (): string => `${pathToFileURL(reg.path('v2')).href}/`;
  const published = async (): Promise<TopLevelPayload> =>
    (JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as Envelope<TopLevelPayload>).payload;
  const sync = async (top: TopLevelPayload, where = home): Promise<{ index: DiskSearchIndex; downloaded: number }> => {
    const context = fetchContext(base(), undefined);
    const { index } = await syncSnapshot(
      new V2Store(join(where, 'v2')),
      new SearchIndexStore(join(where, 'search-index')),
      top,
      null,
      context,
    );
    return { index, downloaded: context.downloaded };
  };
  /** Bytes of the files a cold start needs besides the search index: every node, the publishers' node and its bins. */
  const structureBytes = async (top: TopLevelPayload): Promise<number> => {
    const publisherNode = JSON.parse((await reg.read(`v2/${top.publishers[0]}`)).toString('utf8')) as [string, number][];
    // Equal files (empty publisher bins) have one name and are downloaded once.
    const unique = new Map([...top.nodes, top.publishers, ...publisherNode].map((pin) => [pin[0], pin[1]]));
    return [...unique.values()].reduce((sum, size) => sum + size, 0);
  };

  it('the builder pins one wire segment per client segment; a new client downloads them and no search pack', async () => {
    const top = await published();
    expect(top.segments?.map((pin) => [pin[2], pin[3]])).toEqual([[0, nodesPerSegment(top)]]);
    // The packs stay for clients of this layout built before wire segments, but a new client does not read them.
    await rm(reg.path('v2/search'), { recursive: true });
    const { index, downloaded } = await sync(top);
    const segmentBytes = (top.segments ?? []).reduce((sum, pin) => sum + pin[1], 0);
    expect(downloaded).toBe((await structureBytes(top)) + segmentBytes);
    // The same answers as an index built from the packs (a top level without wire segments).
    const { segments: _segments, ...packsOnly } = top;
    await reg.build(); // the packs again
    const other = await mkdtemp(join(tmpdir(), 'adcap-snapshot-packs-'));
    try {
      const fromPacks = await sync(packsOnly, other);
      for (const query of ['pdf', 'tool 7', 'beta', 'acme/tool-1', 'numbr', ''])
        expect(index.search(query, { limit: 10 }), query).toEqual(fromPacks.index.search(query, { limit: 10 }));
      expect(index.entries()).toEqual(fromPacks.index.entries());
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('a host that does not serve v2/index/ (404: configured before wire segments): the cold start reads the packs', async () => {
    const top = await published();
    await rm(reg.path('v2/index'), { recursive: true });
    const { index, downloaded } = await sync(top);
    expect(index.size).toBe(24);
    expect(downloaded).toBe((await structureBytes(top)) + top.search.reduce((sum, pin) => sum + pin[1], 0));
  });

  it('a tampered, truncated or oversize wire segment is refused by its pin (E_CATALOG); nothing is stored', async () => {
    const top = await published();
    const path = (top.segments?.[0] as [string, number, number, number])[0];
    const good = await reg.read(`v2/${path}`);
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1] = (flipped[flipped.length >> 1] as number) ^ 1;
    for (const bad of [flipped, good.subarray(0, good.length - 1), Buffer.concat([good, Buffer.from('more')])]) {
      await reg.write(`v2/${path}`, bad);
      await expect(sync(top)).rejects.toMatchObject({ code: 'E_CATALOG' });
      expect(await new SearchIndexStore(join(home, 'search-index')).readManifest()).toBeNull();
    }
    await reg.write(`v2/${path}`, good);
    expect((await sync(top)).index.size).toBe(24);
  });

  it('a hostile wire segment pinned correctly (bad varints, documents out of range, past the end) is refused, no crash', async () => {
    const top = await published();
    const [path, , first, count] = top.segments?.[0] as [string, number, number, number];
    const raw = gunzipSync(await reg.read(`v2/${path}`));
    const end = raw.length;
    const hostile = [
      // The document count: a varint past 32 bits.
      Buffer.concat([raw.subarray(0, 9), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), raw.subarray(10)]),
      Buffer.concat([raw.subarray(0, end - 1), Buffer.from([0x7f])]), // the last order's document past the count
      raw.subarray(0, end - 30), // a length or count past the end
      Buffer.concat([raw, Buffer.from([1, 2, 3])]), // bytes after the end
    ];
    for (const bytes of hostile) {
      const gz = gzipSync(bytes);
      const forged = `index/${createHash('sha256').update(gz).digest('hex')}.seg.gz`;
      await reg.write(`v2/${forged}`, gz);
      const error = await sync({ ...top, segments: [[forged, gz.length, first, count]] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'E_CATALOG', details: { reason: 'wire-segment-malformed' } });
    }
  });

  it("a wire segment whose publisher names differ from the publishers' node is refused (the registry contradicts itself)", async () => {
    const top = await published();
    const [path, , first, count] = top.segments?.[0] as [string, number, number, number];
    const raw = gunzipSync(await reg.read(`v2/${path}`));
    const { file } = decodeWireSegment(raw, { path, fanout: top.fanout, firstNode: first, nodes: count });
    const segment = decodeSegment(Buffer.concat(file.chunks));
    const records = Array.from(segment.idOrder(), (d) => segment.record(d));
    const gz = gzipSync(encodeWireSegment(records, (p) => (p === 'beta' ? 'Someone Else' : p)));
    const forged = `index/${createHash('sha256').update(gz).digest('hex')}.seg.gz`;
    await reg.write(`v2/${forged}`, gz);
    await expect(sync({ ...top, segments: [[forged, gz.length, first, count]] })).rejects.toMatchObject({
      code: 'E_CATALOG',
      details: { reason: 'wire-segment-publishers' },
    });
  });
});
