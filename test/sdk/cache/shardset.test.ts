import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource } from '../../../sdk/src/cache/resource.js';
import {
  fetchShard,
  parseShardMap,
  shardPathProblem,
  shardSources,
  ShardRequestHandler,
  type ShardResultMessage,
} from '../../../sdk/src/cache/shardset.js';
import type { Resource } from '../../../sdk/src/format/manifest-types.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import type { TestServer } from '../../helpers/test-server.js';
import { useCacheFixture } from '../../helpers/cache-fixture.js';

interface Shard {
  path: string;
  data: Buffer;
}

/** Publishes a shard set under `prefix` on the server: map at `${prefix}/map.json`, shards beside it. */
function publishShardSet(server: TestServer, prefix: string, shards: Shard[], extra: Record<string, unknown> = {}): Resource {
  for (const shard of shards) server.serveBytes(`${prefix}/${shard.path}`, shard.data);
  const map = Buffer.from(
    JSON.stringify({
      ...extra,
      shards: shards.map((s) => ({ path: s.path, sha256: sha256Hex(s.data), size: s.data.length, note: 'ignored' })),
    }),
  );
  server.serveBytes(`${prefix}/map.json`, map);
  return {
    id: 'media',
    kind: 'dataset',
    format: 'shardset',
    sources: [server.url(`${prefix}/map.json`)],
    sha256: sha256Hex(map),
    size: map.length,
  };
}

function result(message: ShardResultMessage): { path?: string; error?: string } {
  return 'path' in message ? { path: message.path } : { error: message.error };
}

