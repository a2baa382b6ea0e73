/**
 * Package documents on the client side (spec §13): a document is trusted only because the signed
 * catalogue pins the SHA-256 of its bytes. Steps, in order:
 *   1. checkDocumentPin       bytes hash to the catalogue's doc.sha256   E_DOC_HASH
 *   2. parsePackageDocument   strict JSON, registry-1.json#/$defs/packageDocument,
 *                             id and per-version id/version              E_DOC_HASH
 *   3. the fields spec §13 does not name, filled (fallbacks.ts)
 */
import { AdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { escapePointer } from '../../format/canonical-json.js';
import { sha256Hex } from '../../util/hash.js';
import { bareFallbacks, packageDocumentWithFallbacks, type DocumentFallbacks } from '../fallbacks.js';
import { checkRegistryDocument } from '../schema.js';
import type { PackageDocument } from '../types.js';

export function checkDocumentPin(bytes: Uint8Array, pin: { sha256: string }, id: string): void {
  const actual = sha256Hex(bytes);
  if (actual !== pin.sha256) {
    throw new AdcapError(
      'E_DOC_HASH',
      `The package document of ${id} does not match the SHA-256 pinned ` +
        `by the signed catalogue (got ${actual}, expected ${pin.sha256}); ` +
        'the registry or a mirror served other content, so it was refused.',
      { details: { id, expected: pin.sha256, actual } },
    );
  }
}

function malformed(id: string, problem: string, details: Record<string, unknown> = {}): AdcapError {
  return new AdcapError(
    'E_DOC_HASH',
    `The package document of ${id} matches its pin but is malformed: ${problem}; the registry must rebuild it.`,
    {
      details: { id, ...details },
    },
  );
}

/**
 * spec §13: strict JSON, the shape of registry-1.json#/$defs/packageDocument, and what a schema
 * cannot say: the document describes `id`, and each version's entry is that version of `id`
 * (where the document says; its path and keys say it otherwise). The fields spec §13 does not
 * name fall back to `fallbacks`: the catalogue's record of `id` and its generatedAt.
 */
export function parsePackageDocument(bytes: Uint8Array, id: string, fallbacks: DocumentFallbacks = bareFallbacks(id)): PackageDocument {
  let value: unknown;
  try {
    value = parseStrictJson(bytes, `The package document of ${id}`);
  } catch (error) {
    throw malformed(id, (error as Error).message);
  }
  const doc = checkRegistryDocument('packageDocument', value, (problem) =>
    malformed(id, problem.text, { pointer: problem.pointer, keyword: problem.keyword }),
  );
  if (doc.id !== undefined && doc.id !== id)
    throw malformed(id, `/id is ${JSON.stringify(doc.id)}, another capability`, { pointer: '/id' });
  for (const [version, entry] of Object.entries(doc.versions)) {
    if ((entry.id ?? id) !== id || (entry.version ?? version) !== version) {
      const pointer = `/versions/${escapePointer(version)}`;
      const named = `${entry.id ?? id}@${entry.version ?? version}`;
      throw malformed(id, `${pointer} names ${JSON.stringify(named)}, another version`, { pointer });
    }
  }
  return packageDocumentWithFallbacks(doc, id, fallbacks);
}

/** The fallbacks of a package document (fallbacks.ts): its catalogue record and the catalogue's generatedAt. */
export function catalogueFallbacks(
  record: { name: string; summary: string; keywords: readonly string[] },
  generatedAt: string,
): DocumentFallbacks {
  return { name: record.name, summary: record.summary, keywords: record.keywords, generatedAt };
}
