import { createReadStream } from 'node:fs';
import { mkdtemp, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { AdcapError, asAdcapError } from '../errors.js';
import type { ArchiveEntrySource } from '../format/archive/writer.js';
import { writeArchive } from '../format/archive/writer.js';
import type { ArchiveLimits } from '../format/archive/limits.js';
import type { Envelope, Manifest, PackagePayload } from '../format/manifest-types.js';
import { buildPackage, type BuiltPackage } from '../format/package-build.js';
import { MANIFEST_ENTRY, readPackage, SIGNATURE_ENTRY, type ReadPackage } from '../format/package-read.js';
import { parseStrictJson } from '../format/strict-json.js';
import { fsyncDir } from '../util/fs-atomic.js';
import { SHA256_HEX } from '../util/hash.js';
import { removeTree } from '../util/fs-tree.js';
import type { Progress } from '../util/progress.js';
import { PACKAGE_CONTEXT, parseEnvelope, signEnvelope, verifyEnvelope } from './envelope.js';
import { parseKeyFile, type KeyFile, type TrustedKey } from './keys.js';

/** spec §5: the payload is { adcap, id, version, manifestSha256 } of the manifest it covers. */
function packagePayload(manifest: Manifest, manifestSha256: string): PackagePayload {
  return { adcap: manifest.adcap, id: manifest.id, version: manifest.version, manifestSha256 };
}

/** The bytes of SIGNATURE.json: the envelope as indented JSON with a trailing newline. */
function signatureEntryBytes(envelope: Envelope<PackagePayload>): Buffer {
  return Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`, 'utf8');
}

/**
 * The one parser of a package's SIGNATURE.json (spec §5; the format reader hands over its bytes):
 * strict JSON, the envelope's strict shape (parseEnvelope: known fields only, 1 to MAX_SIGNATURES
 * signatures, unique keyIds, base64 of a 64-byte Ed25519 signature), and a package payload of
 * exactly { adcap, id, version, manifestSha256 }. E_SIGNATURE naming the problem otherwise.
 * It does not verify signatures or match the payload to a manifest (see checkPackageSignature).
 */
export function parsePackageEnvelope(bytes: Uint8Array): Envelope<PackagePayload> {
  let value: unknown;
  try {
    value = parseStrictJson(bytes, `The package signature (${SIGNATURE_ENTRY})`);
  } catch (error) {
    throw new AdcapError(
      'E_SIGNATURE',
      `The package's ${SIGNATURE_ENTRY} is not valid JSON: ${(error as Error).message} Sign the package again.`,
      { cause: error },
    );
  }
  const envelope = parseEnvelope(value, `The package's ${SIGNATURE_ENTRY}`);
  const payload = envelope.payload as Record<string, unknown>;
  const malformed = (problem: string): never => {
    throw new AdcapError('E_SIGNATURE', `The package's ${SIGNATURE_ENTRY} is malformed: ${problem}; sign the package again.`);
  };
  const fields = ['adcap', 'id', 'version', 'manifestSha256'];
  for (const key of Object.keys(payload)) if (!fields.includes(key)) malformed(`payload has the unknown field ${JSON.stringify(key)}`);
  for (const key of fields) if (typeof payload[key] !== 'string') malformed(`payload.${key} is missing or not a string`);
  if (!SHA256_HEX.test(payload.manifestSha256 as string)) malformed('payload.manifestSha256 is not a lowercase SHA-256 hex digest');
  return envelope as Envelope<PackagePayload>;
}

/** Options of the package signature check: the publisher keys trusted and whether a signature is required. */
export interface PackageSignatureOptions {
  /**
   * Keys the verifier trusts for this publisher. When given, a signed package must carry a
   * signature that verifies under one of them. When absent, signatures are shape-checked and
   * their payload matched to the manifest, but who signed is not checked (signedBy is empty).
   */
  trusted?: readonly TrustedKey[];
  /** Refuse unsigned packages (and, without `trusted`, every package) with E_UNTRUSTED. */
  requireSignature?: boolean;
}

