// A publisher's resource source that the host refuses (spec §9 sources are https mirrors; the
// host never fetches a private address a publisher chose unless it is on the installing registry
// or an origin the host allows) used to surface as the registry mirror's file error:
// `cannot be read (ENOENT … blobs/sha256/<hex>)`, a host path and a cause that was not the cause.
// The error now says the source was refused, why, and that the registry keeps no copy.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource } from '../../../sdk/src/cache/resource.js';
import { resolveUrl } from '../../../sdk/src/cache/fetch.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { rejection } from '../../helpers/errors.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { TestServer } from '../../helpers/test-server.js';
import { trustingFetch } from '../../helpers/tls.js';
import { RunHome } from '../run/run-fixture.js';

const data = Buffer.from('{"row":1}\n');
const sha256 = createHash('sha256').update(data).digest('hex');

let h: RunHome;
let reg: TestRegistry;
let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start();
  server.serveBytes('/data.jsonl', data);
  h = await RunHome.create();
  reg = await TestRegistry.create();
  await reg.addPublisher('acme');
});
afterAll(async () => {
  await h.remove();
  await reg.cleanup();
  await server.close();
});

describe('a refused publisher source is reported as refused', () => {
  it('install of an eager resource on a private address, with no registry mirror, says the source was refused and why', async () => {
    const pkg = await h.build(
      {
        id: 'acme/private-data',
        resources: [{ id: 'rows', kind: 'dataset', sources: [server.url('/data.jsonl')], sha256, size: data.length, lazy: false }],
      },
      [reg.keyOf('acme')],
    );
    await publishPackage(reg.dir, pkg);
    await reg.build();
    const arc = h.arc({ fetch: trustingFetch(), remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }] });
    const error = await rejection(arc.install('acme/private-data', { approve: () => true }));
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('resource "rows"');
    expect(error.message).toContain(`${server.url('/data.jsonl')} was refused`);
    expect(error.message).toContain('points at this computer or a private network');
    expect(error.message).toContain('the registry has no copy of it');
    // The registry mirror's absence is not the cause: no file error, no host path.
    for (const misleading of ['ENOENT', 'cannot be read', reg.dir, `blobs/sha256/${sha256}`])
      expect(error.message).not.toContain(misleading);
    expect(error.details['refused']).toEqual([
      { source: server.url('/data.jsonl'), reason: expect.stringContaining('private network') as unknown },
    ]);
    expect(server.statsFor('/data.jsonl').requests).toBe(0);
  });

  it('the same through an https registry mirror that answers 404', async () => {
    const mirror = await TestServer.start();
    try {
      const cache = new ContentCache(join(h.root, 'https-cache'), { fetch: trustingFetch() });
      const resource = { id: 'rows', kind: 'dataset', sources: ['https://10.1.2.3/rows.jsonl'], sha256, size: data.length };
      const error = await rejection(
        materializeResource(cache, resource, {
          policy: { registry: mirror.url('/v1/') },
          mirrors: [resolveUrl(mirror.url('/v1/'), 'blobs/sha256/')],
        }),
      );
      expect(error.code).toBe('E_DOWNLOAD');
      expect(error.message).toContain('https://10.1.2.3/rows.jsonl was refused');
      expect(error.message).toContain('the registry has no copy of it');
      expect(error.message).not.toContain('HTTP 404');
      expect(mirror.statsFor(`/v1/blobs/sha256/${sha256}`).requests).toBe(1);
    } finally {
      await mirror.close();
    }
  });

  it('a refused source beside a mirror that failed otherwise names both causes', async () => {
    const broken = await TestServer.start();
    broken.route(`/v1/blobs/sha256/${sha256}`, (_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      const cache = new ContentCache(join(h.root, 'broken-cache'), { fetch: trustingFetch() });
      const resource = { id: 'rows', kind: 'dataset', sources: ['https://192.168.1.1/rows.jsonl'], sha256, size: data.length };
      const error = await rejection(
        materializeResource(cache, resource, {
          policy: { registry: broken.url('/v1/') },
          mirrors: [resolveUrl(broken.url('/v1/'), 'blobs/sha256/')],
        }),
      );
      expect(error.message).toContain('https://192.168.1.1/rows.jsonl was refused');
      expect(error.message).toContain('HTTP 500');
    } finally {
      await broken.close();
    }
  });

  it('a source the host allows is fetched', async () => {
    const cache = new ContentCache(join(h.root, 'allowed-cache'), { fetch: trustingFetch() });
    const resource = { id: 'rows', kind: 'dataset', sources: [server.url('/data.jsonl')], sha256, size: data.length };
    const path = await materializeResource(cache, resource, { policy: { registry: null, allowedOrigins: [server.origin] } });
    expect(path).toBe(cache.pathFor(sha256));
  });
});
