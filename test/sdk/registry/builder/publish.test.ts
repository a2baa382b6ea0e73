import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishPackage } from '../../../../sdk/src/registry/builder/publish.js';
import { revokeKey } from '../../../../sdk/src/registry/builder/maintain.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { hashFile } from '../../../../sdk/src/util/hash.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;

beforeEach(async () => {
  reg = await TestRegistry.create();
  await reg.addPublisher('acme');
});
afterEach(async () => {
  await reg.cleanup();
});

describe('registry publish (spec §13, DESIGN §11)', () => {
  it('writes the version entry field by field and mirrors the archive under v1/blobs/sha256/', async () => {
    const { entry, created, file } = await reg.publish(
      {
        id: 'acme/pdf',
        version: '1.2.0',
        name: 'PDF tools',
        summary: 'PDF things',
        keywords: ['pdf'],
        tier: 'pro',
        access: 'entitled',
        entitlement: 'acme-pro',
      },
      { urls: ['https://mirror.example/acme-pdf-1.2.0.adcap'] },
    );
    const { sha256, size } = await hashFile(file);
    expect(created).toBe(true);
    expect(entry).toMatchObject({
      id: 'acme/pdf',
      version: '1.2.0',
      archive: { sha256, size, urls: [`blobs/sha256/${sha256}.adcap`, 'https://mirror.example/acme-pdf-1.2.0.adcap'] },
      signers: [reg.keyOf('acme').keyId],
      tier: 'pro',
      access: 'entitled',
      entitlement: 'acme-pro',
      name: 'PDF tools',
      summary: 'PDF things',
      keywords: ['pdf'],
      contents: { skills: [], tools: [], workflows: [], knowledge: [], resources: [] },
    });
    expect(entry.manifestSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(await readFile(reg.path('entries/acme/pdf/1.2.0.json'), 'utf8'))).toEqual(entry);
    expect((await hashFile(reg.path(`v1/blobs/sha256/${sha256}.adcap`))).sha256).toBe(sha256);
  });

  it('same content twice is a no-op', async () => {
    const first = await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    const entryBytes = await readFile(reg.path('entries/acme/pdf/1.0.0.json'));
    const again = await publishPackage(reg.dir, first.file);
    expect(again.created).toBe(false);
    expect(await readFile(reg.path('entries/acme/pdf/1.0.0.json'))).toEqual(entryBytes);
  });

  it('immutability: different content under an existing version is E_IMMUTABLE and changes nothing', async () => {
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    const entryBytes = await readFile(reg.path('entries/acme/pdf/1.0.0.json'));
    await expect(reg.publish({ id: 'acme/pdf', version: '1.0.0', readme: 'changed' })).rejects.toMatchObject({ code: 'E_IMMUTABLE' });
    expect(await readFile(reg.path('entries/acme/pdf/1.0.0.json'))).toEqual(entryBytes);
  });

  it('refuses an unsigned package with E_UNTRUSTED', async () => {
    const file = await reg.package({ id: 'acme/pdf', version: '1.0.0' }, { keys: [] });
    await expect(publishPackage(reg.dir, file)).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
    await expect(stat(reg.path('entries/acme/pdf/1.0.0.json'))).rejects.toThrow();
  });

  it("refuses a package signed by another publisher's key with E_UNTRUSTED", async () => {
    const other = await reg.addPublisher('other');
    const file = await reg.package({ id: 'acme/pdf', version: '1.0.0' }, { keys: [other] });
    await expect(publishPackage(reg.dir, file)).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
  });

  it('refuses a package of a publisher that is not registered', async () => {
    const file = await reg.package({ id: 'ghost/pdf', version: '1.0.0' }, { keys: [generateKey()] });
    await expect(publishPackage(reg.dir, file)).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
  });

  it('refuses a package signed only by a revoked key with E_REVOKED', async () => {
    await revokeKey(reg.dir, 'acme', reg.keyOf('acme').keyId);
    await expect(reg.publish({ id: 'acme/pdf', version: '1.0.0' })).rejects.toMatchObject({ code: 'E_REVOKED' });
  });

  it('refuses a corrupt archive with its format code and leaves no blob behind', async () => {
    const { file } = await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    const bytes = await readFile(file);
    const broken = `${file}.broken`;
    await writeFile(broken, bytes.subarray(0, bytes.length - 20));
    await expect(publishPackage(reg.dir, broken)).rejects.toMatchObject({ code: expect.stringMatching(/^E_(GZIP|TAR)$/) });
    expect((await readdir(reg.path('v1/blobs/sha256'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
