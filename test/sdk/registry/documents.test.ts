import { describe, expect, it } from 'vitest';
import { catalogueCapability, foldPackageDocument, latestVersions, packageDocumentBytes } from '../../../sdk/src/registry/documents.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { versionEntry } from '../../helpers/registry-fixtures.js';

describe('foldPackageDocument (spec §13: status folded into package documents)', () => {
  it('marks yanked and revoked versions with their reasons, revocation outranking a yank', () => {
    const doc = foldPackageDocument('acme/pdf', [versionEntry('1.1.0'), versionEntry('1.0.0'), versionEntry('1.2.0')], {
      yanked: { '1.1.0': 'broken on Windows', '1.2.0': 'oops' },
      revoked: { '1.2.0': 'malicious' },
    });
    expect(Object.keys(doc.versions)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(doc.versions['1.0.0']?.status).toBeUndefined();
    expect(doc.versions['1.1.0']).toMatchObject({ status: 'yanked', statusReason: 'broken on Windows' });
    expect(doc.versions['1.2.0']).toMatchObject({ status: 'revoked', statusReason: 'malicious' });
    expect(doc.deprecated).toBeUndefined();
  });

  it('carries the deprecation message and ignores status for versions never published', () => {
    const doc = foldPackageDocument('acme/pdf', [versionEntry('1.0.0')], {
      deprecated: { message: 'Use acme/pdf2' },
      yanked: { '9.9.9': 'x' },
    });
    expect(doc.deprecated).toEqual({ message: 'Use acme/pdf2' });
    expect(Object.keys(doc.versions)).toEqual(['1.0.0']);
  });
});

describe('latestVersions (DESIGN §11)', () => {
  it('latest is the highest stable version neither yanked nor revoked', () => {
    const doc = foldPackageDocument(
      'acme/pdf',
      [versionEntry('1.0.0'), versionEntry('1.1.0'), versionEntry('1.2.0'), versionEntry('0.9.0')],
      {
        yanked: { '1.2.0': 'bad' },
        revoked: { '1.1.0': 'worse' },
      },
    );
    expect(latestVersions(doc)).toEqual({ latest: '1.0.0' });
  });

  it('lists latestPrerelease only when it is newer than latest', () => {
    const newer = foldPackageDocument('acme/pdf', [versionEntry('1.0.0'), versionEntry('2.0.0-beta.1'), versionEntry('2.0.0-alpha.3')], {});
    expect(latestVersions(newer)).toEqual({ latest: '1.0.0', latestPrerelease: '2.0.0-beta.1' });
    const older = foldPackageDocument('acme/pdf', [versionEntry('1.0.0'), versionEntry('1.0.0-rc.1')], {});
    expect(latestVersions(older)).toEqual({ latest: '1.0.0' });
    const onlyPre = foldPackageDocument('acme/pdf', [versionEntry('0.1.0-beta.1')], {});
    expect(latestVersions(onlyPre)).toEqual({ latestPrerelease: '0.1.0-beta.1' });
    const yankedPre = foldPackageDocument('acme/pdf', [versionEntry('1.0.0'), versionEntry('2.0.0-beta.1')], {
      yanked: { '2.0.0-beta.1': 'x' },
    });
    expect(latestVersions(yankedPre)).toEqual({ latest: '1.0.0' });
  });
});

describe('catalogueCapability', () => {
  it('pins the SHA-256 of the document bytes and takes search fields from the latest version', () => {
    const doc = foldPackageDocument(
      'acme/pdf',
      [versionEntry('1.0.0'), versionEntry('1.1.0', { tier: 'pro', access: 'entitled', keywords: ['forms'] })],
      {
        deprecated: { message: 'gone' },
      },
    );
    const bytes = packageDocumentBytes(doc);
    const cap = catalogueCapability(doc, bytes);
    expect(cap).toEqual({
      name: 'PDF 1.1.0',
      summary: 'PDF tools',
      publisher: 'acme',
      latest: '1.1.0',
      tier: 'pro',
      access: 'entitled',
      keywords: ['forms'],
      deprecated: true,
      doc: { path: 'packages/acme/pdf.json', sha256: sha256Hex(bytes) },
    });
  });
});