describe('parseShardMap (spec §9)', () => {
  const sha = 'a'.repeat(64);

  it('accepts a map with extra fields (routing vocabulary, floats) and ignores them', () => {
    const map = parseShardMap(
      JSON.stringify({ vocab: [0.25, 1e-3], shards: [{ path: 'shards/0.bin', sha256: sha, size: 3, extra: true }] }),
    );
    expect(map.shards).toEqual([{ path: 'shards/0.bin', sha256: sha, size: 3 }]);
    expect(map.byPath.get('shards/0.bin')?.size).toBe(3);
  });

  it('refuses invalid JSON and invalid UTF-8 with E_JSON', () => {
    expect(() => parseShardMap('{"shards": [')).toThrow(expect.objectContaining({ code: 'E_JSON' }) as Error);
    expect(() => parseShardMap(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow(expect.objectContaining({ code: 'E_JSON' }) as Error);
  });

  it('refuses a wrong shape with E_SCHEMA naming the pointer', () => {
    const cases: [unknown, string][] = [
      [[], ''],
      [{}, '/shards'],
      [{ shards: [1] }, '/shards/0'],
      [{ shards: [{ path: 'a', sha256: 'xyz', size: 1 }] }, '/shards/0/sha256'],
      [{ shards: [{ path: 'a', sha256: sha, size: 1.5 }] }, '/shards/0/size'],
      [{ shards: [{ path: 'a', sha256: sha, size: -1 }] }, '/shards/0/size'],
      [{ shards: [{ path: 'a', sha256: sha, size: 1, sources: 'https://x' }] }, '/shards/0/sources'],
      [{ shards: [{ path: 7, sha256: sha, size: 1 }] }, '/shards/0/path'],
    ];
    for (const [value, pointer] of cases) {
      expect(() => parseShardMap(JSON.stringify(value))).toThrow(
        expect.objectContaining({ code: 'E_SCHEMA', details: { pointer } }) as Error,
      );
    }
  });

  it('refuses shard paths that break the spec §2 path rules with E_PATH', () => {
    for (const path of ['/abs', '../up', 'a/../b', 'a//b', './a', 'a\\b', 'caf\u00e9', 'a\u0001', 'x'.repeat(241), '']) {
      expect(shardPathProblem(path)).not.toBeNull();
      expect(() => parseShardMap(JSON.stringify({ shards: [{ path, sha256: sha, size: 1 }] }))).toThrow(
        expect.objectContaining({ code: 'E_PATH' }) as Error,
      );
    }
    expect(shardPathProblem('shards/x-1_2.jsonl')).toBeNull();
  });

  it('refuses the same shard path twice with E_DUPLICATE', () => {
    const entry = { path: 'a', sha256: sha, size: 1 };
    expect(() => parseShardMap(JSON.stringify({ shards: [entry, entry] }))).toThrow(
      expect.objectContaining({ code: 'E_DUPLICATE' }) as Error,
    );
  });

  it('finds a shard beside each mirror of the map, percent-encoding segments so a path cannot change scheme', () => {
    const resource: Resource = {
      id: 'r',
      kind: 'dataset',
      format: 'shardset',
      sha256: sha,
      size: 1,
      sources: ['https://a.example/sets/v1/map.json', 'https://b.example/mirror/map.json?x=1'],
    };
    expect(shardSources(resource, { path: 'shards/0.bin', sha256: sha, size: 1 })).toEqual([
      'https://a.example/sets/v1/shards/0.bin',
      'https://b.example/mirror/shards/0.bin',
    ]);
    expect(shardSources(resource, { path: 'file:/etc/passwd', sha256: sha, size: 1 })[0]).toBe(
      'https://a.example/sets/v1/file%3A/etc/passwd',
    );
    expect(shardSources(resource, { path: 'q?x#y', sha256: sha, size: 1 })[0]).toBe('https://a.example/sets/v1/q%3Fx%23y');
    expect(shardSources(resource, { path: 'a', sha256: sha, size: 1, sources: ['https://c.example/a'] })).toEqual(['https://c.example/a']);
  });
});

describe('shard sets over HTTPS (test CA)', () => {
  let server: TestServer;
  let cache: ContentCache;
  useCacheFixture('arcotheon-shards-', (fx) => {
    ({ server, cache } = fx);
  });

  it('a shard set of 1,000 shards: a query touching 3 shards downloads exactly those 3 (bytes fetched / needed = 1.0)', async () => {
    const shards: Shard[] = Array.from({ length: 1000 }, (_, i) => ({
      path: `shards/${String(i).padStart(4, '0')}.jsonl`,
      data: randomBytes(1000 + ((i * 7919) % 4000)),
    }));
    const resource = publishShardSet(server, '/set1', shards, { vocabulary: { cats: [1, 2, 3] } });
    const handler = new ShardRequestHandler(cache, { resources: [resource] });
    const wanted = [shards[17], shards[512], shards[999]] as Shard[];
    const answers = await Promise.all(
      wanted.map((s, i) => handler.handle({ type: 'shard', reqId: i + 1, resource: 'media', path: s.path })),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.reqId).toBe(i + 1);
      const got = result(answer);
      expect(got.error).toBeUndefined();
      expect((await readFile(got.path ?? '')).equals((wanted[i] as Shard).data)).toBe(true);
    }
    const shardRequests = server.requests.filter((r) => r.path.startsWith('/set1/shards/'));
    const shardBytes = server.totalBytes - server.statsFor('/set1/map.json').bytes;
    const needed = wanted.reduce((n, s) => n + s.data.length, 0);
    const ratio = shardBytes / needed;
    console.log(
      `shardset: shards=1000 mapBytes=${resource.size} ` +
        `mapRequests=${server.statsFor('/set1/map.json').requests} ` +
        `shardRequests=${shardRequests.length} shardBytesFetched=${shardBytes} ` +
        `shardBytesNeeded=${needed} ratio=${ratio}`,
    );
    expect(shardRequests.map((r) => r.path).sort()).toEqual(wanted.map((s) => `/set1/${s.path}`).sort());
    expect(ratio).toBe(1);
    expect(server.statsFor('/set1/map.json').requests).toBe(1);
    // Asking again is served from the cache.
    const again = await handler.handle({ type: 'shard', reqId: 9, resource: 'media', path: (wanted[0] as Shard).path });
    expect(result(again).path).toBe(result(answers[0] as ShardResultMessage).path);
    expect(server.totalRequests).toBe(4);
  });

  it('a shard missing on the first map mirror is found beside the next mirror', async () => {
    const shards: Shard[] = [{ path: 'part/a.bin', data: randomBytes(3000) }];
    const resource = publishShardSet(server, '/m2', shards);
    // Mirror 1 serves the same map but has no shards (and lies about one).
    server.serveBytes('/m1/map.json', await readFile(await materializeResource(cache, resource)));
    server.serveBytes('/m1/part/a.bin', randomBytes(3000));
    const twoMirrors: Resource = { ...resource, sources: [server.url('/m1/map.json'), server.url('/m2/map.json')] };
    const mapPath = cache.pathFor(resource.sha256);
    const path = await fetchShard(cache, twoMirrors, mapPath, 'part/a.bin');
    expect((await readFile(path)).equals((shards[0] as Shard).data)).toBe(true);
    expect(server.statsFor('/m1/part/a.bin').requests).toBe(1);
    expect(server.statsFor('/m2/part/a.bin').requests).toBe(1);
  });

  it('a shard with its own sources is fetched from them, pinned by the map', async () => {
    const data = randomBytes(2000);
    server.serveBytes('/elsewhere/blob', data);
    const map = Buffer.from(
      JSON.stringify({
        shards: [{ path: 'x/y.bin', sha256: sha256Hex(data), size: data.length, sources: [server.url('/elsewhere/blob')] }],
      }),
    );
    server.serveBytes('/own/map.json', map);
    const resource: Resource = {
      id: 'media',
      kind: 'dataset',
      format: 'shardset',
      sources: [server.url('/own/map.json')],
      sha256: sha256Hex(map),
      size: map.length,
    };
    const handler = new ShardRequestHandler(cache, { resources: [resource] });
    const answer = await handler.handle({ type: 'shard', reqId: 1, resource: 'media', path: 'x/y.bin' });
    expect((await readFile(result(answer).path ?? '')).equals(data)).toBe(true);
    expect(server.statsFor('/own/x/y.bin').requests).toBe(0);
  });

  it('the trust chain holds: a shard served with other bytes than its map pins is an error answer', async () => {
    const shards: Shard[] = [{ path: 's.bin', data: randomBytes(500) }];
    const resource = publishShardSet(server, '/tamper', shards);
    server.serveBytes('/tamper/s.bin', randomBytes(500));
    const handler = new ShardRequestHandler(cache, { resources: [resource] });
    const answer = await handler.handle({ type: 'shard', reqId: 4, resource: 'media', path: 's.bin' });
    expect(answer).toMatchObject({ type: 'shard.result', reqId: 4 });
    // The tool learns that the download failed, not the URLs, sizes or hashes involved.
    expect(result(answer).error).toMatch(/^E_DOWNLOAD: The host could not download shard "s.bin" of resource "media"/);
    expect(result(answer).error).not.toMatch(/[0-9a-f]{64}|127\.0\.0\.1|500/);
  });

  it('a map whose bytes differ from the manifest pin is refused before any shard is fetched', async () => {
    const shards: Shard[] = [{ path: 's.bin', data: randomBytes(500) }];
    const resource = publishShardSet(server, '/badmap', shards);
    server.serveBytes('/badmap/map.json', Buffer.from('{"shards":[]}'));
    const handler = new ShardRequestHandler(cache, { resources: [resource] });
    const answer = await handler.handle({ type: 'shard', reqId: 1, resource: 'media', path: 's.bin' });
    expect(result(answer).error).toMatch(/^E_DOWNLOAD: /);
    expect(server.statsFor('/badmap/s.bin').requests).toBe(0);
  });

  it('answers errors for undeclared resources, non-shardsets, unknown and bad paths; throws E_PROTOCOL on malformed requests', async () => {
    const shards: Shard[] = [{ path: 'a.bin', data: randomBytes(10) }];
    const resource = publishShardSet(server, '/errs', shards);
    const plain: Resource = { id: 'plain', kind: 'dataset', sources: [server.url('/errs/a.bin')], sha256: 'b'.repeat(64), size: 10 };
    const handler = new ShardRequestHandler(cache, { resources: [resource, plain] });
    const ask = async (res: string, path: string): Promise<string | undefined> =>
      result(await handler.handle({ type: 'shard', reqId: 1, resource: res, path })).error;
    expect(await ask('other', 'a.bin')).toMatch(/^E_NOT_FOUND: Resource "other" is not declared by this tool/);
    expect(await ask('plain', 'a.bin')).toMatch(/^E_NOT_FOUND: Resource "plain" is not a shard set/);
    expect(await ask('media', 'nope.bin')).toMatch(/^E_NOT_FOUND: Shard "nope.bin" is not listed/);
    expect(await ask('media', '../a.bin')).toMatch(/^E_PATH: /);
    await expect(handler.handle({ type: 'shard', reqId: 'x', resource: 'media', path: 'a.bin' })).rejects.toMatchObject({
      code: 'E_PROTOCOL',
    });
    await expect(handler.handle({ type: 'shard', reqId: 1.5, resource: 'media', path: 'a.bin' })).rejects.toMatchObject({
      code: 'E_PROTOCOL',
    });
  });

  it('an entitled shard set asks the authoriser for the map and for each shard', async () => {
    const shards: Shard[] = [{ path: 'a.bin', data: randomBytes(100) }];
    const base = publishShardSet(server, '/ent', shards);
    const resource: Resource = { ...base, access: 'entitled', entitlement: 'pro' };
    const urls: string[] = [];
    const handler = new ShardRequestHandler(cache, {
      resources: [resource],
      // This server plays the installing registry: the authoriser is asked only about its URLs.
      policy: { registry: server.url('/') },
      authorize: async (request, url) => {
        urls.push(`${request.kind}:${request.id}:${url.replace(server.origin, '')}`);
        return { headers: { 'x-token': 't' } };
      },
    });
    const answer = await handler.handle({ type: 'shard', reqId: 1, resource: 'media', path: 'a.bin' });
    expect(result(answer).error).toBeUndefined();
    expect(urls).toEqual(['resource:media:/ent/map.json', 'resource:media:/ent/a.bin']);
    expect(server.requests.every((r) => r.headers['x-token'] === 't')).toBe(true);
  });
});
