/**
 * Package documents on the client side (spec §13): a document is trusted only because the signed
 * catalogue pins the SHA-256 of its bytes. Steps, in order:
 *   1. checkDocumentPin       bytes hash to the catalogue's doc.sha256   E_DOC_HASH
 *   2. parsePackageDocument   strict JSON, id and per-version id/version  E_DOC_HASH
 */
import { AdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { sha256Hex, SHA256_HEX } from '../../util/hash.js';
import type { PackageDocument } from '../types.js';

export function checkDocumentPin(bytes: Uint8Array, pin: { sha256: string }, id: string): void {
  const actual = sha256Hex(bytes);
  if (actual !== pin.sha256) {
    throw new AdcapError(
      'E_DOC_HASH',
      `The package document of ${id} does not match the SHA-256 pinned by the signed catalogue (got ${actual}, expected ${pin.sha256}); the registry or a mirror served other content, so it was refused.`,
      { details: { id, expected: pin.sha256, actual } },
    );
  }
}

function malformed(id: string, problem: string): AdcapError {
  return new AdcapError('E_DOC_HASH', `The package document of ${id} matches its pin but is malformed (${problem}); the registry must rebuild it.`, {
    details: { id },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parsePackageDocument(bytes: Uint8Array, id: string): PackageDocument {
  let value: unknown;
  try {
    value = parseStrictJson(bytes, `The package document of ${id}`);
  } catch (error) {
    throw malformed(id, (error as Error).message);
  }
  if (!isRecord(value)) throw malformed(id, 'not a JSON object');
  if (value['id'] !== id) throw malformed(id, `it describes ${JSON.stringify(value['id'])}`);
  const versions = value['versions'];
  if (!isRecord(versions)) throw malformed(id, 'no "versions" object');
  for (const [version, entry] of Object.entries(versions)) {
    if (!isRecord(entry) || entry['id'] !== id || entry['version'] !== version) throw malformed(id, `versions["${version}"] names another version`);
    const archive = entry['archive'];
    if (
      !isRecord(archive) ||
      typeof archive['sha256'] !== 'string' ||
      !SHA256_HEX.test(archive['sha256']) ||
      typeof archive['size'] !== 'number' ||
      !Number.isSafeInteger(archive['size']) ||
      archive['size'] < 0 ||
      !Array.isArray(archive['urls']) ||
      !archive['urls'].every((u) => typeof u === 'string')
    ) {
      throw malformed(id, `versions["${version}"].archive is not { sha256, size, urls }`);
    }
    if (typeof entry['manifestSha256'] !== 'string' || !SHA256_HEX.test(entry['manifestSha256'])) throw malformed(id, `versions["${version}"].manifestSha256 is not a SHA-256`);
    const status = entry['status'];
    if (status !== undefined && status !== 'yanked' && status !== 'revoked') throw malformed(id, `versions["${version}"].status is ${JSON.stringify(status)}`);
  }
  return value as unknown as PackageDocument;
}
