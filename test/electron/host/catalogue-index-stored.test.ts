/**
 * Discover's index before the catalogues are loaded (electron/host/catalogue-index.ts, docs/ui.md
 * "Fast"): a host started on a home whose catalogues were verified before answers the index from
 * the remotes' stored search indexes (RegistryClient.storedListing), with the same rows, publishers
 * and revision as the index built from the loaded catalogues, and loads the catalogues only once
 * the page asks what is known. A stored index or record that no longer matches what was verified
 * means the catalogues are loaded and checked first, as before.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { hostStore } from '@arcotheon/sdk/internal';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { CatalogueIndexPage } from '../../../electron/common/types.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { HOST } from '../../helpers/lifecycle-registry.js';
import { TestRegistry } from '../../helpers/test-registry.js';

let one: TestRegistry;
let two: TestRegistry;
const homes: string[] = [];

/** A registry that serves layout 1 only (as the UI bench's): its v2/ removed after the build. */
async function v1Registry(build: (reg: TestRegistry) => Promise<void>): Promise<TestRegistry> {
  const reg = await TestRegistry.create();
  await build(reg);
  await reg.build();
  await rm(reg.path('v2'), { recursive: true, force: true });
  return reg;
}

beforeAll(async () => {
  one = await v1Registry(async (reg) => {
    await reg.addPublisher('acme');
    await reg.addPublisher('zeta');
    await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
    await reg.publish({ id: 'acme/csv', version: '1.2.0', tier: 'pro' });
    await reg.publish({ id: 'zeta/tool', version: '2.0.0-beta.1', access: 'entitled', entitlement: 'zeta.pro' });
  });
  // zeta's only key revoked (listed, not verified); acme/pdf deprecated.
  await one.resignCatalogue((payload) => {
    const zeta = payload.publishers['zeta'];
    if (zeta !== undefined) zeta.keys = zeta.keys.map((key) => ({ ...key, status: 'revoked', revokedAt: '2026-01-01T00:00:00Z' }));
    const pdf = payload.capabilities['acme/pdf'];
    if (pdf !== undefined) pdf.deprecated = true;
  });
  // A second remote listing acme/csv again (the first remote's wins) and a publisher of its own.
  two = await v1Registry(async (reg) => {
    await reg.addPublisher('acme');
    await reg.addPublisher('beta');
    await reg.publish({ id: 'acme/csv', version: '9.0.0', summary: 'Not this one' });
    await reg.publish({ id: 'beta/alpha', version: '0.1.0' });
  });
});

