// Content-addressed mirrors: a registry may serve any pinned blob at
// `<v1>/blobs/sha256/<hex>`; resources and shards are tried from their declared sources first,
// then from those mirrors, and the pin still decides what is accepted.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource, withMirrors } from '../../../sdk/src/cache/resource.js';
import { fetchShard } from '../../../sdk/src/cache/shardset.js';
import { isAdcapError } from '../../../sdk/src/errors.js';
import type { Resource } from '../../../sdk/src/format/manifest-types.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import type { TestServer } from '../../helpers/test-server.js';
import { useCacheFixture } from '../../helpers/cache-fixture.js';

describe('content-addressed mirrors for resources and shards', () => {
  let server: TestServer;
  let cache: ContentCache;
  useCacheFixture('arcotheon-mirrors-', (fx) => {
    ({ server, cache } = fx);
  });

  it('withMirrors appends <base><sha256> after the declared sources, without duplicates', () => {
    const sha = 'a'.repeat(64);
    expect(withMirrors(['https://x/a'], sha, ['https://r/v1/blobs/sha256/'])).toEqual(['https://x/a', `https://r/v1/blobs/sha256/${sha}`]);
    expect(withMirrors([`https://r/v1/blobs/sha256/${sha}`], sha, ['https://r/v1/blobs/sha256/'])).toEqual([
      `https://r/v1/blobs/sha256/${sha}`,
    ]);
    expect(withMirrors(['https://x/a'], sha, undefined)).toEqual(['https://x/a']);
  });

  it('a resource whose declared source is gone is fetched from the registry blob mirror, declared source first', async () => {
    const data = randomBytes(50_000);
    const sha256 = sha256Hex(data);
    server.serveBytes(`/v1/blobs/sha256/${sha256}`, data);
    const resource: Resource = { id: 'data', kind: 'dataset', sources: [server.url('/gone/data.bin')], sha256, size: data.length };
    const file = await materializeResource(cache, resource, { mirrors: [server.url('/v1/blobs/sha256/')] });
    expect((await readFile(file)).equals(data)).toBe(true);
    expect(server.statsFor('/gone/data.bin').requests).toBe(1);
    expect(server.statsFor(`/v1/blobs/sha256/${sha256}`).requests).toBe(1);
  });

  it('a mirror serving other bytes is refused: the pin decides (E_DOWNLOAD)', async () => {
    const data = randomBytes(1000);
    const sha256 = sha256Hex(data);
    server.serveBytes(`/v1/blobs/sha256/${sha256}`, randomBytes(1000));
    const resource: Resource = { id: 'data', kind: 'dataset', sources: [server.url('/gone/data.bin')], sha256, size: data.length };
    const error = await materializeResource(cache, resource, { mirrors: [server.url('/v1/blobs/sha256/')] }).catch((e: unknown) => e);
    expect(isAdcapError(error, 'E_DOWNLOAD')).toBe(true);
  });

  it('a shard missing beside every map mirror is fetched from the blob mirror by its own SHA-256', async () => {
    const shard = Buffer.from('{"row":1}\n');
    const shardSha = sha256Hex(shard);
    const map = Buffer.from(JSON.stringify({ shards: [{ path: 'shards/a.jsonl', sha256: shardSha, size: shard.length }] }));
    const mapSha = sha256Hex(map);
    server.serveBytes('/maps/map.json', map);
    server.serveBytes(`/v1/blobs/sha256/${shardSha}`, shard);
    const resource: Resource = {
      id: 'set',
      kind: 'dataset',
      format: 'shardset',
      sources: [server.url('/maps/map.json')],
      sha256: mapSha,
      size: map.length,
    };
    const mirrors = [server.url('/v1/blobs/sha256/')];
    const mapPath = await materializeResource(cache, resource, { mirrors });
    const file = await fetchShard(cache, resource, mapPath, 'shards/a.jsonl', { mirrors });
    expect((await readFile(file)).equals(shard)).toBe(true);
    expect(server.statsFor('/maps/shards/a.jsonl').requests).toBe(1);
    expect(server.statsFor(`/v1/blobs/sha256/${shardSha}`).requests).toBe(1);
  });
});
