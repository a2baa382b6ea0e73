/**
 * The signed catalogue (spec §13, DESIGN §10-§11): building its payload, and verifying one a
 * client downloaded. Verification is a fixed order of named steps, each refusing with its own
 * code, and is pure: the caller supplies the pinned root keys and what it accepted before.
 *
 *   1. parseCatalogueBytes      strict JSON                                    E_CATALOG
 *   2. checkCatalogueSignature  signed by a pinned root key, catalogue context E_CATALOG
 *   3. checkCataloguePayload    registry-1.json#/$defs/cataloguePayload        E_CATALOG
 *   4. checkCatalogueSequence   not lower than seen, same sequence same content E_ROLLBACK
 *   5. checkCatalogueFreshness  generatedAt within maxCatalogAge               E_STALE
 *   6. catalogueWithFallbacks   the fields spec §13 does not name, filled (fallbacks.ts)
 */
import { AdcapError, isAdcapError } from '../errors.js';
import { canonicalBytes } from '../format/canonical-json.js';
import type { SchemaProblem } from '../format/json-schema.js';
import { parseStrictJson } from '../format/strict-json.js';
import { CATALOG_CONTEXT, CATALOG_V2_CONTEXT, verifyEnvelope } from '../trust/envelope.js';
import { checkTopLevelPayload, type TopLevelPayload } from './layout-v2.js';
import { keyIdOf, trustedKeyFromPublicKey, type TrustedKey } from '../trust/keys.js';
import { sha256Hex } from '../util/hash.js';
import { catalogueCapability } from './documents.js';
import { catalogueWithFallbacks } from './fallbacks.js';
import { checkRegistryDocument, type CataloguePayloadFile } from './schema.js';
import {
  type CatalogueCapability,
  type CataloguePayload,
  type CataloguePublisher,
  type PackageDocument,
  type PublisherFile,
  type PublisherKey,
} from './types.js';

const DEFAULT_MAX_CATALOG_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** A pinned root key: its base64 public key (as config.json stores it) or a TrustedKey. */
export type RootKey = string | TrustedKey;

/** What the client accepted before, and its policy (DESIGN §10). */
export interface CatalogueState {
  /** Sequence of the last verified catalogue (the rollback floor), if any. */
  sequence?: number;
  /** SHA-256 of the canonical payload accepted at `sequence`. */
  payloadSha256?: string;
  /**
   * SHA-256 of the catalogue file's bytes accepted at `sequence`. When the new bytes are identical
   * the content is the same and the (costly, 20,000-entry) canonical digest is not needed.
   */
  catalogueSha256?: string;
  /** The minimum sequence the app shipped for this remote (DESIGN §10). */
  minSequence?: number;
  /** Oldest acceptable `generatedAt`, as an age; default 30 days. */
  maxAgeMs?: number;
  /** The clock; default the current time. */
  now?: Date;
  /**
   * What a full verification of these very bytes under these very root keys found before
   * (catalogueVerificationRecord). When the bytes' SHA-256 and the keys' digest both match, the
   * signature is not checked again and the bytes are read with JSON.parse instead of the strict
   * parser (they passed it); the payload's schema, sequence and freshness are checked as always.
   * Anything that differs means the full check.
   */
  verifiedBefore?: CatalogueVerificationRecord;
}

/** A full verification of a catalogue file, kept by a client beside the file (DESIGN §10). */
export interface CatalogueVerificationRecord {
  /** SHA-256 of the catalogue bytes that verified. */
  catalogueSha256: string;
  /** rootKeysDigest of the pinned root keys they verified under. */
  rootKeys: string;
  /** Root keyIds whose signatures verified. */
  signedBy: string[];
  /** SHA-256 of the canonical JSON of the signed payload. */
  payloadSha256: string;
  /**
   * Ids of the payload's publishers with at least one active key, sorted: what the cards' "verified
   * publisher" mark says, kept so a listing from the stored search index needs no load of the
   * catalogue (RegistryClient.storedListing). Absent in a record an earlier SDK wrote.
   */
  activePublishers?: string[];
}

