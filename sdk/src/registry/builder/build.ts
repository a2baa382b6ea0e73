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
import { foldPackageDocument, packageDocumentBytes } from '../documents.js';
import { CATALOGUE_FILE, docRelativePath, v1Path } from '../layout.js';
import type { CataloguePayload, PackageDocument } from '../types.js';
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
  /** Package documents whose bytes changed in this build. */
  documentsWritten: number;
  catalogPath: string;
  /** True when `keepUnchanged` kept the catalogue on disk as it was. */
  unchanged: boolean;
}

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
}

/**
 * Builds a registry's served files (spec §13): package documents with statuses folded in, then the
 * signed catalogue with the next sequence.
 */
export async function buildRegistry(root: string, options: BuildRegistryOptions): Promise<BuildResult> {
  return withRegistryLock(root, 'registry build', async () => {
    const config = await readRegistryConfig(root);
    checkSigningKeys(options.rootKeys, config.rootKeys);
    const publishers = await readAllPublishers(root);
    const documents: { doc: PackageDocument; bytes: Buffer }[] = [];
    let documentsWritten = 0;
    // 1. Package documents (spec §13: status folded in at build time).
    for (const id of await listCapabilityIds(root)) {
      const entries = await readEntries(root, id);
      if (entries.length === 0) continue;
      const doc = foldPackageDocument(id, entries, await readStatus(root, id));
      const bytes = packageDocumentBytes(doc);
      if (await writeIfChanged(v1Path(root, docRelativePath(id)), bytes)) documentsWritten++;
      documents.push({ doc, bytes });
    }
    // 2. The catalogue, last. DESIGN §10: the sequence grows on every build, from the highest of
    //    registry.json and the catalogue on disk, so deleting v1/ can never reset it.
    if (options.keepUnchanged === true) {
      const previous = await previousCatalogue(root);
      if (previous !== null && sameSigners(previous, options.rootKeys)) {
        const { sequence: prevSequence, generatedAt: prevGeneratedAt } = previous.payload;
        const candidate = buildCataloguePayload({
          registry: config.registry,
          sequence: prevSequence,
          generatedAt: prevGeneratedAt,
          publishers,
          documents,
        });
        if (canonicalJson(candidate) === canonicalJson(previous.payload) && prevSequence >= config.sequence) {
          return {
            sequence: prevSequence,
            generatedAt: prevGeneratedAt,
            capabilities: documents.length,
            documentsWritten,
            catalogPath: v1Path(root, CATALOGUE_FILE),
            unchanged: true,
          };
        }
      }
    }
    const sequence = Math.max(config.sequence, await previousSequence(root)) + 1;
    const generatedAt = isoSeconds(options.now ?? new Date());
    const payload: CataloguePayload = buildCataloguePayload({ registry: config.registry, sequence, generatedAt, publishers, documents });
    const envelope = signEnvelope(payload, CATALOG_CONTEXT, options.rootKeys);
    const catalogPath = v1Path(root, CATALOGUE_FILE);
    await writeFileAtomic(catalogPath, `${JSON.stringify(envelope)}\n`).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot write ${catalogPath}`);
    });
    await writeRegistryConfig(root, { ...config, sequence });
    return { sequence, generatedAt, capabilities: documents.length, documentsWritten, catalogPath, unchanged: false };
  });
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

function sameSigners(previous: { keyIds: string[] }, keys: readonly KeyFile[]): boolean {
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
