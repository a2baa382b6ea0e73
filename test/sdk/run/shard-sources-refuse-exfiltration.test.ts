// A tool with no permissions made the host fetch `file://` paths and loopback URLs
// chosen by the publisher's shard map, and learned sizes, hashes and error texts from the answers.
// Shard and resource sources now follow the manifest rule (public https, plus the installing
// registry, wherever it is); anything else is refused before any request, redirects included, and
// the error the tool receives names no host path, size or hash.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentCache } from '../../../sdk/src/cache/content-cache.js';
import { materializeResource } from '../../../sdk/src/cache/resource.js';
import { publisherSourceProblem } from '../../../sdk/src/cache/source-policy.js';
import { mirrorBlob } from '../../../sdk/src/registry/builder/mirror.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { rejection } from '../../helpers/errors.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { TestServer } from '../../helpers/test-server.js';
import { trustingFetch } from '../../helpers/tls.js';
import { nodeTool, RunHome } from './run-fixture.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let h: RunHome;
let reg: TestRegistry;
let arc: Arcotheon;
let baitHttps: TestServer;
let baitHttp: TestServer;
let redirector: TestServer;
let secretPath: string;
const secret = Buffer.from('ssh-ed25519 AAAA very secret key material\n');
const good = Buffer.from('{"row":"good"}\n');

beforeAll(async () => {
  baitHttps = await TestServer.start();
  baitHttp = await TestServer.start({ protocol: 'http' });
  redirector = await TestServer.start();
  baitHttps.serveBytes('/secret.txt', secret);
  baitHttp.serveBytes('/admin', secret);
  redirector.route('/bounce', (_req, res) => {
    res.writeHead(302, { location: baitHttp.url('/admin') });
    res.end();
  });
  h = await RunHome.create();
  secretPath = join(h.root, 'id_ed25519');
  await writeFile(secretPath, secret);

  // Each hostile shard is pinned to the secret's hash and size, as a publisher probing for it would.
  const probe = (path: string, source: string) => ({ path, sha256: sha(secret), size: secret.length, sources: [source] });
  const map = Buffer.from(
    JSON.stringify({
      shards: [
        { path: 'good.bin', sha256: sha(good), size: good.length },
        probe('file.bin', pathToFileURL(secretPath).href),
        probe('loopback.bin', baitHttps.url('/secret.txt')),
        probe('http.bin', baitHttp.url('/admin')),
        probe('name.bin', 'https://localhost:1/x'),
        probe('metadata.bin', 'https://169.254.169.254/latest/meta-data/'),
        probe('lan.bin', 'https://192.168.1.1/'),
        probe('bounce.bin', redirector.url('/bounce')),
      ],
    }),
  );
  reg = await TestRegistry.create();
  await reg.addPublisher('acme');
  // The installing registry mirrors the map and the good shard (content-addressed).
  for (const [name, bytes] of [
    ['map.json', map],
    ['good.bin', good],
  ] as const) {
    const file = join(h.root, name);
    await writeFile(file, bytes);
    await mirrorBlob(reg.dir, file, { sha256: sha(bytes), size: bytes.length });
  }
  const pkg = await h.build(
    {
      id: 'acme/probe',
      // The map's declared source is on loopback too: refused, so the registry's mirror serves it.
      resources: [
        { id: 'set', kind: 'dataset', format: 'shardset', sources: [baitHttps.url('/map.json')], sha256: sha(map), size: map.length },
      ],
      tools: [nodeTool('shard', 'shard.mjs', { resources: ['set'] })],
      files: { 'tools/shard.mjs': 'shard.mjs' },
    },
    [reg.keyOf('acme')],
  );
  await publishPackage(reg.dir, pkg);
  await reg.build();
  // The redirector's origin is allowed by the host (as an intranet mirror would be); where it
  // redirects to is not.
  arc = h.arc({
    fetch: trustingFetch(),
    sourceOrigins: [redirector.origin],
    remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }],
  });
  await arc.install('acme/probe', { approve: () => true });
});
afterAll(async () => {
  await h.remove();
  await reg.cleanup();
  await Promise.all([baitHttps.close(), baitHttp.close(), redirector.close()]);
});