/** A catalogue `verifyCatalogue()` accepted: its payload and the root keys that signed it. */
export interface VerifiedCatalogue {
  /** The catalogue's signed content: sequence, time, publishers and capabilities. */
  payload: CataloguePayload;
  /** Root keyIds whose signatures verified. */
  signedBy: string[];
  /** SHA-256 of the catalogue bytes, when verifyCatalogue was given bytes. */
  catalogueSha256?: string;
  /** SHA-256 of the canonical JSON of the payload: the catalogue's content identity (computed on first use). */
  readonly payloadSha256: string;
}

/** The content identity of a catalogue: its bytes' digest, and its canonical digest on demand. */
interface CatalogueIdentity {
  catalogueSha256?: string;
  payloadSha256(): string;
}

/** Verifies a downloaded catalogue (its bytes or its parsed envelope) in the order listed above. */
export function verifyCatalogue(
  envelope: Uint8Array | unknown,
  rootKeys: readonly RootKey[],
  state: CatalogueState = {},
): VerifiedCatalogue {
  const bytesSha256 = envelope instanceof Uint8Array ? sha256Hex(envelope) : undefined;
  const before = envelope instanceof Uint8Array ? verifiedBefore(envelope, bytesSha256 as string, rootKeys, state) : undefined;
  const { payload: signedPayload, signedBy } =
    before?.signed ?? checkCatalogueSignature(envelope instanceof Uint8Array ? parseCatalogueBytes(envelope) : envelope, rootKeys);
  const signed = checkCataloguePayload(signedPayload);
  let digest: string | undefined = before?.payloadSha256;
  // The content identity is that of the signed payload, before any fallback is filled in.
  const identity: CatalogueIdentity = { payloadSha256: () => (digest ??= sha256Hex(canonicalBytes(signed))) };
  if (bytesSha256 !== undefined) identity.catalogueSha256 = bytesSha256;
  checkCatalogueSequence(signed, identity, state);
  checkCatalogueFreshness(signed, state);
  const verified: VerifiedCatalogue = {
    payload: catalogueWithFallbacks(signed),
    signedBy,
    get payloadSha256() {
      return identity.payloadSha256();
    },
  };
  if (identity.catalogueSha256 !== undefined) verified.catalogueSha256 = identity.catalogueSha256;
  return verified;
}

/** A v2 top level `verifyTopLevel()` accepted. */
export interface VerifiedTopLevel {
  payload: TopLevelPayload;
  signedBy: string[];
  /** SHA-256 of the top level's bytes. */
  catalogueSha256: string;
  /** SHA-256 of the canonical JSON of the payload. */
  payloadSha256: string;
}

/**
 * Verifies a v2 top level (docs/scaling.md "What stays guaranteed") in the order of
 * verifyCatalogue: strict JSON; a signature by a pinned root key in context
 * arcotheon-catalog-v2 (a v1 catalogue signature, or a package signature, never verifies here);
 * the payload's shape; sequence (E_ROLLBACK) and freshness (E_STALE) as for version 1.
 * `state.payloadSha256` is compared only when `sameLayout` (the floor was a v2 top level): a v1
 * catalogue and the v2 top level of one build share a sequence but not their content.
 */
