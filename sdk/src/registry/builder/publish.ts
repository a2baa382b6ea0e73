/**
 * `adcap registry publish <dir> <file.adcap> [--url URL]...` (spec §13, DESIGN §11).
 *
 *   1. copyToStaging            the archive is copied into v1/blobs/ under a temp name first, so
 *                               what is verified is exactly what will be served
 *   2. readPackage              every spec §2-§4 rule (format owner)
 *   3. checkPublisherSignature  spec §5: signed by a non-revoked key of the id's publisher
 *   4. checkImmutable           same archive again is a no-op; other content under an existing
 *                               version is E_IMMUTABLE
 *   5. blob, then entry         rename the blob into v1/blobs/sha256/<hex>.adcap, then write the
 *                               entry: files first, so an entry never names a missing blob
 */
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import type { Manifest } from '../../format/manifest-types.js';
import { readPackage, type ReadPackage } from '../../format/package-read.js';
import { skillProgramsOf } from '../../format/skill-repo.js';
import { checkUrlAllowed } from '../../cache/fetch.js';
import { checkPackageSignature } from '../../trust/package-signature.js';
import { fsyncDir, tempPathFor } from '../../util/fs-atomic.js';
import { blobRelativePath, entryPath, parseCapabilityId, v1Path } from '../layout.js';
import type { EntryContents, PublisherFile, VersionEntry } from '../types.js';
import { isoSeconds } from './maintain.js';
import { readEntry, readPublisher, readRegistryConfig, withRegistryLock, writeJson } from './source.js';

/** What `publishPackage()` did: the version entry, and whether it was new. */
export interface PublishResult {
  /** The version entry written into the registry's source (what the package document will list). */
  entry: VersionEntry;
  /** False when the same archive was already published (a no-op). */
  created: boolean;
  /** The absolute path of the archive stored in the registry. */
  blobPath: string;
}

/**
 * Publishes a signed package into a registry's source tree (DESIGN §11): verifies it, mirrors the
 * archive and writes its immutable version entry.
 */
export async function publishPackage(
  root: string,
  file: string,
  options: { urls?: readonly string[]; now?: Date } = {},
): Promise<PublishResult> {
  const extraUrls = (options.urls ?? []).map(checkMirrorUrl);
  return withRegistryLock(root, 'registry publish', async () => {
    await readRegistryConfig(root);
    const staged = await copyToStaging(root, file);
    try {
      const pkg = await readPackage(staged);
      const { publisher } = parseCapabilityId(pkg.manifest.id);
      const publisherFile = await readPublisher(root, publisher);
      const signedBy = checkPublisherSignature(pkg, publisher, publisherFile);
      const blobPath = v1Path(root, blobRelativePath(pkg.archiveSha256));
      const existing = await readEntry(root, pkg.manifest.id, pkg.manifest.version);
      if (existing !== null) {
        checkImmutable(existing, pkg);
        // Same content: a no-op for the entry; restore the mirror copy if someone deleted it.
        if (!(await isFile(blobPath))) await moveInto(staged, blobPath);
        return { entry: existing, created: false, blobPath };
      }
      await moveInto(staged, blobPath);
      const entry = versionEntry(pkg, signedBy, [blobRelativePath(pkg.archiveSha256), ...extraUrls], options.now ?? new Date());
      await writeJson(entryPath(root, entry.id, entry.version), entry);
      return { entry, created: true, blobPath };
    } finally {
      await rm(staged, { force: true }).catch(() => undefined);
    }
  });
}

/** Extra mirrors must be absolute URLs a client may fetch (https, or loopback http for local work). */
function checkMirrorUrl(url: string): string {
  checkUrlAllowed(url);
  return url;
}

async function copyToStaging(root: string, file: string): Promise<string> {
  const blobDir = v1Path(root, 'blobs/sha256');
  const staged = tempPathFor(join(blobDir, 'incoming.adcap'));
  try {
    await mkdir(blobDir, { recursive: true });
    const info = await stat(file);
    if (!info.isFile()) throw new AdcapError('E_USAGE', `${file} is not a file; pass the path of a .adcap package.`);
    await copyFile(file, staged);
  } catch (error) {
    await rm(staged, { force: true }).catch(() => undefined);
    if (error instanceof AdcapError) throw error;
    throw asAdcapError(error, `Cannot copy ${file} into the registry`);
  }
  return staged;
}