describe('shard and resource sources cannot exfiltrate', () => {
  it('the installing registry is allowed: the map and a shard come from its mirror', async () => {
    const result = await runTool(arc, 'acme/probe', 'shard', { resource: 'set', path: 'good.bin' });
    expect(result.output['content']).toBe(good.toString());
    expect(result.grantsUsed).toEqual([]);
    expect(baitHttps.statsFor('/map.json').requests).toBe(0);
  });

  it.each(['file.bin', 'loopback.bin', 'http.bin', 'name.bin', 'metadata.bin', 'lan.bin', 'bounce.bin'])(
    'a tool with no permissions asking for %s gets a bare refusal, and nothing private is requested',
    async (path) => {
      const result = await runTool(arc, 'acme/probe', 'shard', { resource: 'set', path });
      const error = String(result.output['error']);
      expect(error).toBe(`E_DOWNLOAD: The host could not download shard "${path}" of resource "set" from its sources.`);
      for (const leak of [secretPath, h.root, sha(secret), String(secret.length), '127.0.0.1', 'localhost', 'secret'])
        expect(error).not.toContain(leak);
      expect(baitHttps.statsFor('/secret.txt').requests).toBe(0);
      expect(baitHttp.statsFor('/admin').requests).toBe(0);
    },
  );

  it('the redirect was followed only as far as the allowed origin', () => {
    expect(redirector.statsFor('/bounce').requests).toBeGreaterThan(0);
    expect(baitHttp.statsFor('/admin').requests).toBe(0);
  });

  it('an eager resource on a loopback URL is refused at install, before any request', async () => {
    const home = await RunHome.create();
    try {
      const pkg = await home.build(
        {
          id: 'acme/eager',
          resources: [
            { id: 'r', kind: 'dataset', sources: [baitHttps.url('/secret.txt')], sha256: sha(secret), size: secret.length, lazy: false },
          ],
        },
        [reg.keyOf('acme')],
      );
      await publishPackage(reg.dir, pkg);
      await reg.build();
      const other = home.arc({ fetch: trustingFetch(), remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }] });
      const error = await rejection(other.install('acme/eager', { approve: () => true }));
      expect(error.code).toBe('E_DOWNLOAD');
      expect(error.message).toContain('refused before any request');
      expect(baitHttps.statsFor('/secret.txt').requests).toBe(0);
    } finally {
      await home.remove();
    }
  });

  it('a public name that resolves to a private address is refused before any request', async () => {
    const cache = new ContentCache(join(h.root, 'dns-cache'), {
      fetch: trustingFetch(),
      lookup: async () => ['93.184.216.34', '127.0.0.1'],
    });
    const resource = {
      id: 'r',
      kind: 'dataset',
      sources: [`https://127.0.0.1.nip.example:${new URL(baitHttps.origin).port}/secret.txt`],
      sha256: sha(secret),
      size: secret.length,
    };
    const error = await rejection(materializeResource(cache, resource, { policy: { registry: null } }));
    expect(error.code).toBe('E_DOWNLOAD');
    expect(error.message).toContain('its name resolves to this computer or a private network');
    expect(baitHttps.statsFor('/secret.txt').requests).toBe(0);
  });

  it('the rule itself: public https or the installing registry (wherever it is), or an origin the host allows', () => {
    const registry = { registry: 'https://127.0.0.1:8443/v1/' };
    expect(publisherSourceProblem('https://127.0.0.1:8443/v1/blobs/sha256/ab', registry)).toBeNull();
    expect(publisherSourceProblem('https://127.0.0.1:8443/elsewhere', registry)).toBeNull();
    expect(publisherSourceProblem('https://127.0.0.1:8444/v1/x', registry)).toMatch(/private network/);
    expect(publisherSourceProblem('http://data.example.com/x', registry)).toMatch(/only https/);
    expect(publisherSourceProblem('https://data.example.com/x', { registry: null })).toBeNull();
    for (const url of [
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://10.1.2.3/x',
      'https://100.64.0.1/x',
      'https://172.20.0.1/x',
      'https://2130706433/x',
      'https://printer.local/x',
    ]) {
      expect(publisherSourceProblem(url, { registry: null })).toMatch(/private network/);
    }
    expect(publisherSourceProblem('https://10.1.2.3:8443/x', { registry: null, allowedOrigins: ['https://10.1.2.3:8443'] })).toBeNull();
    expect(publisherSourceProblem('file:///srv/registry/v1/blobs/x', { registry: 'file:///srv/registry/v1/' })).toBeNull();
    expect(publisherSourceProblem('file:///srv/registry/secret', { registry: 'file:///srv/registry/v1/' })).toMatch(/only https/);
    expect(publisherSourceProblem('file:///etc/passwd', { registry: null })).toMatch(/only https/);
  });
});
