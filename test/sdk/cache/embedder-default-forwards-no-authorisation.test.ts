// The exported materializeResource and fetchShard, called by an embedder without a `policy`, used
// to ask the host's authoriser about every source URL and send its grant (the user's entitlement
// token, a signed URL) to whatever host the publisher wrote into the manifest. The safe behaviour
// is now the default (SECURITY.md "The authoriser sees only registry URLs"): without a policy
// naming the installing registry the authoriser is asked about no URL, and no grant leaves.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuthorizeFn } from '../../../sdk/src/cache/authorize.js';
import type { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource } from '../../../sdk/src/cache/resource.js';
import { fetchShard } from '../../../sdk/src/cache/shardset.js';
import type { Resource } from '../../../sdk/src/format/manifest-types.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { useCacheFixture } from '../../helpers/cache-fixture.js';
import { rejection } from '../../helpers/errors.js';
import type { TestServer } from '../../helpers/test-server.js';

const TOKEN = 'Bearer the-users-entitlement-token';

/** An authoriser that records what it is asked about and grants the user's token. */
function recordingAuthorizer(): { fn: AuthorizeFn; asked: string[] } {
  const asked: string[] = [];
  return { asked, fn: (_request, url) => (asked.push(url), { headers: { authorization: TOKEN } }) };
}

describe('without a policy, no authorisation reaches a publisher-chosen host', () => {
  let server: TestServer;
  let cache: ContentCache;
  useCacheFixture('adcap-embedder-auth-', (fx) => {
    ({ server, cache } = fx);
  });
  const data = randomBytes(4_000);
  const tokensSeen = (): string[] => server.requests.map((r) => r.headers['authorization']).filter((h): h is string => h !== undefined);

  it('materializeResource: the authoriser is not asked and the publisher host gets no token', async () => {
    // The publisher's "CDN" serves the bytes to anyone, and would log the token if it got one.
    server.serveBytes('/collect/data.bin', data);
    const auth = recordingAuthorizer();
    const resource: Resource = {
      id: 'data',
      kind: 'dataset',
      access: 'entitled',
      sources: [server.url('/collect/data.bin')],
      sha256: sha256Hex(data),
      size: data.length,
    };
    await materializeResource(cache, resource, { authorize: auth.fn });
    expect(auth.asked).toEqual([]);
    expect(server.statsFor('/collect/data.bin').requests).toBe(1);
    expect(tokensSeen()).toEqual([]);
  });

  it('fetchShard: the same for the shards of an entitled shard set', async () => {
    const shard = randomBytes(1_000);
    server.serveBytes('/set/a.bin', shard);
    const map = Buffer.from(JSON.stringify({ shards: [{ path: 'a.bin', sha256: sha256Hex(shard), size: shard.length }] }));
    server.serveBytes('/set/map.json', map);
    const resource: Resource = {
      id: 'media',
      kind: 'dataset',
      format: 'shardset',
      access: 'entitled',
      sources: [server.url('/set/map.json')],
      sha256: sha256Hex(map),
      size: map.length,
    };
    const auth = recordingAuthorizer();
    const mapPath = await materializeResource(cache, resource, { authorize: auth.fn });
    await fetchShard(cache, resource, mapPath, 'a.bin', { authorize: auth.fn });
    expect(auth.asked).toEqual([]);
    expect(server.statsFor('/set/a.bin').requests).toBe(1);
    expect(tokensSeen()).toEqual([]);
  });

  it('a host that fetches entitled content names its registry in the policy, and only that registry gets the grant', async () => {
    server.serveBytes('/v1/blobs/sha256/entitled', data, { requireHeaders: { authorization: TOKEN } });
    const auth = recordingAuthorizer();
    const resource: Resource = {
      id: 'data',
      kind: 'dataset',
      access: 'entitled',
      sources: [server.url('/v1/blobs/sha256/entitled')],
      sha256: sha256Hex(data),
      size: data.length,
    };
    // Without the policy the registry refuses (no token was sent): the default really sends nothing.
    expect(await rejection(materializeResource(cache, resource, { authorize: auth.fn }))).toMatchObject({ code: 'E_DOWNLOAD' });
    await materializeResource(cache, resource, { authorize: auth.fn, policy: { registry: server.url('/v1/') } });
    expect(auth.asked).toEqual([server.url('/v1/blobs/sha256/entitled')]);
  });
});
