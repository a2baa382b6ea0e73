/**
 * RegistryClient.storedListing (docs/ui.md "Fast"): a remote's capabilities, publisher names and
 * "verified publisher" marks listed from its stored search index without loading the catalogue,
 * only while everything a full verification found still holds: the catalogue file hashes to the
 * bytes it accepted under today's root keys (verified.json), the index was built from those bytes
 * and its segments hash to their names, and the catalogue is not due for a refresh. Anything that
 * differs is null: the caller loads and checks the catalogue in full.
 */
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const stored = (...path: string[]): string => join(home, 'remotes', 'test', ...path);

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-listing-home-'));
  await reg.addPublisher('acme');
  await reg.addPublisher('zeta');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text', keywords: ['pdf'] });
  await reg.publish({ id: 'zeta/tool', version: '2.0.0-beta.1', tier: 'pro', access: 'entitled', entitlement: 'zeta.pro' });
  await reg.build();
  // zeta's only key revoked: its capabilities are listed, without the verified mark; acme has no display name.
  await reg.resignCatalogue((payload) => {
    const zeta = payload.publishers['zeta'];
    if (zeta !== undefined) zeta.keys = zeta.keys.map((key) => ({ ...key, status: 'revoked', revokedAt: '2026-01-01T00:00:00Z' }));
    delete (payload.publishers['acme'] as { name?: string }).name;
    const pdf = payload.capabilities['acme/pdf'];
    if (pdf !== undefined) pdf.deprecated = true;
  });
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('RegistryClient.storedListing', () => {
  it('lists what the full verification accepted: every capability, publisher names and active keys', async () => {
    const updated = await reg.client(home).update();
    const listing = await reg.client(home).storedListing();
    expect(listing).not.toBeNull();
    expect(listing?.catalogueSha256).toBe(updated.catalogueSha256);
    expect(Object.fromEntries(listing?.publishers ?? [])).toEqual({
      acme: { name: 'acme', verified: true },
      zeta: { name: 'zeta Inc.', verified: false },
    });
    const entries = Object.fromEntries(listing?.entries() ?? []);
    expect(Object.keys(entries)).toEqual(['acme/pdf', 'zeta/tool']);
    expect(entries['acme/pdf']).toMatchObject({ summary: 'Extract PDF text', keywords: ['pdf'], latest: '1.0.0', deprecated: true });
    expect(entries['zeta/tool']).toMatchObject({ tier: 'pro', access: 'entitled', latestPrerelease: '2.0.0-beta.1', deprecated: false });
    expect(entries['zeta/tool']?.latest).toBeUndefined();
    // The same fields as the loaded catalogue's records (everything but the document pin).
    const loaded = await reg.client(home).catalogue({ refresh: 'never' });
    for (const [id, capability] of Object.entries(entries)) {
      const { doc: _doc, ...record } = loaded.payload.capabilities[id] ?? { doc: null };
      expect(capability, id).toEqual(record);
    }
  });

  it('is null before the remote was ever read, and once the catalogue is due for a refresh', async () => {
    expect(await reg.client(home).storedListing()).toBeNull();
    await reg.client(home).update();
    expect(await reg.client(home).storedListing()).not.toBeNull();
    expect(await reg.client(home, { refreshAfterMs: 0, now: () => new Date(Date.now() + 1000) }).storedListing()).toBeNull();
  });

  it('tampered catalogue file: catalog.json edited under home/ no longer matches what was verified', async () => {
    await reg.client(home).update();
    const text = await readFile(stored('catalog.json'), 'utf8');
    await writeFile(stored('catalog.json'), text.replace('Extract PDF text', 'Extract PDF text, and your keys'));
    expect(await reg.client(home).storedListing()).toBeNull();
  });

  it('catalog.json is hashed once per stat stamp (checked.json); a same-size edit, times put back, is hashed and refused', async () => {
    await reg.client(home).update();
    // Times two minutes back, so the stamp recorded next is not "racy" (recorded within 2 s of them).
    const past = new Date(Date.now() - 120_000);
    await utimes(stored('catalog.json'), past, past);
    const sha = (await reg.client(home).storedListing())?.catalogueSha256;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    const stamp = (await stat(stored('catalog.json'), { bigint: true })).ctimeNs.toString();
    const checked = JSON.parse(await readFile(stored('checked.json'), 'utf8')) as { files: Record<string, { ctimeNs: string }> };
    expect(Object.keys(checked.files)).toEqual([`catalog.json@${sha}`]);
    expect(checked.files[`catalog.json@${sha}`]?.ctimeNs).toBe(stamp);
    expect(await reg.client(home).storedListing()).not.toBeNull();
    // The same number of bytes, the same modification time: only the change time moved.
    const text = await readFile(stored('catalog.json'), 'utf8');
    expect(text).toContain('Extract PDF text');
    await writeFile(stored('catalog.json'), text.replace('Extract PDF text', 'Exfiltrate PDFs!'));
    await utimes(stored('catalog.json'), past, past);
    expect(await reg.client(home).storedListing()).toBeNull();
    // Put back byte for byte, the file is hashed again, found to be the bytes verified, and used.
    await writeFile(stored('catalog.json'), text);
    await utimes(stored('catalog.json'), past, past);
    expect((await reg.client(home).storedListing())?.catalogueSha256).toBe(sha);
  });

  it('tampered index: a segment edited under home/ is refused (its bytes no longer hash to its name)', async () => {
    await reg.client(home).update();
    const segment = (await readdir(stored('search-index'))).find((name) => name.endsWith('.seg')) as string;
    const bytes = await readFile(stored('search-index', segment));
    const at = bytes.indexOf('Extract PDF text');
    expect(at).toBeGreaterThan(0);
    bytes.write('Exfiltrate PDFs!', at, 'latin1');
    await writeFile(stored('search-index', segment), bytes);
    expect(await reg.client(home).storedListing()).toBeNull();
  });

  it('tampered or older record: verified.json for other bytes, other keys or without the active publishers is not used', async () => {
    await reg.client(home).update();
    const good = JSON.parse(await readFile(stored('verified.json'), 'utf8')) as Record<string, unknown>;
    expect(good['activePublishers']).toEqual(['acme']);
    const variants: Array<Record<string, unknown>> = [
      { ...good, catalogueSha256: '1'.repeat(64) },
      { ...good, rootKeys: '0'.repeat(64) },
      { ...good, activePublishers: [1, 2] },
      Object.fromEntries(Object.entries(good).filter(([key]) => key !== 'activePublishers')),
    ];
    for (const variant of variants) {
      await writeFile(stored('verified.json'), JSON.stringify(variant));
      expect(await reg.client(home).storedListing(), JSON.stringify(variant)).toBeNull();
    }
    // An older SDK's record (no active publishers): the next full load writes them, and the listing follows.
    await reg.client(home).catalogue({ refresh: 'never' });
    expect(JSON.parse(await readFile(stored('verified.json'), 'utf8'))).toEqual(good);
    expect(await reg.client(home).storedListing()).not.toBeNull();
  });

  it('other root keys pinned: the stored bytes were not verified under them', async () => {
    await reg.client(home).update();
    const other = reg.client(home);
    Object.assign(other.remote, { rootKeys: [generateKey().publicKey] });
    expect(await other.storedListing()).toBeNull();
  });
});
