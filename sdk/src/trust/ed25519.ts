import { createHash, createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import * as ed from '@noble/ed25519';

/**
 * Ed25519 (RFC 8032) for keys, package signatures and catalogues: node:crypto (OpenSSL, ~0.2 ms a
 * verification) where it has Ed25519, else @noble/ed25519 in JavaScript (several ms). Both give
 * the same answers: a test compares them on the RFC vectors, random keys and hostile inputs.
 *
 * The one place that configures @noble/ed25519 (v3). Its synchronous API needs a SHA-512
 * implementation; node:crypto's is used so no second hashing library is pulled in.
 */
ed.hashes.sha512 = (message: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha512').update(message).digest());

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SECRET_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** The DER prefixes of an Ed25519 key (RFC 8410): PKCS #8 before a 32-byte seed, SPKI before a public key. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** One implementation of the three operations; `ed25519Implementations` names both for the tests. */
export interface Ed25519 {
  publicKeyFromSeed(seed: Uint8Array): Uint8Array;
  sign(message: Uint8Array, seed: Uint8Array): Uint8Array;
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

const noble: Ed25519 = {
  publicKeyFromSeed: (seed) => ed.getPublicKey(seed),
  sign: (message, seed) => ed.sign(message, seed),
  verify: (signature, message, publicKey) => {
    try {
      return ed.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
};

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== ED25519_SECRET_KEY_BYTES) throw new TypeError(`an Ed25519 seed is ${ED25519_SECRET_KEY_BYTES} bytes`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

const openssl: Ed25519 = {
  publicKeyFromSeed: (seed) => {
    const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' });
    return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
  },
  sign: (message, seed) => new Uint8Array(nodeSign(null, message, privateKeyOf(seed))),
  verify: (signature, message, publicKey) => {
    if (signature.length !== ED25519_SIGNATURE_BYTES || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
    // OpenSSL checks S < L and compares R with its canonical re-encoding; the rest of the strict
    // rules @noble applies with zip215: false are checked here, before the point arithmetic.
    if (!canonicalPoint(publicKey) || isSmallOrder(publicKey) || !canonicalPoint(signature.subarray(0, 32))) return false;
    if (!scalarBelowOrder(signature.subarray(32))) return false;
    try {
      const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
      return nodeVerify(null, message, key, signature);
    } catch {
      return false;
    }
  },
};

/** 2^255 - 19, little-endian. */
const P_LE = Buffer.from('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex');
/** The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const L_LE = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');

/** a < b for 32-byte little-endian numbers. */
function lessThan(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/** RFC 8032 §5.1.3 strict decoding: y < p, and no sign bit on x = 0 (the points y = 1 and y = -1). */
function canonicalPoint(bytes: Uint8Array): boolean {
  const y = Uint8Array.from(bytes);
  y[31] = (y[31] ?? 0) & 0x7f;
  if (!lessThan(y, P_LE)) return false;
  const signed = ((bytes[31] ?? 0) & 0x80) !== 0;
  const hex = Buffer.from(y).toString('hex');
  return !(signed && (hex === ONE_HEX || hex === MINUS_ONE_HEX));
}

const ONE_HEX = `01${'00'.repeat(31)}`;
const MINUS_ONE_HEX = `ec${'ff'.repeat(30)}7f`;

/** The canonical encodings of the eight points of order 1, 2, 4 and 8 (the non-canonical ones fail canonicalPoint). */
const SMALL_ORDER = new Set([
  ONE_HEX,
  MINUS_ONE_HEX,
  '00'.repeat(32),
  `${'00'.repeat(31)}80`,
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
]);

/** A public key of small order verifies forged signatures for many messages; @noble's strict mode refuses them too. */
function isSmallOrder(publicKey: Uint8Array): boolean {
  return SMALL_ORDER.has(Buffer.from(publicKey).toString('hex'));
}

function scalarBelowOrder(s: Uint8Array): boolean {
  return lessThan(s, L_LE);
}

/** RFC 8032 §7.1 test 1: a seed, its public key, and its signature of the empty message. */
const RFC8032_TEST1 = {
  seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  signature:
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
};

/**
 * Whether this Node's crypto verifies Ed25519 (Electron builds may not): test 1's signature
 * verifies, and with one bit of it changed does not. Verification only: deriving a key and
 * signing as well cost every process that checks a signature 6-13 ms more (keys and signatures
 * are made by publishers only, and checked apart: opensslSigns).
 */
function opensslVerifies(): boolean {
  try {
    const publicKey = Buffer.from(RFC8032_TEST1.publicKey, 'hex');
    const signature = Buffer.from(RFC8032_TEST1.signature, 'hex');
    const changed = Buffer.from(signature);
    changed[10] = (changed[10] ?? 0) ^ 1;
    return openssl.verify(signature, new Uint8Array(0), publicKey) && !openssl.verify(changed, new Uint8Array(0), publicKey);
  } catch {
    return false;
  }
}

/** Whether this Node's crypto derives Ed25519 keys and signs: test 1's public key and signature from its seed. */
function opensslSigns(): boolean {
  try {
    const seed = Buffer.from(RFC8032_TEST1.seed, 'hex');
    return (
      Buffer.from(openssl.publicKeyFromSeed(seed)).toString('hex') === RFC8032_TEST1.publicKey &&
      Buffer.from(openssl.sign(new Uint8Array(0), seed)).toString('hex') === RFC8032_TEST1.signature
    );
  } catch {
    return false;
  }
}

let verifier: Ed25519 | undefined;
let signer: Ed25519 | undefined;
const verifyImpl = (): Ed25519 => (verifier ??= opensslVerifies() ? openssl : noble);
const signImpl = (): Ed25519 => (signer ??= opensslSigns() ? openssl : noble);

/** Which implementation verifies and which signs in this process (the tests check node:crypto's is chosen here). */
export function ed25519InUse(): { verify: 'node:crypto' | '@noble/ed25519'; sign: 'node:crypto' | '@noble/ed25519' } {
  const name = (chosen: Ed25519): 'node:crypto' | '@noble/ed25519' => (chosen === openssl ? 'node:crypto' : '@noble/ed25519');
  return { verify: name(verifyImpl()), sign: name(signImpl()) };
}

/** Both implementations, for the tests that compare them. */
export const ed25519Implementations: { readonly openssl: Ed25519; readonly noble: Ed25519 } = { openssl, noble };

export function randomSeed(): Uint8Array {
  return ed.utils.randomSecretKey();
}

export function publicKeyFromSeed(seed: Uint8Array): Uint8Array {
  return signImpl().publicKeyFromSeed(seed);
}

export function signBytes(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return signImpl().sign(message, seed);
}

/**
 * Strict RFC 8032 verification (`zip215: false` in @noble's terms): canonical encodings, S < L, no
 * small-order public key, so a signature binds one message to one key. Malformed points verify as
 * false instead of throwing.
 */
export function verifyBytes(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return verifyImpl().verify(signature, message, publicKey);
}