export function verifyTopLevel(
  bytes: Uint8Array,
  rootKeys: readonly RootKey[],
  state: CatalogueState & { sameLayout: boolean },
): VerifiedTopLevel {
  const catalogueSha256 = sha256Hex(bytes);
  // As for a catalogue (CatalogueState.verifiedBefore): the signature of the very bytes a full check
  // accepted under the same keys is not checked again; the shape, floor and freshness always are.
  const before = verifiedBefore(bytes, catalogueSha256, rootKeys, state);
  const { payload: signed, signedBy } = before?.signed ?? checkCatalogueSignature(parseCatalogueBytes(bytes), rootKeys, CATALOG_V2_CONTEXT);
  const payload = checkTopLevelPayload(signed);
  const payloadSha256 = before?.payloadSha256 ?? sha256Hex(canonicalBytes(payload));
  const floor: CatalogueState = { ...state };
  if (!state.sameLayout) {
    delete floor.payloadSha256;
    delete floor.catalogueSha256;
  }
  checkCatalogueSequence(payload, { catalogueSha256, payloadSha256: () => payloadSha256 }, floor);
  checkCatalogueFreshness(payload, state);
  return { payload, signedBy, catalogueSha256, payloadSha256 };
}

/** The record of a verified v2 top level, for CatalogueState.verifiedBefore on a later load. */
export function topLevelVerificationRecord(verified: VerifiedTopLevel, rootKeys: readonly RootKey[]): CatalogueVerificationRecord {
  return {
    catalogueSha256: verified.catalogueSha256,
    rootKeys: rootKeysDigest(rootKeys),
    signedBy: [...verified.signedBy],
    payloadSha256: verified.payloadSha256,
  };
}

/** The record of a verified catalogue, for CatalogueState.verifiedBefore on a later load; null without its bytes' digest. */
export function catalogueVerificationRecord(verified: VerifiedCatalogue, rootKeys: readonly RootKey[]): CatalogueVerificationRecord | null {
  if (verified.catalogueSha256 === undefined) return null;
  return {
    catalogueSha256: verified.catalogueSha256,
    rootKeys: rootKeysDigest(rootKeys),
    signedBy: [...verified.signedBy],
    payloadSha256: verified.payloadSha256,
    activePublishers: Object.entries(verified.payload.publishers)
      .filter(([, publisher]) => publisher.keys.some((key) => key.status === 'active'))
      .map(([id]) => id)
      .sort(),
  };
}

/** SHA-256 over the pinned root keys with their status: pinning, removing or revoking a key changes it. */
export function rootKeysDigest(rootKeys: readonly RootKey[]): string {
  const keys = normalizeRootKeys(rootKeys).map((key) => `${key.keyId} ${key.publicKey} ${key.status ?? 'active'}`);
  return sha256Hex(new TextEncoder().encode(JSON.stringify(keys.sort())));
}

/**
 * The signed payload of bytes that a full verification accepted before under the same root keys,
 * or undefined when the record does not match exactly (then the full check runs).
 */
function verifiedBefore(
  bytes: Uint8Array,
  bytesSha256: string,
  rootKeys: readonly RootKey[],
  state: CatalogueState,
): { signed: { payload: unknown; signedBy: string[] }; payloadSha256: string } | undefined {
  const record = state.verifiedBefore;
  if (record === undefined || record.catalogueSha256 !== bytesSha256 || rootKeys.length === 0) return undefined;
  let parsed: unknown;
  try {
    if (record.rootKeys !== rootKeysDigest(rootKeys)) return undefined;
    // The strict parser accepted these bytes, so they are valid UTF-8: no decoder check needed.
    parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !('payload' in parsed)) return undefined;
  return { signed: { payload: parsed.payload, signedBy: [...record.signedBy] }, payloadSha256: record.payloadSha256 };
}

function parseCatalogueBytes(bytes: Uint8Array): unknown {
  try {
    return parseStrictJson(bytes, 'The catalogue');
  } catch (error) {
    throw new AdcapError(
      'E_CATALOG',
      `The catalogue is not valid JSON (${(error as Error).message}); the registry or a mirror is broken or hostile.`,
      {
        cause: error,
      },
    );
  }
}

function normalizeRootKeys(rootKeys: readonly RootKey[]): TrustedKey[] {
  return rootKeys.map((key) =>
    typeof key === 'string' ? trustedKeyFromPublicKey(key) : trustedKeyFromPublicKey(key.publicKey, key.status),
  );
}

