import { constants } from 'node:fs';
import { link, mkdir, open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AdcapError, asAdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { sha256Hex } from '../util/hash.js';
import { fsyncDir, tempPathFor, writeFileAtomic } from '../util/fs-atomic.js';
import { decodeBase64Strict, encodeBase64 } from './base64.js';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SECRET_KEY_BYTES, publicKeyFromSeed, randomSeed } from './ed25519.js';

/**
 * Ed25519 keys (spec §5, DESIGN §4). A key file written by `adcap keygen` is
 * `{ alg: "ed25519", keyId, publicKey, secretKey }`: standard base64 of the raw 32-byte public key
 * and of the 32-byte secret seed, and keyId = hex SHA-256 of the raw public key.
 */
export interface KeyFile {
  /** The key algorithm; always `ed25519`. */
  alg: 'ed25519';
  /** The key's id: hex SHA-256 of the raw public key. */
  keyId: string;
  /** The raw 32-byte public key, standard base64. */
  publicKey: string;
  /** The 32-byte secret seed, standard base64: keep the file private (0600). */
  secretKey: string;
}

/** A public key a verifier trusts (from `--trust`, a publisher record or a catalogue). */
export interface TrustedKey {
  /** The key's id: hex SHA-256 of the raw public key. */
  keyId: string;
  /** The raw 32-byte Ed25519 public key, standard base64. */
  publicKey: string;
  /** `revoked` keys are known but verify nothing; default `active`. */
  status?: 'active' | 'revoked';
}

const KEY_ID = /^[0-9a-f]{64}$/;
const KEY_FILE_FIELDS = ['alg', 'keyId', 'publicKey', 'secretKey'] as const;
/** A key file is a few hundred bytes; anything much larger is not one. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

export function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID.test(value);
}

/** spec §5: keyId = SHA-256(raw 32-byte public key) in hex. */
export function keyIdOf(publicKeyBase64: string): string {
  return sha256Hex(decodePublicKey(publicKeyBase64, 'The public key'));
}

/** A fresh key from the platform's CSPRNG. */
export function generateKey(): KeyFile {
  const seed = randomSeed();
  return keyFromSeed(seed);
}

/** The key file for a 32-byte secret seed (deterministic; used by tests and key import). */
export function keyFromSeed(seed: Uint8Array): KeyFile {
  if (seed.length !== ED25519_SECRET_KEY_BYTES) {
    throw new AdcapError('E_USAGE', `An Ed25519 secret key is ${ED25519_SECRET_KEY_BYTES} bytes, but ${seed.length} were given.`);
  }
  const publicKey = encodeBase64(publicKeyFromSeed(seed));
  return { alg: 'ed25519', keyId: keyIdOf(publicKey), publicKey, secretKey: encodeBase64(seed) };
}

/** The public half of a key, as a verifier would hold it. */
export function publicKeyOf(key: KeyFile): TrustedKey {
  return { keyId: key.keyId, publicKey: key.publicKey };
}

/**
 * A trusted key from its base64 public key (the `--trust` form); keyId is computed, never taken
 * on faith.
 */
export function trustedKeyFromPublicKey(publicKeyBase64: string, status?: 'active' | 'revoked'): TrustedKey {
  const keyId = keyIdOf(publicKeyBase64);
  return status === undefined ? { keyId, publicKey: publicKeyBase64 } : { keyId, publicKey: publicKeyBase64, status };
}

/** The raw 32 public-key bytes; E_USAGE with a clear sentence when `text` is not one. */
export function decodePublicKey(text: string, what: string): Buffer {
  const bytes = typeof text === 'string' ? decodeBase64Strict(text) : null;
  if (bytes === null || bytes.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new AdcapError(
      'E_USAGE',
      `${what} must be the standard base64 of a ${ED25519_PUBLIC_KEY_BYTES}-byte Ed25519 ` +
        'public key (44 characters ending in "="), such as the publicKey field of a key file.',
    );
  }
  return bytes;
}

/** The 32-byte seed of a validated key file. */
export function secretSeedOf(key: KeyFile): Buffer {
  const seed = decodeBase64Strict(key.secretKey);
  if (seed === null || seed.length !== ED25519_SECRET_KEY_BYTES) {
    throw new AdcapError(
      'E_USAGE',
      `The secret key of key ${key.keyId} is not the base64 of a ` +
        `${ED25519_SECRET_KEY_BYTES}-byte seed; use a key file written by "adcap keygen".`,
    );
  }
  return seed;
}

