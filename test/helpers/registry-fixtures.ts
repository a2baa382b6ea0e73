import type { VersionEntry } from '../../sdk/src/registry/types.js';

/** A registry version entry (DESIGN §11) of acme/pdf for tests that need documents or catalogues. */
export function versionEntry(version: string, extra: Partial<VersionEntry> = {}): VersionEntry {
  return {
    id: 'acme/pdf',
    version,
    manifestSha256: 'a'.repeat(64),
    archive: { sha256: 'b'.repeat(64), size: 10, urls: [`blobs/sha256/${'b'.repeat(64)}.adcap`] },
    signers: [],
    tier: 'free',
    access: 'public',
    compat: {},
    dependencies: {},
    permissions: [],
    contents: { skills: [], tools: [], workflows: [], knowledge: [], resources: [] },
    publishedAt: '2026-11-30T12:00:00Z',
    name: `PDF ${version}`,
    summary: 'PDF tools',
    keywords: ['pdf'],
    ...extra,
  };
}
