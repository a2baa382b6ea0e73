import { AdcapError } from '../errors.js';
import { canonicalJson } from '../format/canonical-json.js';
import type { Envelope, SignatureEntry } from '../format/manifest-types.js';
import { sha256Hex } from '../util/hash.js';
import { decodeBase64Strict, encodeBase64 } from './base64.js';
import { ED25519_SIGNATURE_BYTES, signBytes, verifyBytes } from './ed25519.js';
import { decodePublicKey, isKeyId, secretSeedOf, type KeyFile, type TrustedKey } from './keys.js';

/**
 * Signature envelopes (spec §5, DESIGN §4): `{ payload, signatures: [{ keyId, alg, sig }] }`.
 * The signed message is the context string, a newline, and the canonical JSON of the payload.
 * The context separates roles, so a signature can never be replayed in the other role.
 */
export const PACKAGE_CONTEXT = 'arcotheon-package-v1';
export const CATALOG_CONTEXT = 'arcotheon-catalog-v1';
/**
 * The top level of a registry's v2/ layout (docs/scaling.md "Version 2"): a role of its own, so a v1
 * catalogue signature never verifies as a v2 top level, nor the reverse.
 */
export const CATALOG_V2_CONTEXT = 'arcotheon-catalog-v2';
export type SignatureContext = typeof PACKAGE_CONTEXT | typeof CATALOG_CONTEXT | typeof CATALOG_V2_CONTEXT;

/**
 * More signatures than any real publisher uses; the cap keeps a hostile envelope from making a
 * verifier spend unbounded time.
 */
export const MAX_SIGNATURES = 32;

const CONTEXTS: readonly string[] = [PACKAGE_CONTEXT, CATALOG_CONTEXT, CATALOG_V2_CONTEXT];

/** spec §5: the exact bytes a signature covers. */
export function signedMessage(context: SignatureContext, payload: unknown): Uint8Array {
  assertContext(context);
  return Buffer.from(`${context}\n${canonicalJson(payload)}`, 'utf8');
}

/**
 * Signs `payload` with every key in `keys`. With `existing`, its signatures are kept and the new
 * ones appended; it must cover the same payload, and a key that already signed is not added twice.
 */
export function signEnvelope<P>(payload: P, context: SignatureContext, keys: readonly KeyFile[], existing?: Envelope<P>): Envelope<P> {
  if (keys.length === 0) throw new AdcapError('E_USAGE', 'Signing needs at least one key; pass a key file written by "adcap keygen".');
  const message = signedMessage(context, payload);
  const signatures: SignatureEntry[] = [];
  if (existing !== undefined) {
    const checked = parseEnvelope(existing, 'The envelope to add signatures to');
    if (canonicalJson(checked.payload) !== canonicalJson(payload)) {
      throw new AdcapError(
        'E_SIGNATURE',
        'The existing signatures cover a different payload than the one being signed; ' +
          'rebuild the package or remove its SIGNATURE.json before signing.',
      );
    }
    signatures.push(...checked.signatures.map((s) => ({ ...s })));
  }
  for (const key of keys) {
    if (signatures.some((s) => s.keyId === key.keyId)) continue; // spec §5: one signature per key
    signatures.push({ keyId: key.keyId, alg: 'ed25519', sig: encodeBase64(signBytes(message, secretSeedOf(key))) });
  }
  if (signatures.length > MAX_SIGNATURES) {
    throw new AdcapError('E_SIGNATURE', `An envelope may carry at most ${MAX_SIGNATURES} signatures; sign with fewer keys.`);
  }
  return { payload, signatures };
}

export interface VerifiedEnvelope<P> {
  payload: P;
  /** keyIds whose signature verified under a trusted, non-revoked key, in envelope order. */
  signedBy: string[];
}

/**
 * Verifies an envelope (spec §5), in order:
 * 1. shape: exactly `payload` and a non-empty `signatures` array of `{ keyId, alg, sig }`,
 *    alg "ed25519", keyIds unique, sig the base64 of 64 bytes (else E_SIGNATURE);
 * 2. each signature by a key in `trusted` must verify over context + payload (else E_SIGNATURE;
 *    this is what refuses a signature made for the other context); signatures by keys not in
 *    `trusted` cannot be checked and are ignored;
 * 3. at least one verified signer must not be revoked: E_REVOKED when every verified signer is
 *    revoked, E_UNTRUSTED when no signature is by a trusted key.
 */
