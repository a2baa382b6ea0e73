/**
 * `adcap registry build <dir> --root-key key.json` (spec §13, DESIGN §11): folds entries and status
 * files into package documents, then signs a catalogue whose sequence is one more than any
 * catalogue this registry ever built. Files are written first and the catalogue last, each
 * atomically, so a registry synced to a static host in the same order is never half-written: a
 * client either sees the old catalogue (whose pinned documents are still there, because an
 * unchanged document keeps its bytes) or the new one with all its documents in place.
 */
import { readFile } from 'node:fs/promises';
import { AdcapError, asAdcapError } from '../../errors.js';
import { canonicalJson } from '../../format/canonical-json.js';
import { signEnvelope, CATALOG_CONTEXT } from '../../trust/envelope.js';
import type { KeyFile } from '../../trust/keys.js';
import { writeFileAtomic } from '../../util/fs-atomic.js';
import { buildCataloguePayload } from '../catalogue.js';
import { catalogueCapability, foldPackageDocument, packageDocumentBytes } from '../documents.js';
import { buildV2Snapshot } from '../layout-v2.js';
import { CATALOGUE_FILE, docRelativePath, v1Path } from '../layout.js';
import type { CataloguePayload, PackageDocument, PublisherFile } from '../types.js';
import { previousTopLevel, sameTopLevel, writeV2Snapshot, type V2BuildResult } from './build-v2.js';
import { isoSeconds } from './maintain.js';
import {
  listCapabilityIds,
  readAllPublishers,
  readEntries,
  readRegistryConfig,
  readStatus,
  withRegistryLock,
  writeRegistryConfig,
} from './source.js';

/** What `buildRegistry()` wrote: the catalogue's sequence and date, and the package documents that changed. */
export interface BuildResult {
  sequence: number;
  generatedAt: string;
  capabilities: number;
  /** Package documents whose bytes changed in this build (v1/packages/). */
  documentsWritten: number;
  catalogPath: string;
  /** True when `keepUnchanged` kept the catalogue on disk as it was. */
  unchanged: boolean;
  /**
   * Capabilities v1/catalog.json lists: all of them, or past `v1MaxBytes` the most recently
   * published that fit (docs/scaling.md "Old clients").
   */
  v1Listed: number;
  /** The v2/ layout written beside v1/ (docs/scaling.md "Version 2"). */
  v2: V2BuildResult;
}

/** The cap of the oldest released client on a v1 catalogue (16 MiB); v1/ lists a subset past it. */
export const DEFAULT_V1_MAX_BYTES = 16 * 1024 * 1024;

/** Options of `buildRegistry()`: the root keys that sign the catalogue, the clock, and whether an unchanged catalogue is kept. */
export interface BuildRegistryOptions {
  rootKeys: readonly KeyFile[];
  now?: Date;
  /**
   * Keep the catalogue on disk when nothing in it would change (same registry, publishers and
   * capabilities, signed by the same keys): the sequence and generatedAt stay as they are. For a
   * registry with no age limit, such as one bundled with an app: rebuilding it unchanged must not
   * move it past the minimum a shipped copy pins. A served registry re-signs instead, since its
   * clients refuse a catalogue older than their age limit (DESIGN §10).
   */
  keepUnchanged?: boolean;
  /**
   * The largest v1/catalog.json to write (default 16 MiB, the cap of the oldest released client).
   * Past it, v1/ lists the most recently published capabilities that fit: a version 1 client sees
   * a smaller registry, never an inconsistent one (docs/scaling.md "Old clients"); v2/ lists all.
   */
  v1MaxBytes?: number;
  /** How long a v2/ file no snapshot references is kept before it is deleted (default 7 days). */
  gcGraceMs?: number;
}

interface BuiltDocument {
  doc: PackageDocument;
  bytes: Buffer;
  /** The newest publishedAt of its versions: the order of the v1 subset past the cap. */
  publishedAt: string;
}

/**
 * Builds a registry's served files (spec §13, docs/scaling.md): package documents with statuses
 * folded in; the v2/ snapshot (immutable files, then its signed top level); v1/'s documents and
 * its signed catalogue with the same sequence and date. Files first, each layout's signed file
 * last, each write atomic.
 */
