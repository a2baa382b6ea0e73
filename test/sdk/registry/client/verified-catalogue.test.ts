/**
 * A stored catalogue is verified in full once (strict parse, signature under the pinned root keys,
 * schema, floor); home/remotes/<name>/verified.json keeps what that found, keyed by the SHA-256 of
 * catalog.json and the digest of the pinned keys. A later load of the same bytes under the same
 * keys skips the signature; anything that differs (the bytes, the keys, a damaged record) means
 * the full check again (DESIGN §10, registry/catalogue.ts verifiedBefore).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalogueVerificationRecord, rootKeysDigest, verifyCatalogue } from '../../../../sdk/src/registry/catalogue.js';
import { RegistryClient } from '../../../../sdk/src/registry/client/registry-client.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let home: string;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const stored = (name: string): string => join(home, 'remotes', 'test', name);

beforeEach(async () => {
  reg = await TestRegistry.create();
  home = await mkdtemp(join(tmpdir(), 'adcap-verified-home-'));
  await reg.addPublisher('acme');
  await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text' });
  await reg.build();
});
afterEach(async () => {
  await reg.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe('the verified catalogue record', () => {
  it('is written after the full check, keyed by the SHA-256 of catalog.json and the pinned keys', async () => {
    const updated = await reg.client(home).update();
    const record = JSON.parse(await readFile(stored('verified.json'), 'utf8')) as Record<string, unknown>;
    expect(record).toEqual({
      catalogueSha256: sha256(await readFile(stored('catalog.json'))),
      rootKeys: rootKeysDigest([reg.rootKey.publicKey]),
      signedBy: [reg.rootKey.keyId],
      payloadSha256: updated.payloadSha256,
      // The publishers with an active key (RegistryClient.storedListing's "verified" marks).
      activePublishers: ['acme'],
    });
    const loaded = await reg.client(home).catalogue({ refresh: 'never' });
    expect(loaded.payload).toEqual(updated.payload);
    expect(loaded.signedBy).toEqual([reg.rootKey.keyId]);
    expect(loaded.payloadSha256).toBe(updated.payloadSha256);
  });

  it('is used only for the same bytes under the same keys (verifyCatalogue)', async () => {
    const bytes = await reg.read('v1/catalog.json');
    const full = verifyCatalogue(bytes, [reg.rootKey.publicKey]);
    const record = catalogueVerificationRecord(full, [reg.rootKey.publicKey])!;
    // A record naming another signer shows whether it was used: its signers are reported as they are.
    const marked = { ...record, signedBy: ['f'.repeat(64)] };
    expect(verifyCatalogue(bytes, [reg.rootKey.publicKey], { verifiedBefore: marked }).signedBy).toEqual(['f'.repeat(64)]);
    // Other keys pinned: the full check runs (and finds the real signer).
    const other = generateKey().publicKey;
    expect(verifyCatalogue(bytes, [reg.rootKey.publicKey, other], { verifiedBefore: marked }).signedBy).toEqual([reg.rootKey.keyId]);
    // Other bytes (one space more): the full check runs.
    const spaced = Buffer.concat([bytes, Buffer.from(' ')]);
    expect(verifyCatalogue(spaced, [reg.rootKey.publicKey], { verifiedBefore: marked }).signedBy).toEqual([reg.rootKey.keyId]);
    // The payload's schema is checked either way.
    const broken = Buffer.from(bytes.toString('utf8').replace('"spec":1', '"spec":"one"'));
    const brokenRecord = { ...marked, catalogueSha256: sha256(broken) };
    expect(() => verifyCatalogue(broken, [reg.rootKey.publicKey], { verifiedBefore: brokenRecord })).toThrow(
      expect.objectContaining({ code: 'E_CATALOG' }),
    );
  });

  it('tampered catalogue: catalog.json edited under home/ no longer matches the record and is refused (E_CATALOG)', async () => {
    await reg.client(home).update();
    await reg.client(home).catalogue({ refresh: 'never' });
    const text = await readFile(stored('catalog.json'), 'utf8');
    await writeFile(stored('catalog.json'), text.replace('Extract PDF text', 'Extract PDF text, and your keys'));
    await expect(reg.client(home).catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('tampered record: a damaged or altered verified.json only means the full check, which rewrites it', async () => {
    const updated = await reg.client(home).update();
    const good = await readFile(stored('verified.json'), 'utf8');
    const variants = [
      'not json',
      '{}',
      good.replace(/"rootKeys":"[0-9a-f]+"/, `"rootKeys":"${'0'.repeat(64)}"`),
      good.replace(/"catalogueSha256":"[0-9a-f]+"/, `"catalogueSha256":"${'1'.repeat(64)}"`),
      good.replace(/"signedBy":\[[^\]]*\]/, '"signedBy":[]'),
    ];
    for (const variant of variants) {
      await writeFile(stored('verified.json'), variant);
      const loaded = await reg.client(home).catalogue({ refresh: 'never' });
      expect(loaded.signedBy, variant).toEqual([reg.rootKey.keyId]);
      expect(loaded.payloadSha256).toBe(updated.payloadSha256);
      expect(await readFile(stored('verified.json'), 'utf8')).toBe(good);
    }
  });

  it('re-pinned root key: the same stored bytes under a key that did not sign them are refused (E_CATALOG)', async () => {
    await reg.client(home).update();
    const otherKey = generateKey().publicKey;
    const client = new RegistryClient({ home, remote: { ...reg.remote(), rootKeys: [otherKey] } });
    await expect(client.catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });

  it('tampered catalogue with a record forged to match: still refused when its payload breaks the schema', async () => {
    await reg.client(home).update();
    const text = await readFile(stored('catalog.json'), 'utf8');
    const forged = Buffer.from(text.replace('"tier":"free"', '"tier":"platinum"'));
    expect(forged.equals(Buffer.from(text))).toBe(false);
    await writeFile(stored('catalog.json'), forged);
    const record = JSON.parse(await readFile(stored('verified.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(stored('verified.json'), JSON.stringify({ ...record, catalogueSha256: sha256(forged) }));
    await expect(reg.client(home).catalogue({ refresh: 'never' })).rejects.toMatchObject({ code: 'E_CATALOG' });
  });
});