/** spec §13 / DESIGN §11: only packages signed by a non-revoked key of their publisher. */
function checkPublisherSignature(pkg: ReadPackage, publisher: string, file: PublisherFile | null): string[] {
  const label = `${pkg.manifest.id}@${pkg.manifest.version}`;
  if (file === null) {
    throw new AdcapError(
      'E_UNTRUSTED',
      `Publisher "${publisher}" is not registered here, so ${label} cannot be published; ` +
        `add it with "adcap registry add-publisher <dir> ${publisher} --key <base64>".`,
    );
  }
  if (pkg.signatureBytes === null) {
    throw new AdcapError(
      'E_UNTRUSTED',
      `${label} is not signed; sign it with a key of publisher "${publisher}" ("adcap sign <file> --key key.json") before publishing.`,
    );
  }
  const trusted = file.keys.map((key) => ({ keyId: key.keyId, publicKey: key.publicKey, status: key.status }));
  try {
    return checkPackageSignature(pkg, { trusted, requireSignature: true }).signedBy;
  } catch (error) {
    // The trust layer's "trust the publisher's key" means, in a registry, registering it.
    if (!isAdcapError(error, 'E_UNTRUSTED')) throw error;
    const keyIds = Array.isArray(error.details.keyIds) ? error.details.keyIds.map(String) : [];
    throw new AdcapError(
      'E_UNTRUSTED',
      `${label} is signed by ${keyIds.length === 0 ? 'no key' : `key ${keyIds.join(', ')}`}, ` +
        `which is not a key of publisher "${publisher}" here; ` +
        `if the key is theirs, add it with "adcap registry add-publisher <dir> ${publisher} --key <its public key, base64>", ` +
        'or sign with a key already registered.',
      { cause: error, details: { publisher, keyIds } },
    );
  }
}

/** spec §13: "republishing different content under the same version MUST fail". */
function checkImmutable(existing: VersionEntry, pkg: ReadPackage): void {
  if (existing.archive.sha256 === pkg.archiveSha256) return;
  const why =
    existing.manifestSha256 === pkg.manifestSha256
      ? 'the manifest is the same but the archive bytes differ (re-signed or rebuilt)'
      : 'its content differs';
  throw new AdcapError(
    'E_IMMUTABLE',
    `${existing.id}@${existing.version} is already published and ${why}; ` +
      'published versions are immutable, so publish the change under a new version.',
    { details: { id: existing.id, version: existing.version, published: existing.archive.sha256, offered: pkg.archiveSha256 } },
  );
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function moveInto(staged: string, target: string): Promise<void> {
  try {
    // A copy of the staged file, not the staged file itself, so `finally` can always remove it.
    const temp = tempPathFor(target);
    await copyFile(staged, temp);
    await rename(temp, target);
    await fsyncDir(dirname(target));
  } catch (error) {
    throw asAdcapError(error, `Cannot write ${basename(target)} into the registry`);
  }
}

/** The immutable version entry of DESIGN §11, from a verified package. */
function versionEntry(pkg: ReadPackage, signers: readonly string[], urls: readonly string[], now: Date): VersionEntry {
  const m = pkg.manifest;
  const entry: VersionEntry = {
    id: m.id,
    version: m.version,
    manifestSha256: pkg.manifestSha256,
    archive: { sha256: pkg.archiveSha256, size: pkg.size, urls: [...urls] },
    signers: [...signers],
    tier: m.distribution?.tier ?? 'free',
    access: m.distribution?.access ?? 'public',
    compat: m.compat ?? {},
    dependencies: m.dependencies ?? {},
    permissions: m.permissions ?? [],
    contents: contentsOf(m),
    publishedAt: isoSeconds(now),
    name: m.name,
    summary: m.summary,
    keywords: m.keywords ?? [],
  };
  if (m.distribution?.entitlement !== undefined) entry.entitlement = m.distribution.entitlement;
  if (m.changelog !== undefined) entry.changelog = m.changelog;
  return entry;
}

/** DESIGN §11 contents summary: skill directory names, tool names, workflow file stems, knowledge and resource ids. */
export function contentsOf(m: Manifest): EntryContents {
  const programs = skillProgramsOf(m);
  const stem = (path: string): string => {
    const last =
      path
        .split('/')
        .filter((s) => s !== '')
        .pop() ?? path;
    return last.replace(/\.json$/, '');
  };
  return {
    skills: (m.skills ?? []).map((s) => stem(s.path)),
    tools: (m.tools ?? []).map((t) => t.name),
    workflows: (m.workflows ?? []).map((w) => stem(w.path)),
    knowledge: (m.knowledge ?? []).map((k) => k.id),
    resources: (m.resources ?? []).map((r) => ({ id: r.id, size: r.size })),
    ...(programs.length > 0 ? { skillPrograms: programs } : {}),
  };
}
