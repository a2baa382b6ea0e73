import { open } from 'node:fs/promises';
import { AdcapError } from '../errors.js';

/**
 * `adcap build` never packages a secret key: a package is public, and a signing
 * key inside one lets anyone publish in its owner's name. Two kinds of file are recognised:
 *  - an Arcotheon key file as `adcap keygen` writes it (sdk/src/trust/keys.ts, spec §5): a JSON
 *    object with `alg` and a non-empty string `secretKey`;
 *  - PEM or OpenSSH private keys: a "-----BEGIN … PRIVATE KEY-----" line (PKCS#1, PKCS#8,
 *    encrypted PKCS#8, SEC1 EC, DSA, OpenSSH) or a PGP private key block.
 * Only the first SCAN_BYTES of each file are looked at: key files are small, and a PEM block sits at
 * the top of the files that carry one. The builder checks the bytes it reads for hashing anyway.
 */

export const SCAN_BYTES = 64 * 1024;

const PEM_PRIVATE = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;

/** What kind of secret key `text` holds, or null. */
export function secretKeyKind(text: string): string | null {
  const pem = PEM_PRIVATE.exec(text);
  if (pem !== null) return `a private key ("${pem[0]}")`;
  if (text.includes('"secretKey"')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const { alg, secretKey } = value as { alg?: unknown; secretKey?: unknown };
      if (typeof alg === 'string' && typeof secretKey === 'string' && secretKey !== '')
        return 'an Arcotheon signing key file (it has a "secretKey")';
    }
  }
  return null;
}

/** secretKeyKind of the first SCAN_BYTES of a file's bytes. */
export function secretKeyIn(bytes: Uint8Array): string | null {
  return secretKeyKind(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, SCAN_BYTES)).toString('latin1'));
}

/** The first SCAN_BYTES of a file (for files too large to read whole). */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SCAN_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SCAN_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Throws E_SEMANTIC naming the first path, in package order, that `found` (path -> kind) lists.
 */
export function assertNoSecretKey(paths: readonly string[], found: ReadonlyMap<string, string>): void {
  if (found.size === 0) return;
  for (const path of paths) {
    const kind = found.get(path);
    if (kind === undefined) continue;
    throw new AdcapError(
      'E_SEMANTIC',
      `${path} holds ${kind} and would be published inside the package; move it out of the ` +
        'capability folder (keep keys under your user config directory) or list it in .adcapignore.',
      { details: { path } },
    );
  }
}