afterAll(async () => {
  await one.cleanup();
  await two.cleanup();
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

function arcotheon(home: string): Arcotheon {
  return new Arcotheon({
    home,
    host: HOST,
    remotes: [
      { name: 'one', url: one.v1Url, rootKeys: [one.rootKey.publicKey] },
      { name: 'two', url: two.v1Url, rootKeys: [two.rootKey.publicKey] },
    ],
    runtimes: { node: '22.12.0', python: '3.11.7' },
  });
}

function value<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** The whole index in pages of 2, checking that every page is of one revision. */
async function wholeIndex(host: HostService): Promise<CatalogueIndexPage> {
  const first = value(await host.api.catalogue.index({ limit: 2 }));
  const rows = [...first.rows];
  while (rows.length < first.total) {
    const next = value(await host.api.catalogue.index({ revision: first.revision, offset: rows.length, limit: 2 }));
    expect(next.revision).toBe(first.revision);
    rows.push(...next.rows);
  }
  return { ...first, rows };
}

/** The revision without the process's own nonce: what names the content. */
const content = (revision: string): string => revision.slice(revision.indexOf(' ') + 1);

/** A home whose catalogues a first host verified in full (and whose index it built from them). */
async function verifiedHome(): Promise<{ home: string; loaded: CatalogueIndexPage }> {
  const home = await mkdtemp(join(tmpdir(), 'arcotheon-index-stored-'));
  homes.push(home);
  const host = createHostService(arcotheon(home));
  const loaded = await wholeIndex(host);
  await host.close();
  return { home, loaded };
}

/** Watches each remote client's catalogue load (the real method runs). */
async function watchLoads(arc: Arcotheon): Promise<MockInstance[]> {
  return (await hostStore(arc).clients()).map((client) => vi.spyOn(client, 'catalogue'));
}

describe('catalogue.index from the stored search indexes', () => {
  it('answers without loading a catalogue, with the rows, publishers and revision of the loaded index', async () => {
    const { home, loaded } = await verifiedHome();
    expect(loaded.rows.map((r) => r[0])).toEqual(['acme/csv', 'beta/alpha', 'zeta/tool', 'acme/pdf']);
    expect(loaded.rows[0]?.[2]).not.toBe('Not this one');

    const arc = arcotheon(home);
    const loads = await watchLoads(arc);
    const host = createHostService(arc);
    const listed = await wholeIndex(host);
    for (const load of loads) expect(load).not.toHaveBeenCalled();
    expect(listed.rows).toEqual(loaded.rows);
    expect(listed.publishers).toEqual(loaded.publishers);
    expect(listed.remotes).toEqual(['one', 'two']);
    expect(content(listed.revision)).toBe(content(loaded.revision));
    const publisher = (id: string, remote: number) => listed.publishers[listed.rows.find((r) => r[0] === id && r[8] === remote)?.[7] ?? -1];
    expect(publisher('acme/csv', 0)).toEqual({ id: 'acme', name: 'acme Inc.', verified: true });
    expect(publisher('zeta/tool', 0)).toEqual({ id: 'zeta', name: 'zeta Inc.', verified: false });
    expect(publisher('beta/alpha', 1)).toEqual({ id: 'beta', name: 'beta Inc.', verified: true });

    // The page asks what is known once it has its index: then the catalogues are loaded and
    // checked in the background, and the index they give keeps the page's revision.
    value(await host.api.catalogue.known({}));
    await vi.waitFor(() => {
      for (const load of loads) expect(load).toHaveBeenCalled();
    });
    await host.close();
    const after = value(await host.api.catalogue.index({ revision: listed.revision, offset: 1, limit: 10 }));
    expect(after).toMatchObject({ revision: listed.revision, offset: 1, total: 4 });
    expect(after.rows).toEqual(listed.rows.slice(1));
  });

  it('tampered stored index: a segment that no longer hashes to its name means the catalogues are loaded first', async () => {
    const { home, loaded } = await verifiedHome();
    const dir = join(home, 'remotes', 'two', 'search-index');
    const segment = (await readdir(dir)).find((name) => name.endsWith('.seg')) as string;
    const bytes = await readFile(join(dir, segment));
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 0xff;
    await writeFile(join(dir, segment), bytes);

    const arc = arcotheon(home);
    const loads = await watchLoads(arc);
    const host = createHostService(arc);
    const index = await wholeIndex(host);
    for (const load of loads) expect(load).toHaveBeenCalled();
    expect(index.rows).toEqual(loaded.rows);
    expect(content(index.revision)).toBe(content(loaded.revision));
    await host.close();
  });

  it('tampered catalogue: a stored catalogue edited under home/ is never listed, and the remote is left out as before', async () => {
    const { home } = await verifiedHome();
    const file = join(home, 'remotes', 'two', 'catalog.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"beta Inc."', '"Beta, verified by nobody"'));

    const arc = arcotheon(home);
    const loads = await watchLoads(arc);
    const host = createHostService(arc);
    const index = await wholeIndex(host);
    for (const load of loads) expect(load).toHaveBeenCalled();
    expect(index.remotes).toEqual(['one']);
    expect(index.publishers.map((p) => p.name)).not.toContain('Beta, verified by nobody');
    await host.close();
  });
});

describe('catalogue.index after a refresh', () => {
  it('a registry refreshed before the catalogues were loaded gives the new index, not the listing from before', async () => {
    const reg = await v1Registry(async (r) => {
      await r.addPublisher('acme');
      await r.publish({ id: 'acme/old', version: '1.0.0' });
    });
    const home = await mkdtemp(join(tmpdir(), 'arcotheon-index-refresh-'));
    homes.push(home);
    const make = () => new Arcotheon({ home, host: HOST, remotes: [{ name: 'solo', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }] });
    try {
      const first = createHostService(make());
      await wholeIndex(first);
      await first.close();

      const arc = make();
      const loads = await watchLoads(arc);
      const host = createHostService(arc);
      const before = await wholeIndex(host);
      for (const load of loads) expect(load).not.toHaveBeenCalled();
      expect(before.rows.map((r) => r[0])).toEqual(['acme/old']);
      await reg.publish({ id: 'acme/new', version: '1.0.0' });
      await reg.build();
      await rm(reg.path('v2'), { recursive: true, force: true });
      const started = await host.dispatch('remotes.refresh', ['solo']);
      expect(started.ok).toBe(true);
      const done = await host.dispatch('operations.wait', [(started as { value: { operation: string } }).value.operation]);
      expect(done.ok).toBe(true);
      const after = await wholeIndex(host);
      expect(after.rows.map((r) => r[0])).toEqual(['acme/new', 'acme/old']);
      expect(after.revision).not.toBe(before.revision);
      await host.close();
    } finally {
      await reg.cleanup();
    }
  });
});
