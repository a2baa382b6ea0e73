import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../sdk/src/format/manifest-types.js';
import { canonicalJson } from '../../../sdk/src/format/canonical-json.js';
import {
  CATALOG_CONTEXT,
  MAX_SIGNATURES,
  PACKAGE_CONTEXT,
  signEnvelope,
  signedMessage,
  verifyEnvelope,
} from '../../../sdk/src/trust/envelope.js';
import { verifyBytes } from '../../../sdk/src/trust/ed25519.js';
import { keyFromSeed, publicKeyOf, type TrustedKey } from '../../../sdk/src/trust/keys.js';

const alice = keyFromSeed(Buffer.alloc(32, 1));
const bob = keyFromSeed(Buffer.alloc(32, 2));
const carol = keyFromSeed(Buffer.alloc(32, 3));
const payload = { adcap: '1.0', id: 'acme/hello', version: '1.0.0', manifestSha256: 'a'.repeat(64) };

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('signEnvelope / verifyEnvelope (spec §5)', () => {
  it('signs context + "\\n" + canonical JSON of the payload', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    expect(env.signatures).toHaveLength(1);
    const entry = env.signatures[0]!;
    expect(entry).toMatchObject({ keyId: alice.keyId, alg: 'ed25519' });
    const message = Buffer.from(`arcotheon-package-v1\n${canonicalJson(payload)}`, 'utf8');
    expect(Buffer.from(signedMessage(PACKAGE_CONTEXT, payload))).toEqual(message);
    expect(verifyBytes(Buffer.from(entry.sig, 'base64'), message, Buffer.from(alice.publicKey, 'base64'))).toBe(true);
    expect(verifyEnvelope(env, PACKAGE_CONTEXT, [publicKeyOf(alice)])).toEqual({ payload, signedBy: [alice.keyId] });
  });

  it('verification does not depend on payload key order (canonical JSON)', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    const reordered = { manifestSha256: payload.manifestSha256, version: payload.version, id: payload.id, adcap: payload.adcap };
    expect(verifyEnvelope({ ...env, payload: reordered }, PACKAGE_CONTEXT, [publicKeyOf(alice)]).signedBy).toEqual([alice.keyId]);
  });

  it('refuses a signature made for the other context (replay between package and catalogue)', () => {
    const catalogue = signEnvelope(payload, CATALOG_CONTEXT, [alice]);
    expect(code(() => verifyEnvelope(catalogue, PACKAGE_CONTEXT, [publicKeyOf(alice)]))).toBe('E_SIGNATURE');
    const pkg = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    expect(code(() => verifyEnvelope(pkg, CATALOG_CONTEXT, [publicKeyOf(alice)]))).toBe('E_SIGNATURE');
  });

  it('refuses a tampered payload', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    const tampered = { ...env, payload: { ...payload, version: '1.0.1' } };
    expect(code(() => verifyEnvelope(tampered, PACKAGE_CONTEXT, [publicKeyOf(alice)]))).toBe('E_SIGNATURE');
  });

  it("refuses a signature placed under another key's keyId", () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    const swapped = { ...env, signatures: [{ ...env.signatures[0]!, keyId: bob.keyId }] };
    expect(code(() => verifyEnvelope(swapped, PACKAGE_CONTEXT, [publicKeyOf(bob)]))).toBe('E_SIGNATURE');
  });

  it('E_UNTRUSTED when signed only by keys the verifier does not trust', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    expect(code(() => verifyEnvelope(env, PACKAGE_CONTEXT, [publicKeyOf(bob)]))).toBe('E_UNTRUSTED');
    expect(code(() => verifyEnvelope(env, PACKAGE_CONTEXT, []))).toBe('E_UNTRUSTED');
  });

  it('E_REVOKED when the only valid signatures are by revoked keys', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice, bob]);
    const trusted: TrustedKey[] = [
      { ...publicKeyOf(alice), status: 'revoked' },
      { ...publicKeyOf(bob), status: 'revoked' },
    ];
    expect(code(() => verifyEnvelope(env, PACKAGE_CONTEXT, trusted))).toBe('E_REVOKED');
    // One active trusted signer is enough; the revoked one is not listed as a signer.
    const mixed: TrustedKey[] = [
      { ...publicKeyOf(alice), status: 'revoked' },
      { ...publicKeyOf(bob), status: 'active' },
    ];
    expect(verifyEnvelope(env, PACKAGE_CONTEXT, mixed).signedBy).toEqual([bob.keyId]);
    // A key listed twice counts as revoked if either listing says so.
    expect(
      code(() =>
        verifyEnvelope(signEnvelope(payload, PACKAGE_CONTEXT, [alice]), PACKAGE_CONTEXT, [
          publicKeyOf(alice),
          { ...publicKeyOf(alice), status: 'revoked' },
        ]),
      ),
    ).toBe('E_REVOKED');
  });

  it('multi-signature: adds to an existing envelope, keeps old signatures, never duplicates a keyId', () => {
    const one = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    const two = signEnvelope(payload, PACKAGE_CONTEXT, [bob, alice], one);
    expect(two.signatures.map((s) => s.keyId)).toEqual([alice.keyId, bob.keyId]);
    expect(two.signatures[0]).toEqual(one.signatures[0]);
    expect(verifyEnvelope(two, PACKAGE_CONTEXT, [publicKeyOf(alice), publicKeyOf(bob)]).signedBy).toEqual([alice.keyId, bob.keyId]);
    expect(verifyEnvelope(two, PACKAGE_CONTEXT, [publicKeyOf(bob)]).signedBy).toEqual([bob.keyId]);
    // Signing again with the same key adds nothing.
    expect(signEnvelope(payload, PACKAGE_CONTEXT, [alice], two).signatures).toHaveLength(2);
  });

  it('refuses to add signatures to an envelope over a different payload', () => {
    const one = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    expect(code(() => signEnvelope({ ...payload, version: '2.0.0' }, PACKAGE_CONTEXT, [bob], one))).toBe('E_SIGNATURE');
  });

  it('a signature by an unknown key next to a valid trusted one is accepted', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [carol, alice]);
    expect(verifyEnvelope(env, PACKAGE_CONTEXT, [publicKeyOf(alice)])).toEqual({ payload, signedBy: [alice.keyId] });
  });

  it('an invalid signature by a trusted key is refused even when another trusted key verifies', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice, bob]);
    const forged = signEnvelope({ ...payload, version: '9.9.9' }, PACKAGE_CONTEXT, [bob]).signatures[0]!;
    const mixed = { payload, signatures: [env.signatures[0]!, forged] };
    expect(code(() => verifyEnvelope(mixed, PACKAGE_CONTEXT, [publicKeyOf(alice), publicKeyOf(bob)]))).toBe('E_SIGNATURE');
  });

  it('refuses signing with no keys', () => {
    expect(code(() => signEnvelope(payload, PACKAGE_CONTEXT, []))).toBe('E_USAGE');
  });

  describe('malformed envelopes are E_SIGNATURE', () => {
    const good = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    const sig = good.signatures[0]!;
    const cases: Record<string, unknown> = {
      'not an object': 'x',
      null: null,
      array: [good],
      'missing payload': { signatures: good.signatures },
      'payload not an object': { payload: 'x', signatures: good.signatures },
      'payload an array': { payload: [payload], signatures: good.signatures },
      'missing signatures': { payload },
      'signatures not an array': { payload, signatures: sig },
      'empty signatures': { payload, signatures: [] },
      'unknown top-level field': { ...good, extra: 1 },
      'signature not an object': { payload, signatures: ['x'] },
      'unknown alg': { payload, signatures: [{ ...sig, alg: 'rsa' }] },
      'missing alg': { payload, signatures: [{ keyId: sig.keyId, sig: sig.sig }] },
      'uppercase keyId': { payload, signatures: [{ ...sig, keyId: sig.keyId.toUpperCase() }] },
      'short keyId': { payload, signatures: [{ ...sig, keyId: 'abcd' }] },
      'bad base64': { payload, signatures: [{ ...sig, sig: `${sig.sig.slice(0, -2)}!!` }] },
      'url-safe base64': { payload, signatures: [{ ...sig, sig: sig.sig.replace(/\+/g, '-').replace(/\//g, '_') }] },
      'sig not a string': { payload, signatures: [{ ...sig, sig: 5 }] },
      'wrong-length sig': { payload, signatures: [{ ...sig, sig: Buffer.alloc(63, 1).toString('base64') }] },
      'unknown field in signature': { payload, signatures: [{ ...sig, ts: 1 }] },
      'duplicate keyId': { payload, signatures: [sig, sig] },
      'too many signatures': {
        payload,
        signatures: Array.from({ length: MAX_SIGNATURES + 1 }, (_, i) => ({ ...sig, keyId: i.toString(16).padStart(64, '0') })),
      },
    };
    for (const [name, envelope] of Object.entries(cases)) {
      it(name, () => {
        expect(code(() => verifyEnvelope(envelope, PACKAGE_CONTEXT, [publicKeyOf(alice)]))).toBe('E_SIGNATURE');
      });
    }

    it('a bad signature by an unknown key is still refused as malformed', () => {
      const env: Envelope<typeof payload> = { payload, signatures: [sig, { keyId: bob.keyId, alg: 'ed25519', sig: 'AAAA' }] };
      expect(code(() => verifyEnvelope(env, PACKAGE_CONTEXT, [publicKeyOf(alice)]))).toBe('E_SIGNATURE');
    });
  });

  it('refuses a trusted-key list whose keyId does not match its public key', () => {
    const env = signEnvelope(payload, PACKAGE_CONTEXT, [alice]);
    expect(code(() => verifyEnvelope(env, PACKAGE_CONTEXT, [{ keyId: alice.keyId, publicKey: bob.publicKey }]))).toBe('E_USAGE');
  });
});