/**
 * spec §13: the catalogue is verified against pinned root keys, in context arcotheon-catalog-v1.
 * A package signature replayed as a catalogue fails here, because the context is part of the
 * signed message (spec §5). Every failure is E_CATALOG: the registry cannot be trusted.
 */
function checkCatalogueSignature(
  envelope: unknown,
  rootKeys: readonly RootKey[],
  context: typeof CATALOG_CONTEXT | typeof CATALOG_V2_CONTEXT = CATALOG_CONTEXT,
): { payload: unknown; signedBy: string[] } {
  if (rootKeys.length === 0) {
    throw new AdcapError(
      'E_CATALOG',
      'No root key is pinned for this remote; add it again with --root-key <base64> from the registry operator.',
    );
  }
  try {
    return verifyEnvelope<unknown>(envelope, context, normalizeRootKeys(rootKeys));
  } catch (error) {
    if (!isAdcapError(error)) throw error;
    const why =
      error.code === 'E_UNTRUSTED'
        ? 'it is not signed by any root key pinned for this remote'
        : error.code === 'E_REVOKED'
          ? 'its only valid signature is by a revoked root key'
          : `its signature does not verify as a catalogue signature (${error.message})`;
    throw new AdcapError('E_CATALOG', `The catalogue was refused: ${why}. Check the remote's root key with the registry operator.`, {
      cause: error,
    });
  }
}

/** `problem.text` starts with the JSON pointer and says what is wrong there (SchemaProblem). */
function catalogError(problem: SchemaProblem): AdcapError {
  return new AdcapError('E_CATALOG', `The signed catalogue is malformed: ${problem.text}; the registry must rebuild it.`, {
    details: { pointer: problem.pointer, keyword: problem.keyword },
  });
}

/**
 * DESIGN §11: the payload's shape, checked against registry-1.json#/$defs/cataloguePayload (unknown
 * fields are tolerated: a later minor may add some), then what a schema cannot say: each publisher
 * key's keyId is the SHA-256 of its publicKey, and generatedAt is a real instant.
 */
export function checkCataloguePayload(value: unknown): CataloguePayloadFile {
  const payload = checkRegistryDocument('cataloguePayload', value, catalogError);
  // The schema's date-time format admits a leap second, which Date.parse does not: an instant
  // that parses to NaN would slip past the freshness check.
  if (Number.isNaN(Date.parse(payload.generatedAt))) {
    throw catalogError({
      pointer: '/generatedAt',
      keyword: 'format',
      text: '/generatedAt must be a UTC date-time such as 2026-11-30T12:00:00Z (format)',
    });
  }
  for (const [id, publisher] of Object.entries(payload.publishers)) {
    publisher.keys.forEach((key, index) => {
      if (!keyMatches(key)) {
        const pointer = `/publishers/${id}/keys/${index}/publicKey`;
        throw catalogError({
          pointer,
          keyword: 'keyId',
          text: `${pointer} must be the base64 Ed25519 public key whose SHA-256 is keyId (keyId)`,
        });
      }
    });
  }
  return payload;
}

function keyMatches(key: PublisherKey): boolean {
  try {
    return keyIdOf(key.publicKey) === key.keyId;
  } catch {
    return false;
  }
}

/**
 * DESIGN §10 / spec §13 rollback protection: never accept a sequence lower than the one accepted
 * before (or than the app's shipped minimum), and never a different catalogue under the same
 * sequence (a registry that re-signs must bump the sequence; `registry build` always does).
 */
