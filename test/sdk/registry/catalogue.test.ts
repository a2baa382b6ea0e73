import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../../sdk/src/format/canonical-json.js';
import { buildCataloguePayload, verifyCatalogue } from '../../../sdk/src/registry/catalogue.js';
import { foldPackageDocument, packageDocumentBytes } from '../../../sdk/src/registry/documents.js';
import type { CataloguePayload } from '../../../sdk/src/registry/types.js';
import { CATALOG_CONTEXT, PACKAGE_CONTEXT, signEnvelope } from '../../../sdk/src/trust/envelope.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';
import { sha256Hex } from '../../../sdk/src/util/hash.js';
import { versionEntry } from '../../helpers/registry-fixtures.js';

const root = generateKey();
const publisherKey = generateKey();
const now = new Date('2026-11-30T12:00:00Z');

function payload(sequence: number, generatedAt = '2026-11-30T11:00:00Z'): CataloguePayload {
  const entry = versionEntry('1.0.0', {
    archive: { sha256: 'b'.repeat(64), size: 1, urls: [] },
    signers: [publisherKey.keyId],
    publishedAt: generatedAt,
    name: 'PDF',
    keywords: [],
  });
  const doc = foldPackageDocument('acme/pdf', [entry], {});
  return buildCataloguePayload({
    registry: 'test',
    sequence,
    generatedAt,
    publishers: [{ id: 'acme', name: 'Acme', keys: [{ keyId: publisherKey.keyId, publicKey: publisherKey.publicKey, status: 'active' }] }],
    documents: [{ doc, bytes: packageDocumentBytes(doc) }],
  });
}

describe('verifyCatalogue', () => {
  it('accepts a catalogue signed by a pinned root key and reports its content digest', () => {
    const p = payload(3);
    const envelope = signEnvelope(p, CATALOG_CONTEXT, [root]);
    const verified = verifyCatalogue(Buffer.from(JSON.stringify(envelope)), [root.publicKey], { now });
    expect(verified.payload.sequence).toBe(3);
    expect(verified.signedBy).toEqual([root.keyId]);
    expect(verified.payloadSha256).toBe(sha256Hex(canonicalBytes(p)));
    expect(verified.payload.capabilities['acme/pdf']?.latest).toBe('1.0.0');
  });

  it('accepts the same catalogue again (same sequence, same content) and a higher sequence', () => {
    const first = verifyCatalogue(signEnvelope(payload(3), CATALOG_CONTEXT, [root]), [root.publicKey], { now });
    const state = { sequence: 3, payloadSha256: first.payloadSha256, now };
    expect(() => verifyCatalogue(signEnvelope(payload(3), CATALOG_CONTEXT, [root]), [root.publicKey], state)).not.toThrow();
    expect(() => verifyCatalogue(signEnvelope(payload(4), CATALOG_CONTEXT, [root]), [root.publicKey], state)).not.toThrow();
  });

  it('checks the signature before anything else: an unsigned stale low catalogue is E_CATALOG', () => {
    const envelope = signEnvelope(payload(1, '2020-01-01T00:00:00Z'), PACKAGE_CONTEXT, [root]);
    expect(() => verifyCatalogue(envelope, [root.publicKey], { sequence: 5, now })).toThrow(expect.objectContaining({ code: 'E_CATALOG' }));
  });

  it('refuses a catalogue below the shipped minimum sequence (DESIGN §10) with E_ROLLBACK', () => {
    const envelope = signEnvelope(payload(2), CATALOG_CONTEXT, [root]);
    expect(() => verifyCatalogue(envelope, [root.publicKey], { minSequence: 3, now })).toThrow(
      expect.objectContaining({ code: 'E_ROLLBACK' }),
    );
  });

  it('refuses a signed payload that is not shaped like a catalogue with E_CATALOG', () => {
    const envelope = signEnvelope({ registry: 'test', spec: 1, sequence: 'one' }, CATALOG_CONTEXT, [root]);
    expect(() => verifyCatalogue(envelope, [root.publicKey], { now })).toThrow(expect.objectContaining({ code: 'E_CATALOG' }));
  });

  it('refuses invalid JSON and duplicate keys with E_CATALOG', () => {
    expect(() => verifyCatalogue(Buffer.from('{"payload":{},"payload":{}}'), [root.publicKey], { now })).toThrow(
      expect.objectContaining({ code: 'E_CATALOG' }),
    );
  });

  it('refuses when no root key is pinned', () => {
    expect(() => verifyCatalogue(signEnvelope(payload(1), CATALOG_CONTEXT, [root]), [], { now })).toThrow(
      expect.objectContaining({ code: 'E_CATALOG' }),
    );
  });
});
