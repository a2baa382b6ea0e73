// Entitlement headers could be sent to any host a publisher names, because the
// host's authorize callback was asked about every source URL. It is now asked only about URLs on
// the installing registry (the party the entitlement is with); a publisher-chosen source is
// fetched without the authoriser's headers or signed URL, and a sideload has no registry at all.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizeFn } from '../../../sdk/src/cache/authorize.js';
import { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource } from '../../../sdk/src/cache/resource.js';
import { mirrorBlob } from '../../../sdk/src/registry/builder/mirror.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { rejection } from '../../helpers/errors.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { TestServer } from '../../helpers/test-server.js';
import { trustingFetch } from '../../helpers/tls.js';
import { RunHome } from '../run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const data = Buffer.from('entitled bytes\n'.repeat(100));
const TOKEN = 'Bearer user-entitlement-token';

let registryServer: TestServer;
let publisherServer: TestServer;
let dir: string;

beforeAll(async () => {
  registryServer = await TestServer.start();
  publisherServer = await TestServer.start();
  dir = await mkdtemp(join(tmpdir(), 'adcap-authorize-'));
});
afterAll(async () => {
  await Promise.all([registryServer.close(), publisherServer.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** An authoriser that records every URL it is asked about and grants the user's token. */
function recordingAuthorizer(): { fn: AuthorizeFn; asked: string[] } {
  const asked: string[] = [];
  return { asked, fn: async (_request, url) => (asked.push(url), { headers: { authorization: TOKEN } }) };
}

describe("authorize sees only the installing registry's URLs", () => {
  it("the publisher's source is fetched without the token; the registry's mirror gets it", async () => {
    publisherServer.resetStats();
    publisherServer.serveBytes('/collect/data.bin', Buffer.from('not it'));
    registryServer.serveBytes(`/v1/blobs/sha256/${sha256Hex(data)}`, data, { requireHeaders: { authorization: TOKEN } });
    const cache = new ContentCache(join(dir, 'cache-1'), { fetch: trustingFetch() });
    const auth = recordingAuthorizer();
    const path = await materializeResource(
      cache,
      {
        id: 'data',
        kind: 'dataset',
        access: 'entitled',
        sources: [publisherServer.url('/collect/data.bin')],
        sha256: sha256Hex(data),
        size: data.length,
      },
      {
        authorize: auth.fn,
        mirrors: [registryServer.url('/v1/blobs/sha256/')],
        policy: { registry: registryServer.url('/v1/'), allowedOrigins: [publisherServer.origin] },
      },
    );
    expect(path).toBe(cache.pathFor(sha256Hex(data)));
    expect(auth.asked).toEqual([registryServer.url(`/v1/blobs/sha256/${sha256Hex(data)}`)]);
    const toPublisher = publisherServer.requests.filter((r) => r.path === '/collect/data.bin');
    expect(toPublisher.length).toBeGreaterThan(0);
    expect(toPublisher.map((r) => r.headers['authorization']).filter((h) => h !== undefined)).toEqual([]);
  });

  it('a sideload has no registry: the authoriser is asked about nothing', async () => {
    publisherServer.serveBytes('/side/data.bin', data, { requireHeaders: { authorization: TOKEN } });
    const cache = new ContentCache(join(dir, 'cache-2'), { fetch: trustingFetch() });
    const auth = recordingAuthorizer();
    const error = await rejection(
      materializeResource(
        cache,
        {
          id: 'data',
          kind: 'dataset',
          access: 'entitled',
          sources: [publisherServer.url('/side/data.bin')],
          sha256: sha256Hex(data),
          size: data.length,
        },
        { authorize: auth.fn, policy: { registry: null, allowedOrigins: [publisherServer.origin] } },
      ),
    );
    expect(error.code).toBe('E_DOWNLOAD');
    expect(auth.asked).toEqual([]);
    expect(publisherServer.requests.filter((r) => r.path === '/side/data.bin').every((r) => r.headers['authorization'] === undefined)).toBe(
      true,
    );
  });

  it('through install: an entitled eager resource asks the authoriser only about the registry mirror', async () => {
    const reg = await TestRegistry.create();
    const h = await RunHome.create();
    try {
      publisherServer.resetStats();
      publisherServer.serveBytes('/cdn/data.bin', Buffer.from('decoy'));
      await reg.addPublisher('acme');
      const blob = join(h.root, 'data.bin');
      await writeFile(blob, data);
      await mirrorBlob(reg.dir, blob, { sha256: sha256Hex(data), size: data.length });
      const pkg = await h.build(
        {
          id: 'acme/pro',
          resources: [
            {
              id: 'data',
              kind: 'dataset',
              access: 'entitled',
              entitlement: 'pro',
              sources: [publisherServer.url('/cdn/data.bin')],
              sha256: sha256Hex(data),
              size: data.length,
              lazy: false,
            },
          ],
        },
        [reg.keyOf('acme')],
      );
      await publishPackage(reg.dir, pkg);
      await reg.build();
      const auth = recordingAuthorizer();
      const arc = h.arc({
        fetch: trustingFetch(),
        authorize: auth.fn,
        sourceOrigins: [publisherServer.origin],
        remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }],
      });
      await arc.install('acme/pro', { approve: () => true });
      expect(await storeOf(arc).cache.has(sha256Hex(data), data.length)).toBe(true);
      expect(auth.asked.length).toBeGreaterThan(0);
      for (const url of auth.asked) expect(url.startsWith(reg.v1Url)).toBe(true);
      const toPublisher = publisherServer.requests.filter((r) => r.path === '/cdn/data.bin');
      expect(toPublisher.length).toBeGreaterThan(0);
      expect(toPublisher.map((r) => r.headers['authorization']).filter((h) => h !== undefined)).toEqual([]);
    } finally {
      await reg.cleanup();
      await h.remove();
    }
  });
});