export async function buildRegistry(root: string, options: BuildRegistryOptions): Promise<BuildResult> {
  return withRegistryLock(root, 'registry build', async () => {
    const config = await readRegistryConfig(root);
    checkSigningKeys(options.rootKeys, config.rootKeys);
    const publishers = await readAllPublishers(root);
    const documents: BuiltDocument[] = [];
    // 1. Package documents (spec §13: status folded in at build time).
    for (const id of await listCapabilityIds(root)) {
      const entries = await readEntries(root, id);
      if (entries.length === 0) continue;
      const doc = foldPackageDocument(id, entries, await readStatus(root, id));
      const publishedAt = entries.reduce((newest, entry) => (entry.publishedAt > newest ? entry.publishedAt : newest), '');
      documents.push({ doc, bytes: packageDocumentBytes(doc), publishedAt });
    }
    const v1MaxBytes = options.v1MaxBytes ?? DEFAULT_V1_MAX_BYTES;
    const v1Documents = v1Subset(documents, publishers, v1MaxBytes);
    let documentsWritten = 0;
    for (const { doc, bytes } of v1Documents) {
      if (await writeIfChanged(v1Path(root, docRelativePath(doc.id)), bytes)) documentsWritten++;
    }
    const catalogPath = v1Path(root, CATALOGUE_FILE);
    // 2. The signed files, last. DESIGN §10: the sequence grows on every build, from the highest of
    //    registry.json and the catalogues on disk, so deleting v1/ or v2/ can never reset it.
    if (options.keepUnchanged === true) {
      const previous = await previousCatalogue(root);
      if (previous !== null && sameSigners(previous, options.rootKeys)) {
        const { sequence: prevSequence, generatedAt: prevGeneratedAt } = previous.payload;
        const candidate = buildCataloguePayload({
          registry: config.registry,
          sequence: prevSequence,
          generatedAt: prevGeneratedAt,
          publishers,
          documents: v1Documents,
        });
        const snapshot = buildV2Snapshot({
          registry: config.registry,
          sequence: prevSequence,
          generatedAt: prevGeneratedAt,
          publishers,
          documents,
        });
        const previousTop = await previousTopLevel(root);
        // A v2/ top level written by an older builder under this sequence with other content
        // would be refused by v2 clients as a re-signed catalogue: then a new sequence is needed.
        const v2Kept = previousTop === null || (sameTopLevel(snapshot, previousTop) && sameSigners(previousTop, options.rootKeys));
        if (canonicalJson(candidate) === canonicalJson(previous.payload) && prevSequence >= config.sequence && v2Kept) {
          const v2 = await writeV2Snapshot(root, snapshot, {
            rootKeys: options.rootKeys,
            now: options.now ?? new Date(),
            writeTopLevel: previousTop === null,
            ...(options.gcGraceMs === undefined ? {} : { gcGraceMs: options.gcGraceMs }),
          });
          return {
            sequence: prevSequence,
            generatedAt: prevGeneratedAt,
            capabilities: documents.length,
            documentsWritten,
            catalogPath,
            unchanged: true,
            v1Listed: v1Documents.length,
            v2,
          };
        }
      }
    }
    const previousV2 = await previousTopLevel(root);
    const sequence = Math.max(config.sequence, await previousSequence(root), previousV2?.payload.sequence ?? 0) + 1;
    const now = options.now ?? new Date();
    const generatedAt = isoSeconds(now);
    const snapshot = buildV2Snapshot({ registry: config.registry, sequence, generatedAt, publishers, documents });
    const v2 = await writeV2Snapshot(root, snapshot, {
      rootKeys: options.rootKeys,
      now,
      writeTopLevel: true,
      ...(options.gcGraceMs === undefined ? {} : { gcGraceMs: options.gcGraceMs }),
    });
    const payload = buildCataloguePayload({ registry: config.registry, sequence, generatedAt, publishers, documents: v1Documents });
    const envelope = signEnvelope(payload, CATALOG_CONTEXT, options.rootKeys);
    await writeFileAtomic(catalogPath, `${JSON.stringify(envelope)}\n`).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot write ${catalogPath}`);
    });
    await writeRegistryConfig(root, { ...config, sequence });
    return {
      sequence,
      generatedAt,
      capabilities: documents.length,
      documentsWritten,
      catalogPath,
      unchanged: false,
      v1Listed: v1Documents.length,
      v2,
    };
  });
}

/**
 * The capabilities v1/catalog.json lists (docs/scaling.md "Old clients"): all of them while the
 * signed catalogue fits in `maxBytes`; past it the most recently published that fit, newest
 * first (ties by id), so a version 1 client sees a smaller, consistent registry.
 */
export function v1Subset<D extends BuiltDocument>(documents: readonly D[], publishers: readonly PublisherFile[], maxBytes: number): D[] {
  const size = (subset: readonly D[]): number =>
    Buffer.byteLength(
      JSON.stringify(buildCataloguePayload({ registry: 'r', sequence: 0, generatedAt: '', publishers, documents: subset })),
    );
  // The envelope adds the registry name, sequence, date and signatures: well under 8 KiB.
  const budget = maxBytes - 8 * 1024;
  if (size(documents) <= budget) return [...documents];
  const order = [...documents].sort((a, b) =>
    a.publishedAt > b.publishedAt ? -1 : a.publishedAt < b.publishedAt ? 1 : a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0,
  );
  // Each record's share of the catalogue: its id and its record, as JSON.
  const publishersBytes = size([]);
  let used = publishersBytes;
  let count = 0;
  for (const item of order) {
    const record = catalogueCapability(item.doc, item.bytes);
    const bytes = Buffer.byteLength(JSON.stringify({ [item.doc.id]: record })) - 1;
    if (used + bytes > budget) break;
    used += bytes;
    count++;
  }
  let subset = order.slice(0, count);
  while (subset.length > 0 && size(subset) > budget) subset = subset.slice(0, Math.floor(subset.length * 0.98));
  return subset;
}

/** Only keys listed in registry.json may sign: clients pin those, so any other key would lock them out. */
function checkSigningKeys(keys: readonly KeyFile[], rootKeys: readonly { keyId: string }[]): void {
  if (keys.length === 0) throw new AdcapError('E_USAGE', 'Building a registry needs its root key; pass --root-key key.json.');
  for (const key of keys) {
    if (!rootKeys.some((root) => root.keyId === key.keyId)) {
      throw new AdcapError(
        'E_UNTRUSTED',
        `Key ${key.keyId} is not a root key of this registry (registry.json lists ${rootKeys.map((k) => k.keyId).join(', ')}); ` +
          'sign with the root key clients have pinned.',
      );
    }
  }
}

/** The catalogue on disk, parsed (its signatures are this builder's own; sameSigners checks whose). */
async function previousCatalogue(root: string): Promise<{ payload: CataloguePayload; keyIds: string[] } | null> {
  try {
    const envelope = JSON.parse(await readFile(v1Path(root, CATALOGUE_FILE), 'utf8')) as {
      payload?: CataloguePayload;
      signatures?: { keyId?: unknown }[];
    };
    if (typeof envelope.payload?.sequence !== 'number' || !Array.isArray(envelope.signatures)) return null;
    return { payload: envelope.payload, keyIds: envelope.signatures.map((s) => String(s.keyId)) };
  } catch {
    return null;
  }
}

function sameSigners(previous: { keyIds: readonly string[] }, keys: readonly KeyFile[]): boolean {
  const now = keys.map((k) => k.keyId).sort();
  const before = [...previous.keyIds].sort();
  return now.length === before.length && now.every((keyId, i) => keyId === before[i]);
}

async function previousSequence(root: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(v1Path(root, CATALOGUE_FILE), 'utf8');
  } catch {
    return 0;
  }
  try {
    const sequence = (JSON.parse(text) as { payload?: { sequence?: unknown } }).payload?.sequence;
    return typeof sequence === 'number' && Number.isSafeInteger(sequence) ? sequence : 0;
  } catch {
    return 0;
  }
}

async function writeIfChanged(path: string, bytes: Buffer): Promise<boolean> {
  try {
    if ((await readFile(path)).equals(bytes)) return false;
  } catch {
    // missing: write it
  }
  try {
    await writeFileAtomic(path, bytes);
  } catch (error) {
    throw asAdcapError(error, `Cannot write ${path}`);
  }
  return true;
}
