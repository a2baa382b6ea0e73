/**
 * Registry files as another builder may write them, completed on read (spec §13, DESIGN §11).
 *
 * spec §13 names what a version entry records (manifestSha256, the archive's SHA-256, size and
 * URLs, tier and access, compatibility, dependencies, permissions, the contents summary, the
 * changelog) and what the catalogue lists per capability (latest, latestPrerelease, a summary for
 * search, doc). This SDK's builder writes more (names, keywords, signers, publishedAt...), and its
 * readers used to require it, which refused a registry built to the spec's words. Those fields are
 * optional in registry-1.json; the SDK hands out complete documents, filled here:
 *   - a version entry's id and version: the document's id and the entry's key;
 *   - its name, summary and keywords: the catalogue's record of the capability (an installed
 *     capability shows its manifest's own);
 *   - its signers: none listed (trust never rests on them: the archive's signature is checked
 *     against the publisher keys of the signed catalogue, spec §5);
 *   - its publishedAt: the catalogue's generatedAt (it was published by then);
 *   - absent contents lists: empty;
 *   - a catalogue record's name: the id; publisher: the id's publisher part; tier and access: the
 *     manifest's defaults, free and public (the version entry, which spec §13 requires to record
 *     them, decides at install); keywords: none; deprecated: false (the package document says);
 *   - a catalogue publisher's or a publisher file's name: its id.
 * A complete document is returned as it is (no copy), so this costs nothing for this SDK's registries.
 */
import type { CatalogueCapabilityFile, CataloguePayloadFile, DocumentVersionFile, PackageDocumentFile } from './schema.js';
import type { CatalogueCapability, CataloguePayload, CataloguePublisher, DocumentVersion, PackageDocument } from './types.js';

/** What a package document's entries fall back to: the catalogue's record and its generatedAt. */
export interface DocumentFallbacks {
  name: string;
  summary: string;
  keywords: readonly string[];
  generatedAt: string;
}

/** The catalogue payload with every capability and publisher record complete. */
export function catalogueWithFallbacks(payload: CataloguePayloadFile): CataloguePayload {
  let capabilities: Record<string, CatalogueCapability> | undefined;
  for (const [id, record] of Object.entries(payload.capabilities)) {
    if (isCompleteCapability(record)) continue;
    capabilities ??= { ...(payload.capabilities as Record<string, CatalogueCapability>) };
    capabilities[id] = capabilityWithFallbacks(id, record);
  }
  let publishers: Record<string, CataloguePublisher> | undefined;
  for (const [id, publisher] of Object.entries(payload.publishers)) {
    if (publisher.name !== undefined) continue;
    publishers ??= { ...(payload.publishers as Record<string, CataloguePublisher>) };
    publishers[id] = { ...publisher, name: id };
  }
  if (capabilities === undefined && publishers === undefined) return payload as CataloguePayload;
  return {
    ...payload,
    publishers: publishers ?? (payload.publishers as Record<string, CataloguePublisher>),
    capabilities: capabilities ?? (payload.capabilities as Record<string, CatalogueCapability>),
  };
}

function isCompleteCapability(record: CatalogueCapabilityFile): record is CatalogueCapability {
  return (
    record.name !== undefined &&
    record.publisher !== undefined &&
    record.tier !== undefined &&
    record.access !== undefined &&
    record.keywords !== undefined &&
    record.deprecated !== undefined
  );
}

function capabilityWithFallbacks(id: string, record: CatalogueCapabilityFile): CatalogueCapability {
  return {
    ...record,
    name: record.name ?? id,
    publisher: record.publisher ?? id.slice(0, id.indexOf('/')),
    tier: record.tier ?? 'free',
    access: record.access ?? 'public',
    keywords: record.keywords ?? [],
    deprecated: record.deprecated ?? false,
  };
}

/** What a package document's entries fall back to when the catalogue record is not at hand. */
export function bareFallbacks(id: string): DocumentFallbacks {
  return { name: id, summary: '', keywords: [], generatedAt: '' };
}

/** The package document of `id` with every version entry complete. */
export function packageDocumentWithFallbacks(doc: PackageDocumentFile, id: string, fallbacks: DocumentFallbacks): PackageDocument {
  let versions: Record<string, DocumentVersion> | undefined;
  for (const [version, entry] of Object.entries(doc.versions)) {
    if (isCompleteEntry(entry)) continue;
    versions ??= { ...(doc.versions as Record<string, DocumentVersion>) };
    versions[version] = entryWithFallbacks(entry, id, version, fallbacks);
  }
  if (versions === undefined && doc.id !== undefined) return doc as PackageDocument;
  return { ...doc, id: doc.id ?? id, versions: versions ?? (doc.versions as Record<string, DocumentVersion>) };
}

function isCompleteEntry(entry: DocumentVersionFile): entry is DocumentVersion {
  const c = entry.contents;
  return (
    entry.id !== undefined &&
    entry.version !== undefined &&
    entry.signers !== undefined &&
    entry.publishedAt !== undefined &&
    entry.name !== undefined &&
    entry.summary !== undefined &&
    entry.keywords !== undefined &&
    c.skills !== undefined &&
    c.tools !== undefined &&
    c.workflows !== undefined &&
    c.knowledge !== undefined &&
    c.resources !== undefined
  );
}

/** One version entry, complete: the entry's own values first, then `fallbacks` (see above). */
export function entryWithFallbacks(entry: DocumentVersionFile, id: string, version: string, fallbacks: DocumentFallbacks): DocumentVersion {
  const c = entry.contents;
  return {
    ...entry,
    id: entry.id ?? id,
    version: entry.version ?? version,
    signers: entry.signers ?? [],
    publishedAt: entry.publishedAt ?? fallbacks.generatedAt,
    name: entry.name ?? fallbacks.name,
    summary: entry.summary ?? fallbacks.summary,
    keywords: entry.keywords ?? [...fallbacks.keywords],
    contents: {
      ...c,
      skills: c.skills ?? [],
      tools: c.tools ?? [],
      workflows: c.workflows ?? [],
      knowledge: c.knowledge ?? [],
      resources: c.resources ?? [],
    },
  };
}