/**
 * Checks that `value` is a complete, self-consistent key file: exactly the four fields, alg
 * ed25519, a 32-byte seed, the public key derived from that seed and the keyId derived from the
 * public key. `where` names the file in messages.
 */
export function parseKeyFile(value: unknown, where: string): KeyFile {
  const fail = (problem: string): never => {
    throw new AdcapError('E_USAGE', `${where} is not a usable key file: ${problem}; create one with "adcap keygen -o <file>".`, {
      details: { file: where },
    });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('it is not a JSON object');
  const record = value as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!(KEY_FILE_FIELDS as readonly string[]).includes(field)) fail(`it has the unknown field "${field}"`);
  }
  for (const field of KEY_FILE_FIELDS) {
    if (typeof record[field] !== 'string') fail(`the field "${field}" is missing or not a string`);
  }
  const { alg, keyId, publicKey, secretKey } = record as Record<(typeof KEY_FILE_FIELDS)[number], string>;
  if (alg !== 'ed25519') fail(`its alg is "${alg}", but only "ed25519" is supported`);
  const seed = decodeBase64Strict(secretKey);
  if (seed === null || seed.length !== ED25519_SECRET_KEY_BYTES)
    fail(`secretKey is not the standard base64 of a ${ED25519_SECRET_KEY_BYTES}-byte seed`);
  const pub = decodeBase64Strict(publicKey);
  if (pub === null || pub.length !== ED25519_PUBLIC_KEY_BYTES)
    fail(`publicKey is not the standard base64 of a ${ED25519_PUBLIC_KEY_BYTES}-byte public key`);
  if (encodeBase64(publicKeyFromSeed(seed as Buffer)) !== publicKey) fail('publicKey does not belong to secretKey');
  if (sha256Hex(pub as Buffer) !== keyId) fail('keyId is not the SHA-256 of publicKey');
  return { alg: 'ed25519', keyId, publicKey, secretKey };
}

/** Reads and validates a key file (see parseKeyFile). */
export async function readKeyFile(path: string): Promise<KeyFile> {
  let bytes: Buffer;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new AdcapError('E_USAGE', `${path} is not a file; pass the path of a key file written by "adcap keygen".`);
    if (info.size > MAX_KEY_FILE_BYTES)
      throw new AdcapError(
        'E_USAGE',
        `${path} is ${info.size} bytes, far too large to be a key file; pass the path of a key file written by "adcap keygen".`,
      );
    bytes = await readFile(path);
  } catch (error) {
    throw asAdcapError(error, `Cannot read the key file ${path}`);
  }
  return parseKeyFile(parseStrictJson(bytes, `The key file ${path}`), path);
}

/**
 * Writes a key file with mode 0600 (DESIGN §4). It never replaces an existing file unless
 * `force` is set: losing a secret key by a mistyped path cannot be undone. The write is atomic:
 * the content goes to a 0600 temp file that is then linked (or, with force, renamed) into place.
 */
export async function writeKeyFile(path: string, key: KeyFile, options: { force?: boolean } = {}): Promise<void> {
  const checked = parseKeyFile(key, 'The key to write');
  const text = `${JSON.stringify(checked, null, 2)}\n`;
  try {
    if (options.force === true) {
      await writeFileAtomic(path, text, { mode: 0o600 });
      return;
    }
    await mkdir(dirname(path), { recursive: true });
    const temp = tempPathFor(path);
    let handle: FileHandle | undefined;
    try {
      handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      await handle.writeFile(text);
      await handle.sync();
      await handle.close();
      handle = undefined;
      // link() fails with EEXIST instead of replacing, so an existing key survives even a race.
      await link(temp, path);
    } finally {
      await handle?.close().catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
    }
    await fsyncDir(dirname(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new AdcapError(
        'E_USAGE',
        `${path} already exists and may hold another key; choose a new path, or pass --force to replace it (the old key is then lost).`,
        {
          details: { file: path },
        },
      );
    }
    throw asAdcapError(error, `Cannot write the key file ${path}`);
  }
}