function checkCatalogueSequence(payload: Pick<CataloguePayloadFile, 'sequence'>, identity: CatalogueIdentity, state: CatalogueState): void {
  if (state.minSequence !== undefined && payload.sequence < state.minSequence) {
    throw new AdcapError(
      'E_ROLLBACK',
      `The catalogue has sequence ${payload.sequence}, ` +
        `older than the minimum ${state.minSequence} this app shipped with, so it was refused as a possible rollback.`,
      { details: { sequence: payload.sequence, minSequence: state.minSequence, belowShippedMinimum: true } },
    );
  }
  if (state.sequence === undefined) return;
  if (payload.sequence < state.sequence) {
    throw new AdcapError(
      'E_ROLLBACK',
      `The catalogue has sequence ${payload.sequence}, lower than ${state.sequence} already seen; ` +
        'a mirror is replaying an old catalogue, so it was refused.',
      { details: { sequence: payload.sequence, seen: state.sequence } },
    );
  }
  if (payload.sequence !== state.sequence) return;
  const sameBytes = state.catalogueSha256 !== undefined && state.catalogueSha256 === identity.catalogueSha256;
  if (!sameBytes && state.payloadSha256 !== undefined && state.payloadSha256 !== identity.payloadSha256()) {
    throw new AdcapError(
      'E_ROLLBACK',
      `The catalogue has the same sequence ${payload.sequence} as the one already seen but ` +
        'different content; the registry must bump the sequence when it re-signs, so it was refused.',
      { details: { sequence: payload.sequence } },
    );
  }
}

/** DESIGN §10 freeze protection: a catalogue older than maxCatalogAge is refused (E_STALE). */
export function checkCatalogueFreshness(payload: Pick<CataloguePayload, 'generatedAt'>, state: CatalogueState): void {
  const maxAgeMs = state.maxAgeMs ?? DEFAULT_MAX_CATALOG_AGE_MS;
  const now = (state.now ?? new Date()).getTime();
  const age = now - Date.parse(payload.generatedAt);
  if (age > maxAgeMs) {
    const days = Math.floor(age / 86_400_000);
    throw new AdcapError(
      'E_STALE',
      `The catalogue was generated at ${payload.generatedAt} (${days} days ago), ` +
        `older than the ${Math.round(maxAgeMs / 86_400_000)}-day limit; ` +
        'the registry must run "adcap registry build" again, or a mirror is replaying an old catalogue.',
      { details: { generatedAt: payload.generatedAt, maxAgeMs } },
    );
  }
}

/** Catalogue publishers (DESIGN §11: keys with their status) from the authoritative publisher files. */
function cataloguePublishers(files: readonly PublisherFile[]): Record<string, CataloguePublisher> {
  const out: Record<string, CataloguePublisher> = {};
  for (const file of [...files].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    out[file.id] = { name: file.name, keys: file.keys.map((key): PublisherKey => ({ ...key })) };
  }
  return out;
}

interface CataloguePayloadInput {
  registry: string;
  sequence: number;
  generatedAt: string;
  publishers: readonly PublisherFile[];
  /** Each package document with the exact bytes written for it (the pin covers the bytes). */
  documents: readonly { doc: PackageDocument; bytes: Uint8Array }[];
}

/** spec §13: { registry, spec: 1, sequence, generatedAt, publishers, capabilities }. */
export function buildCataloguePayload(input: CataloguePayloadInput): CataloguePayload {
  const capabilities: Record<string, CatalogueCapability> = {};
  for (const { doc, bytes } of [...input.documents].sort((a, b) => (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0))) {
    capabilities[doc.id] = catalogueCapability(doc, bytes);
  }
  return {
    registry: input.registry,
    spec: 1,
    sequence: input.sequence,
    generatedAt: input.generatedAt,
    publishers: cataloguePublishers(input.publishers),
    capabilities,
  };
}

/** The publisher's keys as trusted keys for verifyPackage (revoked ones keep their status). */
export function publisherTrustedKeys(payload: CataloguePayload, publisher: string): TrustedKey[] {
  const entry = Object.hasOwn(payload.publishers, publisher) ? payload.publishers[publisher] : undefined;
  return (entry?.keys ?? []).map((key) => ({ keyId: key.keyId, publicKey: key.publicKey, status: key.status }));
}