/** What the package signature check found: whether it is signed, and by which trusted keys. */
export interface PackageSignatureResult {
  /** Whether the package carries SIGNATURE.json. */
  signed: boolean;
  /** keyIds whose signature verified under a trusted, non-revoked key. */
  signedBy: string[];
  /** SIGNATURE.json as parsed by parsePackageEnvelope (not verified unless signedBy is non-empty); null when unsigned. */
  envelope: Envelope<PackagePayload> | null;
}

/**
 * The spec §5 verifier rules for a package that readPackage already checked (spec §2-§4):
 * 1. the payload matches the manifest it covers (adcap, id, version, manifestSha256), else E_SIGNATURE;
 * 2. at least one signature verifies under a trusted key (E_SIGNATURE / E_UNTRUSTED) that is
 *    not revoked (E_REVOKED);
 * unsigned packages are E_UNTRUSTED when a signature is required.
 */
export function checkPackageSignature(
  pkg: Pick<ReadPackage, 'manifest' | 'manifestSha256' | 'signatureBytes'>,
  options: PackageSignatureOptions = {},
): PackageSignatureResult {
  const label = `${pkg.manifest.id}@${pkg.manifest.version}`;
  if (pkg.signatureBytes === null) {
    if (options.requireSignature === true) {
      throw new AdcapError(
        'E_UNTRUSTED',
        `The package ${label} is not signed (it has no ${SIGNATURE_ENTRY}); ` +
          'ask the publisher for a signed package, or sign it yourself with "adcap sign".',
      );
    }
    return { signed: false, signedBy: [], envelope: null };
  }
  const envelope = parsePackageEnvelope(pkg.signatureBytes);
  assertPayloadMatches(envelope.payload, pkg.manifest, pkg.manifestSha256);
  if (options.trusted === undefined) {
    if (options.requireSignature === true) {
      throw new AdcapError('E_UNTRUSTED', `No trusted keys were given to check who signed ${label}; pass the publisher's public key.`);
    }
    return { signed: true, signedBy: [], envelope };
  }
  const { signedBy } = verifyEnvelope<PackagePayload>(envelope, PACKAGE_CONTEXT, options.trusted);
  return { signed: true, signedBy, envelope };
}

/** spec §5: "A verifier MUST check that the payload matches the manifest it covers". */
function assertPayloadMatches(payload: unknown, manifest: Manifest, manifestSha256: string): void {
  const expected = packagePayload(manifest, manifestSha256);
  const record = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const fields = Object.keys(record);
  const sameFields =
    fields.length === 4 && (Object.keys(expected) as (keyof PackagePayload)[]).every((field) => record[field] === expected[field]);
  if (!sameFields) {
    const claimed =
      typeof record.id === 'string' && typeof record.version === 'string' ? `${record.id}@${record.version}` : 'something else';
    throw new AdcapError(
      'E_SIGNATURE',
      `${SIGNATURE_ENTRY} covers ${claimed} (manifestSha256 ${String(record.manifestSha256)}), ` +
        `not this package ${manifest.id}@${manifest.version} (manifestSha256 ${manifestSha256}); ` +
        'the signature belongs to other content, so re-sign the package.',
      { details: { expected, payload: record } },
    );
  }
}

/** Options of `verifyPackage()`. */
export interface VerifyPackageOptions extends PackageSignatureOptions {
  /** Extract the verified files here; it appears only after every check, signatures included. */
  extractTo?: string;
  /** Extract into this new directory and leave it for the caller to rename (readPackage's `extractInto`). */
  extractInto?: string;
  /** The caller's checks of the extracted files, after the signature's and before the rename (readPackage's `accept`). */
  accept?: (pkg: VerifiedPackage, dir: string) => Promise<void> | void;
  /** Make the extracted files and folders read-only (readPackage's `readOnly`). */
  readOnly?: boolean;
  /** Tighter archive caps than DEFAULT_ARCHIVE_LIMITS (E_LIMIT beyond them). */
  limits?: Partial<ArchiveLimits>;
  /** Told `{ phase, done, total }` (bytes) as the archive is read. */
  onProgress?: (progress: Progress) => void;
  /** Cancels the read (E_CANCELLED); nothing is left extracted. */
  signal?: AbortSignal;
  /** The archive's pin, checked in the same read before anything is extracted (readPackage). */
  expectArchive?: { sha256: string; size: number };
}