export function verifyEnvelope<P>(envelope: unknown, context: SignatureContext, trusted: readonly TrustedKey[]): VerifiedEnvelope<P> {
  assertContext(context);
  const checked = parseEnvelope(envelope, 'The signature envelope');
  const keys = indexTrustedKeys(trusted);
  const message = signedMessage(context, checked.payload);
  const signedBy: string[] = [];
  const revokedSigners: string[] = [];
  for (const signature of checked.signatures) {
    const key = keys.get(signature.keyId);
    if (key === undefined) continue;
    const sig = decodeBase64Strict(signature.sig) as Buffer; // shape-checked above
    if (!verifyBytes(sig, message, key.publicKey)) {
      throw new AdcapError(
        'E_SIGNATURE',
        `The signature by key ${signature.keyId} does not match the signed data (${context}); ` +
          'the content was changed after signing or the signature was made for something else.',
        { details: { keyId: signature.keyId, context } },
      );
    }
    (key.revoked ? revokedSigners : signedBy).push(signature.keyId);
  }
  if (signedBy.length > 0) return { payload: checked.payload as P, signedBy };
  if (revokedSigners.length > 0) {
    throw new AdcapError(
      'E_REVOKED',
      `The only valid signatures are by revoked keys (${revokedSigners.join(', ')}); ` +
        'do not use this content, and ask the publisher for a copy signed with a current key.',
      {
        details: { keyIds: revokedSigners },
      },
    );
  }
  const keyIds = checked.signatures.map((s) => s.keyId);
  throw new AdcapError(
    'E_UNTRUSTED',
    `No signature is by a trusted key (signed by ${keyIds.join(', ')}); trust the publisher's public key if you know it is theirs.`,
    {
      details: { keyIds },
    },
  );
}

/**
 * The strict shape check of an envelope, without verifying signatures: E_SIGNATURE with a
 * sentence naming the problem. `what` names the document in messages.
 */
export function parseEnvelope(value: unknown, what: string): Envelope<unknown> {
  const fail = (problem: string): never => {
    throw new AdcapError('E_SIGNATURE', `${what} is malformed: ${problem}.`);
  };
  if (!isPlainObject(value)) return fail('it is not a JSON object');
  for (const field of Object.keys(value)) {
    if (field !== 'payload' && field !== 'signatures')
      fail(`it has the unknown field "${field}" (only "payload" and "signatures" are allowed)`);
  }
  if (!isPlainObject(value.payload)) fail('"payload" is missing or not an object');
  const list = value.signatures;
  if (!Array.isArray(list)) return fail('"signatures" is missing or not an array');
  if (list.length === 0) fail('"signatures" is empty');
  if (list.length > MAX_SIGNATURES) fail(`it has ${list.length} signatures, more than the ${MAX_SIGNATURES} allowed`);
  const seen = new Set<string>();
  const signatures = list.map((entry: unknown, index: number): SignatureEntry => {
    const at = `signatures[${index}]`;
    if (!isPlainObject(entry)) return fail(`${at} is not an object`);
    for (const field of Object.keys(entry)) {
      if (field !== 'keyId' && field !== 'alg' && field !== 'sig') fail(`${at} has the unknown field "${field}"`);
    }
    const { keyId, alg, sig } = entry;
    if (!isKeyId(keyId)) return fail(`${at}.keyId is not 64 lowercase hex characters`);
    if (alg !== 'ed25519') return fail(`${at}.alg is ${JSON.stringify(alg)}, but only "ed25519" is supported`);
    if (typeof sig !== 'string') return fail(`${at}.sig is missing or not a string`);
    const bytes = decodeBase64Strict(sig);
    if (bytes === null) return fail(`${at}.sig is not standard base64`);
    if (bytes.length !== ED25519_SIGNATURE_BYTES)
      fail(`${at}.sig is ${bytes.length} bytes, but an Ed25519 signature is ${ED25519_SIGNATURE_BYTES}`);
    if (seen.has(keyId)) fail(`key ${keyId} signs twice`);
    seen.add(keyId);
    return { keyId, alg, sig };
  });
  return { payload: value.payload, signatures };
}

interface IndexedKey {
  publicKey: Uint8Array;
  revoked: boolean;
}

/** Trusted keys by keyId. A keyId that does not hash from its public key is a caller bug. */
function indexTrustedKeys(trusted: readonly TrustedKey[]): Map<string, IndexedKey> {
  const keys = new Map<string, IndexedKey>();
  for (const key of trusted) {
    const publicKey = decodePublicKey(key.publicKey, `The trusted key ${key.keyId}`);
    const keyId = sha256Hex(publicKey);
    if (keyId !== key.keyId) {
      throw new AdcapError(
        'E_USAGE',
        `The trusted key listed as ${key.keyId} has a public key whose keyId is ${keyId}; fix the list of trusted keys.`,
      );
    }
    const previous = keys.get(keyId);
    // A key listed twice is revoked if any listing says so.
    keys.set(keyId, { publicKey, revoked: key.status === 'revoked' || previous?.revoked === true });
  }
  return keys;
}

function assertContext(context: string): void {
  if (!CONTEXTS.includes(context))
    throw new AdcapError('E_USAGE', `Unknown signature context ${JSON.stringify(context)}; use ${CONTEXTS.join(' or ')}.`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
