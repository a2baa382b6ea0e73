import { open } from 'node:fs/promises';
import { AdcapError, asAdcapError } from '../errors.js';

/**
 * `adcap build` never packages a secret key (issue 12 item 17): a package is public, and a signing
 * key inside one lets anyone publish in its owner's name. Two kinds of file are recognised:
 *  - an Arcotheon key file as `adcap keygen` writes it (sdk/src/trust/keys.ts, spec §5): a JSON
 *    object with `alg` and a string `secretKey`;
 *  - PEM or OpenSSH private keys: a "-----BEGIN … PRIVATE KEY-----" line (PKCS#1, PKCS#8,
 *    encrypted PKCS#8, SEC1 EC, DSA, OpenSSH) or a PGP private key block.
 * Only the first SCAN_BYTES of each file are read: key files are small, and a PEM block sits at the
 * top of the files that carry one.
 */

export const SCAN_BYTES = 64 * 1024;
const BATCH = 16;

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
      if (typeof alg === 'string' && typeof secretKey === 'string' && secretKey !== '') return 'an Arcotheon signing key file (it has a "secretKey")';
    }
  }
  return null;
}

/** Throws E_SEMANTIC naming the first file (package path) that holds a secret key. */
export async function assertNoSecretKeys(files: readonly { path: string; absolute: string }[]): Promise<void> {
  // Read in batches (a package may have thousands of files), then report in package order.
  const kinds: (string | null)[] = [];
  for (let i = 0; i < files.length; i += BATCH) {
    kinds.push(...(await Promise.all(files.slice(i, i + BATCH).map(async (f) => secretKeyKind(await readHead(f.absolute))))));
  }
  for (const [i, file] of files.entries()) {
    const kind = kinds[i] ?? null;
    if (kind !== null) {
      throw new AdcapError(
        'E_SEMANTIC',
        `${file.path} holds ${kind} and would be published inside the package; move it out of the capability folder (keep keys under your user config directory) or list it in .adcapignore.`,
        { details: { path: file.path } },
      );
    }
  }
}

async function readHead(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(SCAN_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SCAN_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('latin1');
  } catch (error) {
    throw asAdcapError(error, `Cannot read ${path}`);
  } finally {
    await handle?.close();
  }
}
