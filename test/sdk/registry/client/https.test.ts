/** The registry client over HTTPS against a real TLS server on 127.0.0.1 with the test CA. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentCache } from '../../../../sdk/src/cache/content-cache.js';
import { TestRegistry } from '../../../helpers/test-registry.js';
import { TestServer } from '../../../helpers/test-server.js';
import { spawnTs, waitForLine } from '../../../helpers/spawn-ts.js';
import { testTls, trustingFetch } from '../../../helpers/tls.js';

let reg: TestRegistry;
let home: string;
let server: TestServer;
let url: string;

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-https-home-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract text from PDF files', keywords: ['pdf'] });
  await reg.build();
  server = await TestServer.start({ protocol: 'https' });
  url = await reg.mount(server);
});
afterEach(async () => {
  await server.close();
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('registry client over HTTPS', () => {
  it('updates, searches, reads a document and downloads a verified archive through TLS with the test CA', async () => {
    const fetch = trustingFetch();
    const client = reg.client(home, { url, fetch });
    expect((await client.update()).payload.sequence).toBe(1);
    expect((await client.search('pdf')).map((h) => h.id)).toEqual(['acme/pdf']);
    expect(Object.keys((await client.packageDoc('acme/pdf')).versions)).toEqual(['1.0.0']);
    const archive = await client.downloadArchive('acme/pdf', '1.0.0', { cache: new ContentCache(join(home, 'cache'), { fetch }) });
    expect(archive.signedBy).toEqual([reg.keyOf('acme').keyId]);
    expect(server.statsFor('/v1/catalog.json').requests).toBe(1);
  });

  it('refuses a server whose certificate the process does not trust (E_DOWNLOAD)', async () => {
    // The global fetch of this test process does not know the test CA.
    await expect(reg.client(home, { url }).update()).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
  });

  it('honours NODE_EXTRA_CA_CERTS with the plain global fetch (child process)', async () => {
    const script = fileURLToPath(new URL('./https-child.ts', import.meta.url));
    const child = await spawnTs(script, [home, url, reg.rootKey.publicKey], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: testTls().caPath },
    });
    const line = await waitForLine(child, (l) => l.startsWith('{'));
    expect(JSON.parse(line)).toEqual({ ok: true, sequence: 1 });
  });

  it('refuses plain http to a non-loopback host before any request (E_DOWNLOAD)', async () => {
    await expect(reg.client(home, { url: 'http://registry.example/v1/' }).update()).rejects.toMatchObject({ code: 'E_DOWNLOAD' });
  });
});
