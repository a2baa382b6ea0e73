/**
 * Where each registry file lives (spec §13, DESIGN §11), and the id checks that keep every path
 * inside the registry: a publisher or capability name becomes a path segment only after it matches
 * the manifest id grammar (DESIGN §3), and a version only after it parses as strict semver.
 */
import { join } from 'node:path';
import semver from 'semver';
import { AdcapError } from '../errors.js';
import { isIdPart, splitCapabilityId } from '../util/capability-id.js';

export { isIdPart };

/** Splits `publisher/name`, refusing anything that is not a valid capability id. */
export function parseCapabilityId(id: string): { publisher: string; name: string } {
  const parts = splitCapabilityId(id);
  if (parts === null) {
    throw new AdcapError(
      'E_USAGE',
      `"${id}" is not a capability id; use publisher/name with lowercase letters, digits and single hyphens.`,
    );
  }
  return parts;
}

export function assertPublisherId(publisher: string): void {
  if (!isIdPart(publisher)) {
    throw new AdcapError(
      'E_USAGE',
      `"${publisher}" is not a publisher id; use lowercase letters, digits and single hyphens (1-64 characters).`,
    );
  }
}

export function assertVersion(version: string): void {
  if (semver.valid(version) !== version) {
    throw new AdcapError('E_USAGE', `"${version}" is not a strict semver version such as 1.2.0 or 2.0.0-beta.1.`);
  }
}

/** Splits `publisher/name@version` as the yank and revoke commands take it. */
export function parseIdAtVersion(value: string): { id: string; version: string } {
  const at = value.lastIndexOf('@');
  if (at <= 0) throw new AdcapError('E_USAGE', `"${value}" names no version; write it as publisher/name@1.2.0.`);
  const id = value.slice(0, at);
  const version = value.slice(at + 1);
  parseCapabilityId(id);
  assertVersion(version);
  return { id, version };
}

export const REGISTRY_CONFIG = 'registry.json';

export function publisherPath(root: string, publisher: string): string {
  assertPublisherId(publisher);
  return join(root, 'publishers', `${publisher}.json`);
}

export function entryDir(root: string, id: string): string {
  const { publisher, name } = parseCapabilityId(id);
  return join(root, 'entries', publisher, name);
}

export function entryPath(root: string, id: string, version: string): string {
  assertVersion(version);
  return join(entryDir(root, id), `${version}.json`);
}

export function statusPath(root: string, id: string): string {
  const { publisher, name } = parseCapabilityId(id);
  return join(root, 'status', publisher, `${name}.json`);
}

/** The package document's path relative to v1/, as the catalogue's `doc.path` records it. */
export function docRelativePath(id: string): string {
  const { publisher, name } = parseCapabilityId(id);
  return `packages/${publisher}/${name}.json`;
}

/** The archive mirror's path relative to v1/ (DESIGN §11: v1/blobs/sha256/<hex>.adcap). */
export function blobRelativePath(sha256: string): string {
  return `blobs/sha256/${sha256}.adcap`;
}

export function v1Path(root: string, relative: string): string {
  return join(root, 'v1', ...relative.split('/'));
}

export const CATALOGUE_FILE = 'catalog.json';
