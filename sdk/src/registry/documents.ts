/**
 * Package documents and the catalogue's per-capability summary, as pure functions of the registry's
 * source files (spec §13, DESIGN §11). `build` calls these; tests call them directly.
 */
import semver from 'semver';
import { sha256Hex } from '../util/hash.js';
import { docRelativePath, parseCapabilityId } from './layout.js';
import type { CatalogueCapability, DocumentVersion, PackageDocument, StatusFile, VersionEntry } from './types.js';

/** Ascending semver order; ties cannot happen because versions are unique keys. */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}

/**
 * spec §13: status files are folded into the package documents at build time, so a client learns
 * of yanks and revocations with its next catalogue fetch. A revocation outranks a yank.
 */
export function foldPackageDocument(id: string, entries: readonly VersionEntry[], status: StatusFile): PackageDocument {
  const versions: Record<string, DocumentVersion> = {};
  for (const entry of [...entries].sort((a, b) => compareVersions(a.version, b.version))) {
    const revoked = ownValue(status.revoked, entry.version);
    const yanked = ownValue(status.yanked, entry.version);
    if (revoked !== undefined) versions[entry.version] = { ...entry, status: 'revoked', statusReason: revoked };
    else if (yanked !== undefined) versions[entry.version] = { ...entry, status: 'yanked', statusReason: yanked };
    else versions[entry.version] = { ...entry };
  }
  return status.deprecated === undefined ? { id, versions } : { id, deprecated: { ...status.deprecated }, versions };
}

function ownValue(record: Record<string, string> | undefined, key: string): string | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * DESIGN §11: `latest` is the highest stable version that is neither yanked nor revoked;
 * `latestPrerelease` the highest such prerelease, listed only when it is newer than `latest`.
 */
export function latestVersions(doc: PackageDocument): { latest?: string; latestPrerelease?: string } {
  let latest: string | undefined;
  let latestPrerelease: string | undefined;
  for (const [version, entry] of Object.entries(doc.versions)) {
    if (entry.status !== undefined) continue;
    if (semver.prerelease(version) === null) {
      if (latest === undefined || compareVersions(version, latest) > 0) latest = version;
    } else if (latestPrerelease === undefined || compareVersions(version, latestPrerelease) > 0) {
      latestPrerelease = version;
    }
  }
  const result: { latest?: string; latestPrerelease?: string } = {};
  if (latest !== undefined) result.latest = latest;
  if (latestPrerelease !== undefined && (latest === undefined || compareVersions(latestPrerelease, latest) > 0)) {
    result.latestPrerelease = latestPrerelease;
  }
  return result;
}

/** The bytes of a package document as `build` writes them (the catalogue pins these bytes). */
export function packageDocumentBytes(doc: PackageDocument): Buffer {
  return Buffer.from(`${JSON.stringify(doc, null, 2)}\n`, 'utf8');
}

/**
 * One capability's catalogue record. Search metadata (name, summary, keywords, tier, access) comes
 * from the version a client would pick: latest, else latestPrerelease, else the highest version.
 */
export function catalogueCapability(doc: PackageDocument, docBytes: Uint8Array): CatalogueCapability {
  const { publisher } = parseCapabilityId(doc.id);
  const picks = latestVersions(doc);
  const all = Object.keys(doc.versions).sort(compareVersions);
  const shown = picks.latest ?? picks.latestPrerelease ?? all[all.length - 1];
  const entry = shown === undefined ? undefined : doc.versions[shown];
  if (entry === undefined) throw new Error(`package document ${doc.id} has no versions`);
  const capability: CatalogueCapability = {
    name: entry.name,
    summary: entry.summary,
    publisher,
    tier: entry.tier,
    access: entry.access,
    keywords: [...entry.keywords],
    deprecated: doc.deprecated !== undefined,
    doc: { path: docRelativePath(doc.id), sha256: sha256Hex(docBytes) },
  };
  if (picks.latest !== undefined) capability.latest = picks.latest;
  if (picks.latestPrerelease !== undefined) capability.latestPrerelease = picks.latestPrerelease;
  return capability;
}