/** A package `verifyPackage()` accepted: what `readPackage()` returns, with the signature check's result. */
export type VerifiedPackage = ReadPackage & PackageSignatureResult;

/**
 * readPackage (spec §2-§4: one streaming pass, every entry checked against `files`) plus the
 * spec §5 signature rules. With `extractTo` (or `extractInto`), the signature is checked inside
 * readPackage's `accept`, on the one staging directory, before it is renamed into place, so
 * nothing unverified ever appears at the target.
 */
export async function verifyPackage(source: string | Readable, options: VerifyPackageOptions = {}): Promise<VerifiedPackage> {
  const { trusted, requireSignature, accept, ...readOptions } = options;
  const signatureOptions: PackageSignatureOptions = {
    ...(trusted === undefined ? {} : { trusted }),
    ...(requireSignature === undefined ? {} : { requireSignature }),
  };
  if (readOptions.extractTo === undefined && readOptions.extractInto === undefined) {
    const pkg = await readPackage(source, readOptions);
    return { ...pkg, ...checkPackageSignature(pkg, signatureOptions) };
  }
  let signature: PackageSignatureResult | undefined;
  const pkg = await readPackage(source, {
    ...readOptions,
    accept: async (read, dir) => {
      signature = checkPackageSignature(read, signatureOptions);
      await accept?.({ ...read, ...signature }, dir);
    },
  });
  if (signature === undefined) throw new Error('readPackage returned without running accept');
  return { ...pkg, ...signature };
}

/** A package `signPackage()` signed: the file, its manifest and the keys that signed it. */
export interface SignedPackage {
  /** The signed .adcap file written. */
  file: string;
  /** Its manifest. */
  manifest: Manifest;
  /** The SHA-256 (hex) of the manifest's canonical JSON that was signed. */
  manifestSha256: string;
  /** The SHA-256 (hex) of the new archive, what a registry pins. */
  archiveSha256: string;
  /** The new archive's size in bytes. */
  size: number;
  /** The SIGNATURE.json envelope now in the package, every signature included. */
  envelope: Envelope<PackagePayload>;
  /** keyIds that signed before this call. */
  previousSigners: string[];
  /** keyIds whose signatures this call added (a key that had already signed is not added again). */
  added: string[];
}

/**
 * Adds signatures to an existing package (spec §5). The package is read and verified (one
 * streaming pass, extracting into a private temp directory), existing signatures are kept when
 * they cover this manifest, and the archive is rewritten with SIGNATURE.json as its last entry
 * (spec §2) by the deterministic writer. The new archive is verified again before it atomically
 * replaces `out` (default: the input file).
 */
