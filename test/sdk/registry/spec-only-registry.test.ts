// A registry built to the words of spec §13 by another builder: its version entries record only
// what spec §13 names (manifestSha256, the archive's SHA-256, size and URLs, tier, access,
// compatibility, dependencies, permissions, the contents summary, the changelog), its catalogue
// lists per capability only latest, a summary and doc, its publishers only their keys and status,
// and its package document only the versions. This SDK's readers used to refuse it (E_CATALOG /
// E_DOC_HASH "missing the required field name"); it is signed, served over HTTPS, searched and
// installed here, with the fallbacks of registry/fallbacks.ts.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { CATALOG_CONTEXT, signEnvelope } from '../../../sdk/src/trust/envelope.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';
import { TestServer } from '../../helpers/test-server.js';
import { trustingFetch } from '../../helpers/tls.js';
import { nodeTool, RunHome } from '../run/run-fixture.js';

const GENERATED_AT = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

let h: RunHome;
let server: TestServer;
let arc: Arcotheon;
let archiveSha256: string;

beforeAll(async () => {
  h = await RunHome.create();
  server = await TestServer.start();
  const root = generateKey();
  const publisher = generateKey();
  const file = await h.build(
    {
      id: 'acme/rows',
      tools: [nodeTool('count', 'echo.mjs')],
      files: { 'tools/echo.mjs': 'echo.mjs' },
    },
    [publisher],
  );
  const bytes = await readFile(file);
  const pkg = await readPackage(file);
  archiveSha256 = pkg.archiveSha256;
  // Exactly the fields spec §13 names, nothing this SDK's builder adds.
  const document = {
    versions: {
      '1.0.0': {
        manifestSha256: pkg.manifestSha256,
        archive: { sha256: pkg.archiveSha256, size: pkg.size, urls: ['archives/acme-rows-1.0.0.adcap'] },
        tier: 'free',
        access: 'public',
        compat: pkg.manifest.compat ?? {},
        dependencies: {},
        permissions: [],
        contents: { tools: ['count'] },
        changelog: 'First release.',
      },
    },
  };
  const docBytes = Buffer.from(JSON.stringify(document));
  const payload = {
    registry: 'spec-words',
    spec: 1,
    sequence: 1,
    generatedAt: GENERATED_AT,
    publishers: { acme: { keys: [{ keyId: publisher.keyId, publicKey: publisher.publicKey, status: 'active' }] } },
    capabilities: {
      'acme/rows': {
        latest: '1.0.0',
        summary: 'Counts the rows of a table',
        doc: { path: 'docs/acme-rows.json', sha256: sha256Hex(docBytes) },
      },
    },
  };
  server.serveBytes('/v1/catalog.json', Buffer.from(JSON.stringify(signEnvelope(payload, CATALOG_CONTEXT, [root]))));
  server.serveBytes('/v1/docs/acme-rows.json', docBytes);
  server.serveBytes('/v1/archives/acme-rows-1.0.0.adcap', bytes);
  arc = h.arc({ fetch: trustingFetch(), remotes: [{ name: 'spec', url: server.url('/v1/'), rootKeys: [root.publicKey] }] });
});
afterAll(async () => {
  await h.remove();
  await server.close();
});

describe('a registry with only the fields spec §13 names', () => {
  it('is searched: the catalogue loads, the record falls back to its id, its publisher and the manifest defaults', async () => {
    const hits = await arc.search('rows');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      id: 'acme/rows',
      name: 'acme/rows',
      summary: 'Counts the rows of a table',
      publisher: 'acme',
      latest: '1.0.0',
      tier: 'free',
      access: 'public',
      remote: 'spec',
    });
  });

  it('its package document loads, the entries filled from the catalogue record and the catalogue date', async () => {
    const doc = await arc.packageDoc('acme/rows');
    expect(doc.id).toBe('acme/rows');
    expect(doc.versions['1.0.0']).toMatchObject({
      id: 'acme/rows',
      version: '1.0.0',
      name: 'acme/rows',
      summary: 'Counts the rows of a table',
      keywords: [],
      signers: [],
      publishedAt: GENERATED_AT,
      changelog: 'First release.',
      contents: { skills: [], tools: ['count'], workflows: [], knowledge: [], resources: [] },
    });
  });

  it('is installed: the archive is verified against the publisher key of the signed catalogue', async () => {
    const plan = await arc.plan('acme/rows');
    expect(plan.items.map((i) => `${i.id}@${i.version}`)).toEqual(['acme/rows@1.0.0']);
    await arc.install('acme/rows', { approve: () => true });
    const [installed] = await arc.list();
    expect(installed).toMatchObject({ id: 'acme/rows', version: '1.0.0' });
    // After the download, the manifest's own name is what an installed capability shows.
    expect((await arc.installedManifest('acme/rows')).name).toBe('Test acme/rows');
    expect(server.statsFor('/v1/archives/acme-rows-1.0.0.adcap').requests).toBe(1);
    expect(archiveSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
