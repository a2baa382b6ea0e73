import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';

/**
 * The one place that configures @noble/ed25519 (v3). Its synchronous API needs a SHA-512
 * implementation; node:crypto's is used so no second hashing library is pulled in.
 */
ed.hashes.sha512 = (message: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha512').update(message).digest());

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SECRET_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

export function randomSeed(): Uint8Array {
  return ed.utils.randomSecretKey();
}

export function publicKeyFromSeed(seed: Uint8Array): Uint8Array {
  return ed.getPublicKey(seed);
}

export function signBytes(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return ed.sign(message, seed);
}

/**
 * Strict RFC 8032 verification (`zip215: false`): no torsion-tolerant acceptance, so a signature
 * binds one message to one key. Malformed points verify as false instead of throwing.
 */
export function verifyBytes(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