export async function signPackage(
  file: string,
  keys: readonly KeyFile[],
  options: { out?: string; limits?: Partial<ArchiveLimits> } = {},
): Promise<SignedPackage> {
  const checkedKeys = checkKeys(keys);
  const out = options.out ?? file;
  const work = await mkdtemp(join(dirname(out), `.${basename(out)}.sign-`)).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot create a temporary directory beside ${out}`);
  });
  try {
    const contentDir = join(work, 'content');
    const pkg = await readPackage(file, { extractTo: contentDir, ...(options.limits === undefined ? {} : { limits: options.limits }) });
    const payload = packagePayload(pkg.manifest, pkg.manifestSha256);
    let existing: Envelope<PackagePayload> | undefined;
    if (pkg.signatureBytes !== null) {
      const envelope = parsePackageEnvelope(pkg.signatureBytes);
      assertPayloadMatches(envelope.payload, pkg.manifest, pkg.manifestSha256);
      existing = { payload, signatures: envelope.signatures };
    }
    const previousSigners = existing?.signatures.map((s) => s.keyId) ?? [];
    const envelope = signEnvelope(payload, PACKAGE_CONTEXT, checkedKeys, existing);
    const added = envelope.signatures.map((s) => s.keyId).filter((keyId) => !previousSigners.includes(keyId));

    const executable = new Map(pkg.manifest.files.map((f) => [f.path, f.executable === true]));
    // readPackage extracts only the listed files; capability.json is written again from the
    // verified manifest, in the builder's layout. Its canonical JSON, and so the manifest digest
    // (the package's identity, spec §4), is unchanged; the re-read below checks that.
    const manifestBytes = Buffer.from(`${JSON.stringify(pkg.manifest, null, 2)}\n`, 'utf8');
    const entries: ArchiveEntrySource[] = [
      { path: MANIFEST_ENTRY, size: manifestBytes.length, executable: false, open: () => manifestBytes },
    ];
    for (const path of pkg.entries) {
      if (path === SIGNATURE_ENTRY || path === MANIFEST_ENTRY) continue;
      const onDisk = join(contentDir, ...path.split('/'));
      const { size } = await stat(onDisk);
      entries.push({ path, size, executable: executable.get(path) ?? false, open: () => createReadStream(onDisk) });
    }
    const signature = signatureEntryBytes(envelope);
    entries.push({ path: SIGNATURE_ENTRY, size: signature.length, executable: false, open: () => signature });

    const temp = join(work, 'signed.adcap');
    const written = await writeArchive(entries, temp);
    // Check the result like any reader would before it replaces anything.
    const check = await readPackage(temp, options.limits === undefined ? {} : { limits: options.limits });
    if (check.manifestSha256 !== pkg.manifestSha256 || check.signatureBytes === null) {
      throw new AdcapError(
        'E_IO',
        `The re-signed package did not read back as ${pkg.manifest.id}@${pkg.manifest.version}; ${out} was left unchanged.`,
      );
    }
    assertPayloadMatches(parsePackageEnvelope(check.signatureBytes).payload, check.manifest, check.manifestSha256);
    try {
      await rename(temp, out);
      await fsyncDir(dirname(out));
    } catch (error) {
      throw asAdcapError(error, `Cannot replace ${out}`);
    }
    return {
      file: out,
      manifest: pkg.manifest,
      manifestSha256: pkg.manifestSha256,
      archiveSha256: written.sha256,
      size: written.size,
      envelope,
      previousSigners,
      added,
    };
  } finally {
    await removeTree(work).catch(() => undefined);
  }
}

/** A package built and signed in one pass by `buildSignedPackage()`. */
export type SignedBuild = BuiltPackage & { envelope: Envelope<PackagePayload>; signedBy: string[] };

/** buildPackage with SIGNATURE.json written in the same pass (spec §5), signed by every key. */
export async function buildSignedPackage(sourceDir: string, options: { out: string; keys: readonly KeyFile[] }): Promise<SignedBuild> {
  const keys = checkKeys(options.keys);
  let envelope: Envelope<PackagePayload> | undefined;
  const built = await buildPackage(sourceDir, {
    out: options.out,
    envelopeFor: (payload: PackagePayload) => {
      envelope = signEnvelope(payload, PACKAGE_CONTEXT, keys);
      return envelope;
    },
  });
  if (envelope === undefined)
    throw new AdcapError(
      'E_IO',
      `Building ${sourceDir} finished without asking for a signature; the package at ${options.out} is unsigned.`,
    );
  return { ...built, envelope, signedBy: envelope.signatures.map((s) => s.keyId) };
}

function checkKeys(keys: readonly KeyFile[]): KeyFile[] {
  if (keys.length === 0) throw new AdcapError('E_USAGE', 'Signing needs at least one key; pass a key file written by "adcap keygen".');
  return keys.map((key, index) => parseKeyFile(key, `Signing key ${index + 1}`));
}
