import { readFile, rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../../sdk/src/registry/builder/build.js';
import { addPublisher, deprecateCapability, revokeKey, revokeVersion, yankVersion } from '../../../../sdk/src/registry/builder/maintain.js';
import { verifyCatalogue } from '../../../../sdk/src/registry/catalogue.js';
import type { PackageDocument } from '../../../../sdk/src/registry/types.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { sha256Hex } from '../../../../sdk/src/util/hash.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;

beforeEach(async () => {
  reg = await TestRegistry.create({ name: 'arcotheon-test' });
  await reg.addPublisher('acme');
});
afterEach(async () => {
  await reg.cleanup();
});

async function catalogue() {
  return verifyCatalogue(await reg.read('v1/catalog.json'), [reg.rootKey.publicKey]);
}

describe('registry build (spec §13, DESIGN §11)', () => {
  it('signs a catalogue with the root key whose sequence grows on every build, even with nothing changed', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    const first = await reg.build();
    const second = await reg.build();
    expect([first.sequence, second.sequence]).toEqual([1, 2]);
    const verified = await catalogue();
    expect(verified.payload).toMatchObject({ registry: 'arcotheon-test', spec: 1, sequence: 2 });
    expect(verified.signedBy).toEqual([reg.rootKey.keyId]);
  });

  it('never resets the sequence when v1/ is deleted (registry.json keeps the highest)', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    await reg.build();
    await reg.build();
    await rm(reg.path('v1'), { recursive: true });
    expect((await reg.build()).sequence).toBe(3);
  });

  it('refuses to sign with a key that is not a root key of the registry', async () => {
    await expect(buildRegistry(reg.dir, { rootKeys: [generateKey()] })).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
  });

  it('pins each package document by the SHA-256 of its bytes and lists publishers with key status', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0', summary: 'Extract PDF text', keywords: ['pdf'] });
    await reg.build(new Date('2026-11-30T12:00:00Z'));
    const { payload } = await catalogue();
    expect(payload.generatedAt).toBe('2026-11-30T12:00:00Z');
    const cap = payload.capabilities['acme/pdf'];
    expect(cap).toMatchObject({
      name: 'Test acme/pdf',
      summary: 'Extract PDF text',
      publisher: 'acme',
      latest: '1.0.0',
      tier: 'free',
      access: 'public',
      keywords: ['pdf'],
      deprecated: false,
    });
    expect(cap?.doc.path).toBe('packages/acme/pdf.json');
    expect(cap?.doc.sha256).toBe(sha256Hex(await reg.read('v1/packages/acme/pdf.json')));
    expect(payload.publishers['acme']).toEqual({
      name: 'acme Inc.',
      keys: [{ keyId: reg.keyOf('acme').keyId, publicKey: reg.keyOf('acme').publicKey, status: 'active' }],
    });
  });

  it('latest and latestPrerelease skip yanked and revoked versions', async () => {
    for (const version of ['1.0.0', '1.1.0', '1.2.0', '2.0.0-beta.1']) await reg.publish({ id: 'acme/pdf', version });
    await yankVersion(reg.dir, 'acme/pdf', '1.2.0', 'broken on Windows');
    await revokeVersion(reg.dir, 'acme/pdf', '1.1.0', 'malicious');
    await reg.build();
    expect((await catalogue()).payload.capabilities['acme/pdf']).toMatchObject({ latest: '1.0.0', latestPrerelease: '2.0.0-beta.1' });
  });

  it('status folding: yanks, revocations and deprecation appear in the package document after the next build', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await reg.build();
    const before = JSON.parse((await reg.read('v1/packages/acme/pdf.json')).toString()) as PackageDocument;
    expect(before.versions['1.1.0']?.status).toBeUndefined();
    await yankVersion(reg.dir, 'acme/pdf', '1.1.0', 'broken on Windows');
    await revokeVersion(reg.dir, 'acme/pdf', '1.0.0', 'malicious');
    await deprecateCapability(reg.dir, 'acme/pdf', 'Use acme/pdf2');
    expect(JSON.parse(await readFile(reg.path('status/acme/pdf.json'), 'utf8'))).toEqual({
      yanked: { '1.1.0': 'broken on Windows' },
      revoked: { '1.0.0': 'malicious' },
      deprecated: { message: 'Use acme/pdf2' },
    });
    await reg.build();
    const after = JSON.parse((await reg.read('v1/packages/acme/pdf.json')).toString()) as PackageDocument;
    expect(after.deprecated).toEqual({ message: 'Use acme/pdf2' });
    expect(after.versions['1.1.0']).toMatchObject({ status: 'yanked', statusReason: 'broken on Windows' });
    expect(after.versions['1.0.0']).toMatchObject({ status: 'revoked', statusReason: 'malicious' });
    const cap = (await catalogue()).payload.capabilities['acme/pdf'];
    expect(cap?.deprecated).toBe(true);
    expect(cap?.latest).toBeUndefined();
  });

  it('yank, revoke and deprecate refuse versions and capabilities that were never published', async () => {
    await expect(yankVersion(reg.dir, 'acme/pdf', '9.9.9')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(deprecateCapability(reg.dir, 'acme/none')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('key rotation: a revoked key shows as revoked in the catalogue and cannot be added back', async () => {
    const old = reg.keyOf('acme');
    const next = generateKey();
    await addPublisher(reg.dir, 'acme', { publicKey: next.publicKey });
    await revokeKey(reg.dir, 'acme', old.keyId, { now: new Date('2026-10-01T00:00:00Z') });
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' }, { keys: [next] });
    await reg.build();
    expect((await catalogue()).payload.publishers['acme']?.keys).toEqual([
      { keyId: old.keyId, publicKey: old.publicKey, status: 'revoked', revokedAt: '2026-10-01T00:00:00Z' },
      { keyId: next.keyId, publicKey: next.publicKey, status: 'active' },
    ]);
    await expect(addPublisher(reg.dir, 'acme', { publicKey: old.publicKey })).rejects.toMatchObject({ code: 'E_REVOKED' });
  });

  it('refuses a hand-edited source file that is malformed instead of folding it silently', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    await reg.write('status/acme/pdf.json', JSON.stringify({ yanked: { '1.0.0': 42 } }));
    await expect(reg.build()).rejects.toMatchObject({ code: 'E_SCHEMA' });
  });
});
