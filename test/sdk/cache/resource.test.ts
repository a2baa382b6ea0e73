import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from '../../../sdk/src/cache/authorize.js';
import type { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { isLazy, materializeResource } from '../../../sdk/src/cache/resource.js';
import type { Resource } from '../../../sdk/src/format/manifest-types.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import type { TestServer } from '../../helpers/test-server.js';
import { useCacheFixture } from '../../helpers/cache-fixture.js';
import { rejection } from '../../helpers/errors.js';

describe('materializeResource', () => {
  let server: TestServer;
  let cache: ContentCache;
  const data = randomBytes(120_000);
  const sha256 = sha256Hex(data);
  useCacheFixture('arcotheon-resource-', (fx) => {
    ({ server, cache } = fx);
  });

  const resource = (over: Partial<Resource>): Resource => ({
    id: 'data',
    kind: 'dataset',
    sources: [],
    sha256,
    size: data.length,
    ...over,
  });

  it('dedupe-across-versions: two versions (and an archive) pinning the same bytes fetch them once', async () => {
    server.serveBytes('/v1/data.bin', data);
    server.serveBytes('/v2/data.bin', data);
    const v1 = resource({ id: 'embeddings', sources: [server.url('/v1/data.bin')] });
    const v2 = resource({ id: 'vectors', sources: [server.url('/v2/data.bin')] });
    const p1 = await materializeResource(cache, v1);
    const p2 = await materializeResource(cache, v2);
    const p3 = await cache.fetchBlob({ sha256, size: data.length, sources: [server.url('/v2/data.bin')] });
    expect(p1).toBe(p2);
    expect(p3).toBe(p1);
    expect((await readFile(p1)).equals(data)).toBe(true);
    const requests = server.statsFor('/v1/data.bin').requests + server.statsFor('/v2/data.bin').requests;
    console.log(`dedupe: requests=${requests} bytes=${server.totalBytes} size=${data.length}`);
    expect(requests).toBe(1);
    expect(server.totalBytes).toBe(data.length);
  });

  it('a cached resource damaged on disk (same size) is detected on read and fetched again, never handed to the tool', async () => {
    server.serveBytes('/r/data.bin', data);
    const r = resource({ sources: [server.url('/r/data.bin')] });
    const path = await materializeResource(cache, r);
    await chmod(path, 0o644);
    const bad = Buffer.from(data);
    bad[100] = (bad[100] ?? 0) ^ 0x55;
    await writeFile(path, bad);
    const again = await materializeResource(cache, r);
    expect((await readFile(again)).equals(data)).toBe(true);
    expect(server.statsFor('/r/data.bin').requests).toBe(2);
  });

  // The authoriser is asked only about URLs on the registry the policy names (SECURITY.md "The
  // authoriser sees only registry URLs"); this server plays the registry.
  const onRegistry = () => ({ registry: server.url('/v1/') });

  it('entitled-denied: a null answer from authorize is E_ENTITLEMENT and nothing is requested', async () => {
    server.serveBytes('/pro/data.bin', data);
    const seen: { request: AuthorizeRequest; url: string }[] = [];
    const error = await rejection(
      materializeResource(cache, resource({ access: 'entitled', entitlement: 'pro', sources: [server.url('/pro/data.bin')] }), {
        authorize: async (request, url) => {
          seen.push({ request, url });
          return null;
        },
        policy: onRegistry(),
      }),
    );
    expect(error.code).toBe('E_ENTITLEMENT');
    expect(error.message).toContain('Access to resource data was denied by the authorize callback; it needs an entitlement ("pro")');
    expect(seen).toEqual([{ request: { kind: 'resource', id: 'data', entitlement: 'pro' }, url: server.url('/pro/data.bin') }]);
    expect(server.totalRequests).toBe(0);
  });

  it('entitled with no authorize callback is E_ENTITLEMENT', async () => {
    const error = await rejection(materializeResource(cache, resource({ access: 'entitled', sources: [server.url('/pro/data.bin')] })));
    expect(error.code).toBe('E_ENTITLEMENT');
    expect(error.message).toContain('no authorize callback');
  });

  it('entitled-allowed-with-headers: the server sees the header the authoriser returned', async () => {
    server.serveBytes('/pro/guarded.bin', data, { requireHeaders: { authorization: 'Bearer tok-123' } });
    const guarded = resource({ access: 'entitled', entitlement: 'pro', sources: [server.url('/pro/guarded.bin')] });
    // Without the header the server refuses: the test would notice an authoriser that is ignored.
    const refused = await rejection(materializeResource(cache, guarded, { authorize: async () => ({}), policy: onRegistry() }));
    expect(refused.message).toContain('HTTP 403');
    const path = await materializeResource(cache, guarded, {
      authorize: async () => ({ headers: { authorization: 'Bearer tok-123' } }),
      policy: onRegistry(),
    });
    expect((await readFile(path)).equals(data)).toBe(true);
    const last = server.requests.at(-1);
    expect(last?.headers.authorization).toBe('Bearer tok-123');
    // Cached now: no further authorisation or request.
    let asked = 0;
    await materializeResource(cache, guarded, {
      authorize: async () => {
        asked += 1;
        return null;
      },
      policy: onRegistry(),
    });
    expect(asked).toBe(0);
  });

  it('an authorised URL and its headers never appear in error messages', async () => {
    const signed = server.url('/signed/missing.bin?sig=SECRET-SIGNATURE');
    const error = await rejection(
      materializeResource(cache, resource({ access: 'entitled', sources: [server.url('/public/data.bin')] }), {
        authorize: async () => ({ url: signed, headers: { authorization: 'Bearer SECRET-TOKEN' } }),
        policy: onRegistry(),
      }),
    );
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('/public/data.bin');
    expect(JSON.stringify({ m: error.message, d: error.details })).not.toMatch(/SECRET/);
    expect(server.requests.at(-1)?.path).toBe('/signed/missing.bin');
  });

  it('an authoriser may hand back a time-limited URL that is then used', async () => {
    server.serveBytes('/signed/data.bin', data);
    const path = await materializeResource(cache, resource({ access: 'entitled', sources: [server.url('/public/data.bin')] }), {
      authorize: async () => ({ url: server.url('/signed/data.bin?exp=1') }),
      policy: onRegistry(),
    });
    expect((await readFile(path)).equals(data)).toBe(true);
    expect(server.statsFor('/public/data.bin').requests).toBe(0);
    expect(server.statsFor('/signed/data.bin').requests).toBe(1);
  });

  it('an authoriser returning a refused URL is E_ENTITLEMENT without repeating the URL', async () => {
    const error = await rejection(
      materializeResource(cache, resource({ access: 'entitled', sources: [server.url('/x.bin')] }), {
        authorize: async () => ({ url: 'http://files.example.com/x?token=SECRET' }),
        policy: onRegistry(),
      }),
    );
    expect(error.code).toBe('E_ENTITLEMENT');
    expect(error.message).not.toContain('SECRET');
  });

  it('reports download progress', async () => {
    server.serveBytes('/p.bin', data);
    const events: { phase: string; done: number; total?: number }[] = [];
    await materializeResource(cache, resource({ sources: [server.url('/p.bin')] }), { onProgress: (p) => events.push(p) });
    expect(events[0]).toEqual({ phase: 'download', done: 0, total: data.length });
    expect(events.at(-1)).toEqual({ phase: 'download', done: data.length, total: data.length });
  });

  it('isLazy follows spec §9 (default true)', () => {
    expect(isLazy(resource({}))).toBe(true);
    expect(isLazy(resource({ lazy: true }))).toBe(true);
    expect(isLazy(resource({ lazy: false }))).toBe(false);
  });
});
