/**
 * One test per attack on the registry client (python-tuf's repository simulator style):
 * a real registry built by the real builder, tampered with file by file, and the exact code the
 * client must refuse it with.
 */
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from '../../../../sdk/src/cache/authorize.js';
import { ContentCache } from '../../../../sdk/src/cache/content-cache.js';
import { revokeKey, revokeVersion, yankVersion } from '../../../../sdk/src/registry/builder/maintain.js';
import { RegistryClient } from '../../../../sdk/src/registry/client/registry-client.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { signPackage } from '../../../../sdk/src/trust/package-signature.js';
import { TestRegistry } from '../../../helpers/test-registry.js';
import { TestServer } from '../../../helpers/test-server.js';
import { trustingFetch } from '../../../helpers/tls.js';

let reg: TestRegistry;
let home: string;
let cache: ContentCache;
const DAY = 86_400_000;

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-client-home-'));
  cache = new ContentCache(join(home, 'cache'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('registry client attacks (spec §13, DESIGN §10)', () => {
  it('rollback: a catalogue with a lower sequence than the one already seen is E_ROLLBACK', async () => {
    const old = await reg.read('v1/catalog.json');
    await reg.build();
    const client = reg.client(home);
    expect((await client.update()).payload.sequence).toBe(2);
    await reg.write('v1/catalog.json', old);
    await expect(reg.client(home).update()).rejects.toMatchObject({ code: 'E_ROLLBACK' });
    // The stored catalogue (the floor) is untouched.
    expect((await reg.client(home).catalogue({ refresh: 'never' })).payload.sequence).toBe(2);
  });

  it('same-sequence-other-content: a re-signed catalogue under the same sequence is E_ROLLBACK', async () => {
    const client = reg.client(home);
    const seen = await client.update();
    await reg.resignCatalogue((payload) => {
      const cap = payload.capabilities['acme/pdf'];
      if (cap !== undefined) cap.summary = 'now with a different summary';
    });
    const replayed = await reg.catalogueEnvelope();
    expect(replayed.payload.sequence).toBe(seen.payload.sequence);
    await expect(reg.client(home).update()).rejects.toMatchObject({ code: 'E_ROLLBACK' });
  });

  it('untrusted root: a catalogue signed by a key that is not pinned is E_CATALOG', async () => {
    await reg.resignCatalogue((payload) => ({ ...payload, sequence: payload.sequence + 1 }), { keys: [generateKey()] });
    await expect(reg.client(home).update()).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('package-context replay as catalogue: a root-key signature made in arcotheon-package-v1 is E_CATALOG', async () => {
    await reg.resignCatalogue((payload) => ({ ...payload, sequence: payload.sequence + 1 }), { context: 'arcotheon-package-v1' });
    await expect(reg.client(home).update()).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('stale catalogue: generatedAt older than maxCatalogAge (default 30 days) is E_STALE', async () => {
    await reg.build(new Date(Date.now() - 31 * DAY));
    await expect(reg.client(home).update()).rejects.toMatchObject({ code: 'E_STALE' });
    await reg.build(new Date(Date.now() - 3 * DAY));
    await expect(reg.client(home, { maxCatalogAgeMs: 2 * DAY }).update()).rejects.toMatchObject({ code: 'E_STALE' });
    await expect(reg.client(home).update()).resolves.toMatchObject({ payload: { sequence: 3 } });
  });

  it('stale catalogue offline: a stored catalogue past maxCatalogAge is refused too (freeze attack)', async () => {
    await reg.build(new Date(Date.now() - 20 * DAY));
    await reg.client(home).update();
    const later = () => new Date(Date.now() + 11 * DAY);
    await expect(reg.client(home, { now: later }).catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_STALE' });
  });

  it('shipped minimum sequence: a fresh client refuses a catalogue older than the app shipped with (E_ROLLBACK)', async () => {
    const client = new RegistryClient({ home, remote: reg.remote('test', reg.v1Url, { minSequence: 5 }) });
    await expect(client.update()).rejects.toMatchObject({ code: 'E_ROLLBACK' });
  });

  it('tampered document: a package document that does not match its pin is E_DOC_HASH', async () => {
    const doc = (await reg.read('v1/packages/acme/pdf.json')).toString('utf8');
    await reg.write('v1/packages/acme/pdf.json', doc.replace('Extract PDF text', 'Extract PDF text!'));
    await expect(reg.client(home).packageDoc('acme/pdf')).rejects.toMatchObject({ code: 'E_DOC_HASH' });
  });

  it('tampered stored catalogue: a catalogue edited under home/ is refused on load (E_CATALOG)', async () => {
    await reg.client(home).update();
    const path = join(home, 'remotes', 'test', 'catalog.json');
    const text = (await readFile(path)).toString('utf8');
    await writeFile(path, text.replace('Extract PDF text', 'Extract PDF text!'));
    await expect(reg.client(home).catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('swapped blob: a mirror serving another signed package for this version is E_DOWNLOAD', async () => {
    const other = await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build();
    const client = reg.client(home);
    const doc = await client.packageDoc('acme/pdf');
    const target = doc.versions['1.0.0']?.archive.sha256 as string;
    await copyFile(other.blobPath, reg.path(`v1/blobs/sha256/${target}.adcap`));
    await expect(client.downloadArchive('acme/pdf', '1.0.0', { cache })).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
    expect(await cache.has(target)).toBe(false);
  });

  it('a cached archive damaged on disk (same size) is detected when read and downloaded again', async () => {
    const client = reg.client(home);
    const first = await client.downloadArchive('acme/pdf', '1.0.0', { cache });
    const blob = await readFile(first.path);
    const bad = Buffer.from(blob);
    bad[bad.length - 100] = (bad[bad.length - 100] ?? 0) ^ 0xff;
    await chmod(first.path, 0o644);
    await writeFile(first.path, bad);
    expect(await cache.has(first.entry.archive.sha256, blob.length)).toBe(true);
    const again = await client.downloadArchive('acme/pdf', '1.0.0', { cache });
    expect(again.path).toBe(first.path);
    expect((await readFile(again.path)).equals(blob)).toBe(true);
  });

  it('an archive with the pinned manifest but other bytes (re-signed) is E_HASH: the archive pin is checked too', async () => {
    const client = reg.client(home);
    const first = await client.downloadArchive('acme/pdf', '1.0.0', { cache });
    const resigned = join(home, 'resigned.adcap');
    await copyFile(first.path, resigned);
    await signPackage(resigned, [generateKey()]);
    // A blob source that hands back other bytes than the pin (the content cache never does; the check must not rely on it).
    const lying = { fetchBlob: async () => resigned };
    await expect(client.downloadArchive('acme/pdf', '1.0.0', { cache: lying })).rejects.toMatchObject({ code: 'E_HASH' });
  });

  it('oversized catalogue (endless data): the download stops at the cap with E_DOWNLOAD', async () => {
    const server = await TestServer.start({ protocol: 'https' });
    try {
      server.serveEndless('/v1/catalog.json');
      const client = reg.client(home, { url: server.url('/v1/'), fetch: trustingFetch(), maxCatalogBytes: 1024 * 1024 });
      await expect(client.update()).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
      // Read at most a little past the cap (socket buffers), never the 256 MiB the server offers.
      expect(server.statsFor('/v1/catalog.json').bytes).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await server.close();
    }
  });

  it('a mirror that serves wrong bytes followed by a good mirror: the good one is used', async () => {
    const server = await TestServer.start({ protocol: 'https' });
    try {
      // Two mirrors in order: the registry's own blob (relative URL), then a second mirror.
      const pkg = await reg.publish({ id: 'acme/forms', version: '1.0.0' }, { urls: [server.url('/mirror/good.adcap')] });
      await reg.build();
      const url = await reg.mount(server);
      const good = await readFile(pkg.file);
      const blob = `/v1/blobs/sha256/${pkg.entry.archive.sha256}.adcap`;
      // The first mirror serves wrong bytes of the right length; the second the real archive.
      const wrong = Buffer.from(good);
      wrong[wrong.length - 5] = (wrong[wrong.length - 5] ?? 0) ^ 0xff;
      server.serveBytes(blob, wrong);
      server.serveBytes('/mirror/good.adcap', good);
      const fetch = trustingFetch();
      const client = reg.client(home, { url, fetch });
      const result = await client.downloadArchive('acme/forms', '1.0.0', { cache: new ContentCache(join(home, 'cache'), { fetch }) });
      expect(result.manifest.id).toBe('acme/forms');
      expect(result.signedBy).toEqual([reg.keyOf('acme').keyId]);
      expect(server.statsFor(blob).requests).toBeGreaterThanOrEqual(1);
      expect(server.statsFor('/mirror/good.adcap').requests).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('revoked publisher key: an archive signed only by a key the catalogue lists as revoked is E_REVOKED', async () => {
    await revokeKey(reg.dir, 'acme', reg.keyOf('acme').keyId);
    await reg.build();
    await expect(reg.client(home).downloadArchive('acme/pdf', '1.0.0', { cache })).rejects.toMatchObject({ code: 'E_REVOKED' });
  });

  it('yanked and revoked versions in documents: shown with their status; revoked never downloads, yanked only on request', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.publish({ id: 'acme/pdf', version: '1.2.0' });
    await yankVersion(reg.dir, 'acme/pdf', '1.2.0', 'broken on Windows');
    await revokeVersion(reg.dir, 'acme/pdf', '1.1.0', 'malicious');
    await reg.build();
    const client = reg.client(home);
    const doc = await client.packageDoc('acme/pdf');
    expect(doc.versions['1.2.0']).toMatchObject({ status: 'yanked', statusReason: 'broken on Windows' });
    expect(doc.versions['1.1.0']).toMatchObject({ status: 'revoked', statusReason: 'malicious' });
    expect(doc.versions['1.0.0']?.status).toBeUndefined();
    expect((await client.capability('acme/pdf')).latest).toBe('1.0.0');
    await expect(client.downloadArchive('acme/pdf', '1.1.0', { cache })).rejects.toMatchObject({ code: 'E_REVOKED' });
    await expect(client.downloadArchive('acme/pdf', '1.2.0', { cache })).resolves.toMatchObject({ version: '1.2.0' });
  });

  describe('entitled download', () => {
    let server: TestServer;
    let url: string;
    let blob: string;
    const fetch = trustingFetch();

    beforeEach(async () => {
      server = await TestServer.start({ protocol: 'https' });
      const pkg = await reg.publish({ id: 'acme/pro', version: '1.0.0', tier: 'pro', access: 'entitled', entitlement: 'acme-pro' });
      await reg.build();
      url = await reg.mount(server);
      blob = `/v1/blobs/sha256/${pkg.entry.archive.sha256}.adcap`;
      server.serveBytes(blob, await readFile(pkg.file), { requireHeaders: { authorization: 'Bearer good-token' } });
    });
    afterEach(async () => {
      await server.close();
    });

    it('entitled download denied: the authorize callback returning null is E_ENTITLEMENT, and so is no callback', async () => {
      const client = reg.client(home, { url, fetch });
      const seen: AuthorizeRequest[] = [];
      const authorize = async (request: AuthorizeRequest) => {
        seen.push(request);
        return null;
      };
      const blobCache = new ContentCache(join(home, 'cache'), { fetch });
      await expect(client.downloadArchive('acme/pro', '1.0.0', { cache: blobCache, authorize })).rejects.toMatchObject({
        code: 'E_ENTITLEMENT',
      });
      expect(seen[0]).toEqual({ kind: 'package', id: 'acme/pro', version: '1.0.0', entitlement: 'acme-pro' });
      await expect(client.downloadArchive('acme/pro', '1.0.0', { cache: blobCache })).rejects.toMatchObject({ code: 'E_ENTITLEMENT' });
      expect(server.statsFor(blob).requests).toBe(0);
    });

    it('entitled download allowed: the callback headers reach the mirror and the archive is verified', async () => {
      const client = reg.client(home, { url, fetch });
      const authorize = async () => ({ headers: { authorization: 'Bearer good-token' } });
      const result = await client.downloadArchive('acme/pro', '1.0.0', {
        cache: new ContentCache(join(home, 'cache'), { fetch }),
        authorize,
      });
      expect(result.manifest.distribution).toMatchObject({ access: 'entitled' });
      expect(server.statsFor(blob).requests).toBe(1);
    });
  });
});
