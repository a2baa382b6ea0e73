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
import { sha256Hex } from '../../util/hash.js';
import { buildCataloguePayload } from '../catalogue.js';
import { catalogueCapability, foldPackageDocument, packageDocumentBytes } from '../documents.js';
import { binOf, checkTopLevelPayload, fanoutFor, type TopLevelPayload } from '../layout-v2.js';
import { CATALOGUE_FILE, docRelativePath, v1Path } from '../layout.js';
import type { CatalogueCapability, CataloguePayload, CataloguePublisher, PackageDocument, PublisherFile } from '../types.js';
import {
  binFingerprints,
  idsInBins,
  readBuildState,
  UNKNOWN_FINGERPRINT,
  walkSources,
  writeBuildState,
  type BuildState,
  type SourceWalk,
} from './build-state.js';
import {
  buildV2Incremental,
  collectV2Garbage,
  collectV2GarbageIncremental,
  EMPTY_BIN_PATH,
  inParallel,
  previousTopLevel,
  sameTopLevel,
  readPreviousRecords,
  StalePreviousBuild,
  V2_TOP_LEVEL,
  v2Path,
  buildV2SnapshotWithIndex,
  writeV2Files,
  writeV2TopLevel,
  type BuiltCapability,
  type V2BuildResult,
} from './build-v2.js';
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
  /** The catalogue's sequence number (one more than the last build's, unless kept unchanged). */
  sequence: number;
  /** When the catalogue was signed (ISO 8601, UTC, whole seconds). */
  generatedAt: string;
  /** How many capabilities the registry lists. */
  capabilities: number;
  /** Package documents whose bytes changed in this build (v1/packages/). */
  documentsWritten: number;
  /** The path of the signed v1/catalog.json. */
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
  /** The root key files whose secret halves sign the catalogue, each listed in registry.json (E_USAGE when none is given). */
  rootKeys: readonly KeyFile[];
  /** The time to sign with (default now). */
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
  /**
   * Recompute every bin from the sources, ignoring the previous build's state (docs/deploy.md
   * "Incremental builds"): after editing a published version entry in place, which an incremental
   * build does not see (entries are immutable, spec §13).
   */
  full?: boolean;
}

interface BuiltDocument {
  doc: PackageDocument;
  bytes: Buffer;
  /** The newest publishedAt of its versions: the order of the v1 subset past the cap. */
  publishedAt: string;
}

/**
 * What a build computed, full or incremental, before its two signed files: the v2 top level (its
 * registry, sequence and date set afterwards), v1/catalog.json's publishers and records, and what
 * the state file keeps for the next build.
 */
interface BuildPlan {
  incremental: boolean;
  capabilities: number;
  top: TopLevelPayload;
  written: V2BuildResult['written'];
  binsRecomputed: number;
  v1Publishers: Record<string, CataloguePublisher>;
  /** v1/catalog.json's records, by id in code-unit order. */
  v1Records: Record<string, CatalogueCapability>;
  v1Members: [id: string, publishedAt: string][];
  v1Complete: boolean;
  /** The capabilities right after the members in the subset's order (at most V1_LOOKAHEAD). */
  v1Next: [id: string, publishedAt: string][];
  documentsWritten: number;
  /** Garbage collection of v2/ once the top level is written. */
  collect: (now: Date, graceMs: number | undefined) => Promise<number>;
  binFingerprints: string[];
  binCounts: number[];
}

/**
 * Builds a registry's served files (spec §13, docs/scaling.md): package documents with statuses
 * folded in; the v2/ snapshot (immutable files, then its signed top level); v1/'s documents and
 * its signed catalogue with the same sequence and date. Files first, each layout's signed file
 * last, each write atomic.
 *
 * Incremental (docs/deploy.md "Incremental builds"): the source tree is walked with stats only
 * (build-state.ts); when the previous build's state file, top level and catalogue match, only the
 * bins whose sources changed are recomputed, with their nodes and search packs, and v1/catalog.json
 * is rebuilt from the previous one. The files are those a full build writes for the same sources;
 * anything that does not match (a file that does not hash to its pin, a changed fan-out, a v1
 * subset that cannot be decided from what is known) means a full build.
 */
export async function buildRegistry(root: string, options: BuildRegistryOptions): Promise<BuildResult> {
  return withRegistryLock(root, 'registry build', async () => {
    const config = await readRegistryConfig(root);
    checkSigningKeys(options.rootKeys, config.rootKeys);
    const now = options.now ?? new Date();
    const v1MaxBytes = options.v1MaxBytes ?? DEFAULT_V1_MAX_BYTES;
    // The walk comes before any read: a file changed after it is seen as changed by the next build.
    const walk = walkSources(root);
    const previousTop = await previousTopLevel(root);
    const previousV1 = await previousCatalogue(root);
    const state = options.full === true ? null : await readBuildState(root);
    let plan: BuildPlan | null = null;
    let abandoned: V2BuildResult['written'] | undefined;
    if (
      state !== null &&
      previousTop !== null &&
      previousV1 !== null &&
      state.topLevel === previousTop.sha256 &&
      state.v1Catalog === previousV1.sha256
    ) {
      try {
        plan = await incrementalPlan(root, { walk, state, previousTop: previousTop.payload, previousV1: previousV1.payload, v1MaxBytes });
      } catch (error) {
        if (!(error instanceof StalePreviousBuild)) throw error;
        abandoned = error.written;
        // The previous build's files are not what its state says: build everything (below).
      }
    }
    if (plan === null) {
      plan = await fullPlan(root, walk, v1MaxBytes);
      // What the abandoned incremental build wrote is part of this build's files.
      for (const [dir, count] of Object.entries(abandoned ?? {})) plan.written[dir as keyof V2BuildResult['written']] += count;
    }
    const catalogPath = v1Path(root, CATALOGUE_FILE);
    const v2Result = (topLevelWritten: boolean, collected: number): V2BuildResult => ({
      fanout: plan.top.fanout,
      bins: plan.top.fanout * plan.top.fanout,
      written: plan.written,
      topLevelWritten,
      collected,
      topLevelPath: v2Path(root, V2_TOP_LEVEL),
      incremental: plan.incremental,
      binsRecomputed: plan.binsRecomputed,
    });
    const saveState = (topLevel: string, v1Catalog: string): Promise<void> =>
      writeBuildState(root, {
        format: 1,
        fanout: plan.top.fanout,
        topLevel,
        v1Catalog,
        publishers: walk.publishers,
        bins: plan.binFingerprints,
        counts: plan.binCounts,
        v1: { complete: plan.v1Complete, members: plan.v1Members, next: plan.v1Next },
      });
    // The signed files, last. DESIGN §10: the sequence grows on every build, from the highest of
    // registry.json and the catalogues on disk, so deleting v1/ or v2/ can never reset it.
    if (options.keepUnchanged === true && previousV1 !== null && sameSigners(previousV1, options.rootKeys)) {
      const { sequence: prevSequence, generatedAt: prevGeneratedAt } = previousV1.payload;
      const candidate = v1Payload(config.registry, prevSequence, prevGeneratedAt, plan);
      const candidateTop: TopLevelPayload = {
        ...plan.top,
        registry: config.registry,
        sequence: prevSequence,
        generatedAt: prevGeneratedAt,
      };
      // A v2/ top level written by an older builder under this sequence with other content
      // would be refused by v2 clients as a re-signed catalogue: then a new sequence is needed.
      const v2Kept = previousTop === null || (sameTopLevel(candidateTop, previousTop) && sameSigners(previousTop, options.rootKeys));
      if (canonicalJson(candidate) === canonicalJson(previousV1.payload) && prevSequence >= config.sequence && v2Kept) {
        const topLevel = previousTop === null ? sha256Hex(await writeV2TopLevel(root, candidateTop, options.rootKeys)) : previousTop.sha256;
        const collected = await plan.collect(now, options.gcGraceMs);
        await saveState(topLevel, previousV1.sha256);
        return {
          sequence: prevSequence,
          generatedAt: prevGeneratedAt,
          capabilities: plan.capabilities,
          documentsWritten: plan.documentsWritten,
          catalogPath,
          unchanged: true,
          v1Listed: Object.keys(plan.v1Records).length,
          v2: v2Result(previousTop === null, collected),
        };
      }
    }
    const v1Sequence = previousV1?.payload.sequence;
    const sequence =
      Math.max(config.sequence, Number.isSafeInteger(v1Sequence) ? (v1Sequence as number) : 0, previousTop?.payload.sequence ?? 0) + 1;
    const generatedAt = isoSeconds(now);
    const topBytes = await writeV2TopLevel(root, { ...plan.top, registry: config.registry, sequence, generatedAt }, options.rootKeys);
    const collected = await plan.collect(now, options.gcGraceMs);
    const envelope = signEnvelope(v1Payload(config.registry, sequence, generatedAt, plan), CATALOG_CONTEXT, options.rootKeys);
    const v1Bytes = Buffer.from(`${JSON.stringify(envelope)}\n`, 'utf8');
    await writeFileAtomic(catalogPath, v1Bytes).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot write ${catalogPath}`);
    });
    await writeRegistryConfig(root, { ...config, sequence });
    await saveState(sha256Hex(topBytes), sha256Hex(v1Bytes));
    return {
      sequence,
      generatedAt,
      capabilities: plan.capabilities,
      documentsWritten: plan.documentsWritten,
      catalogPath,
      unchanged: false,
      v1Listed: Object.keys(plan.v1Records).length,
      v2: v2Result(true, collected),
    };
  });
}

/** v1/catalog.json's payload (the shape buildCataloguePayload gives). */
function v1Payload(registry: string, sequence: number, generatedAt: string, plan: BuildPlan): CataloguePayload {
  return { registry, spec: 1, sequence, generatedAt, publishers: plan.v1Publishers, capabilities: plan.v1Records };
}

/** The newest publishedAt of a capability's versions. */
function newestPublished(entries: readonly { publishedAt: string }[]): string {
  return entries.reduce((newest, entry) => (entry.publishedAt > newest ? entry.publishedAt : newest), '');
}

/** The v1 subset's order: most recently published first, ties by id. */
function byPublished(a: readonly [string, string], b: readonly [string, string]): number {
  return a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** Every capability read from its sources, every file of the snapshot computed (the reference build). */
async function fullPlan(root: string, walk: SourceWalk, v1MaxBytes: number): Promise<BuildPlan> {
  const publishers = await readAllPublishers(root);
  const documents: BuiltDocument[] = [];
  // 1. Package documents (spec §13: status folded in at build time).
  for (const id of await listCapabilityIds(root)) {
    const entries = await readEntries(root, id);
    if (entries.length === 0) continue;
    const doc = foldPackageDocument(id, entries, await readStatus(root, id));
    documents.push({ doc, bytes: packageDocumentBytes(doc), publishedAt: newestPublished(entries) });
  }
  const v1Documents = v1Subset(documents, publishers, v1MaxBytes);
  let documentsWritten = 0;
  await inParallel(v1Documents, async ({ doc, bytes }) => {
    if (await writeIfChanged(v1Path(root, docRelativePath(doc.id)), bytes)) documentsWritten++;
  });
  // 2. v2/'s immutable files (the signed top level is written by the caller, after them).
  const snapshot = buildV2SnapshotWithIndex({ registry: '', sequence: 0, generatedAt: '', publishers, documents });
  const { written, live } = await writeV2Files(root, snapshot);
  const fanout = snapshot.payload.fanout;
  const binCount = fanout * fanout;
  const catalogue = buildCataloguePayload({ registry: '', sequence: 0, generatedAt: '', publishers, documents: v1Documents });
  const binCounts = new Array<number>(binCount).fill(0);
  for (const { doc } of documents) {
    const bin = binOf(doc.id, binCount);
    binCounts[bin] = (binCounts[bin] ?? 0) + 1;
  }
  return {
    incremental: false,
    capabilities: documents.length,
    top: snapshot.payload,
    written,
    binsRecomputed: binCount,
    v1Publishers: catalogue.publishers,
    v1Records: catalogue.capabilities,
    v1Members: v1Documents.map(({ doc, publishedAt }): [string, string] => [doc.id, publishedAt]).sort(byPublished),
    v1Complete: v1Documents.length === documents.length,
    v1Next: lookahead(documents, v1Documents),
    documentsWritten,
    collect: (now, graceMs) => collectV2Garbage(root, live, now, graceMs),
    binFingerprints: binFingerprints(walk, binCount),
    binCounts,
  };
}

/** One capability recomputed from its sources, its document pinned under v2/docs/. */
async function buildCapability(root: string, id: string): Promise<BuiltCapability | null> {
  const entries = await readEntries(root, id);
  if (entries.length === 0) return null;
  const doc = foldPackageDocument(id, entries, await readStatus(root, id));
  const bytes = packageDocumentBytes(doc);
  const record = catalogueCapability(doc, bytes);
  const sha256 = sha256Hex(bytes);
  record.doc = { path: `docs/${sha256}.json`, sha256 };
  return { id, bytes, record, publishedAt: newestPublished(entries) };
}

/** The v1 catalogue's record of a capability: its v2 record with the document at v1/packages/. */
function v1Record(capability: BuiltCapability): CatalogueCapability {
  return { ...capability.record, doc: { path: docRelativePath(capability.id), sha256: capability.record.doc.sha256 } };
}

interface IncrementalInput {
  walk: SourceWalk;
  state: BuildState;
  previousTop: TopLevelPayload;
  previousV1: CataloguePayload;
  v1MaxBytes: number;
}

/** Only the bins whose sources changed, from the previous build's verified files (docs/deploy.md "Incremental builds"). */
async function incrementalPlan(root: string, input: IncrementalInput): Promise<BuildPlan> {
  const { walk, state, previousV1 } = input;
  let previous: TopLevelPayload;
  try {
    previous = checkTopLevelPayload(input.previousTop);
  } catch {
    throw new StalePreviousBuild('the top level is malformed');
  }
  const fanout = previous.fanout;
  if (fanout !== state.fanout || state.counts.length !== fanout * fanout) throw new StalePreviousBuild('the fan-out changed');
  const binCount = fanout * fanout;
  const fingerprints = binFingerprints(walk, binCount);
  const dirty: number[] = [];
  for (let bin = 0; bin < binCount; bin++) {
    if (state.bins[bin] === UNKNOWN_FINGERPRINT || state.bins[bin] !== fingerprints[bin]) dirty.push(bin);
  }
  const dirtySet = new Set(dirty);
  const publishersChanged = walk.publishers === UNKNOWN_FINGERPRINT || walk.publishers !== state.publishers;
  const publishers = publishersChanged ? await readAllPublishers(root) : null;
  const v2 = await buildV2Incremental(root, {
    previous,
    dirty,
    idsByBin: idsInBins(walk, binCount, dirtySet),
    build: (id) => buildCapability(root, id),
    publishers,
  });
  // F is chosen by size: a registry that grew or shrank past a power of two is rebuilt in full.
  if (fanoutFor(v2.payload.capabilities) !== fanout) throw new StalePreviousBuild('the fan-out changes', v2.written);
  const binCounts = [...state.counts];
  for (const [bin, count] of v2.counts) binCounts[bin] = count;
  // v1/catalog.json: the previous members outside the recomputed bins keep their records.
  const v1Publishers =
    publishers === null
      ? previousV1.publishers
      : buildCataloguePayload({ registry: '', sequence: 0, generatedAt: '', publishers, documents: [] }).publishers;
  const candidates: V1Candidate[] = [];
  for (const [id, publishedAt] of state.v1.members) {
    if (dirtySet.has(binOf(id, binCount))) continue;
    const record = Object.hasOwn(previousV1.capabilities, id) ? previousV1.capabilities[id] : undefined;
    if (record === undefined) throw new StalePreviousBuild(`v1/catalog.json does not list ${id}`, v2.written);
    candidates.push({ id, publishedAt, record });
  }
  // The capabilities right after the subset (the lookahead), outside the recomputed bins: their
  // records from the previous snapshot's bins, each checked against its pin.
  const next = state.v1.next.filter(([id]) => !dirtySet.has(binOf(id, binCount)));
  const nextRecords = await readPreviousRecords(
    root,
    previous,
    next.map(([id]) => id),
  ).catch((error: unknown) => {
    throw error instanceof StalePreviousBuild ? new StalePreviousBuild(error.message, v2.written) : error;
  });
  for (const [id, publishedAt] of next) {
    const record = nextRecords.get(id);
    if (record === undefined) throw new StalePreviousBuild(`the previous snapshot does not list ${id}`, v2.written);
    candidates.push({ id, publishedAt, record: { ...record, doc: { path: docRelativePath(id), sha256: record.doc.sha256 } } });
  }
  const builtById = new Map<string, BuiltCapability>();
  for (const capability of v2.built) {
    builtById.set(capability.id, capability);
    candidates.push({ id: capability.id, publishedAt: capability.publishedAt, record: v1Record(capability) });
  }
  // Every capability not among the candidates comes after this one in the subset's order.
  const boundary = state.v1.complete ? null : (state.v1.next[state.v1.next.length - 1] ?? state.v1.members[state.v1.members.length - 1]);
  if (boundary === undefined) throw new StalePreviousBuild('the v1 subset is empty', v2.written);
  const selection = selectV1Subset(candidates, v1Publishers, input.v1MaxBytes, boundary);
  if (selection === null)
    throw new StalePreviousBuild('the v1 subset needs capabilities outside the recomputed bins and the lookahead', v2.written);
  const subset = selection.subset;
  let documentsWritten = 0;
  const v1Records: Record<string, CatalogueCapability> = {};
  for (const candidate of [...subset].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    v1Records[candidate.id] = candidate.record;
    const capability = builtById.get(candidate.id);
    if (capability !== undefined && (await writeIfChanged(v1Path(root, docRelativePath(capability.id)), capability.bytes)))
      documentsWritten++;
  }
  const topPaths = new Set(
    [...v2.payload.nodes, ...v2.payload.search, v2.payload.publishers, ...(v2.payload.segments ?? [])].map((pin) => pin[0]),
  );
  const anyEmptyBin = binCounts.some((count) => count === 0);
  const isLive = (path: string): boolean => v2.referenced.has(path) || topPaths.has(path) || (path === EMPTY_BIN_PATH && anyEmptyBin);
  return {
    incremental: true,
    capabilities: v2.payload.capabilities,
    top: v2.payload,
    written: v2.written,
    binsRecomputed: dirty.length,
    v1Publishers,
    v1Records,
    v1Members: subset.map((c): [string, string] => [c.id, c.publishedAt]).sort(byPublished),
    v1Complete: subset.length === v2.payload.capabilities,
    // Known and in order: the candidates after the subset up to the boundary (after it, capabilities
    // this build did not read may come in between).
    v1Next: selection.order
      .slice(subset.length)
      .map((c): [string, string] => [c.id, c.publishedAt])
      .filter((key) => boundary === null || byPublished(key, boundary) <= 0)
      .slice(0, V1_LOOKAHEAD),
    documentsWritten,
    collect: (now, graceMs) => collectV2GarbageIncremental(root, v2.replaced, isLive, now, graceMs),
    binFingerprints: fingerprints,
    binCounts,
  };
}

interface V1Candidate {
  id: string;
  publishedAt: string;
  record: CatalogueCapability;
}

/**
 * v1Subset over records, for an incremental build: `boundary` is the last member of the previous
 * subset (null when that subset held every capability). Every capability not among `candidates`
 * is published before the boundary, so the subset is decided only when it stops at a capability
 * up to the boundary; otherwise null (a full build decides it).
 */
function selectV1Subset(
  candidates: readonly V1Candidate[],
  publishers: Record<string, CataloguePublisher>,
  maxBytes: number,
  boundary: readonly [string, string] | null,
): { subset: V1Candidate[]; order: V1Candidate[] } | null {
  const size = (subset: readonly V1Candidate[]): number => {
    const capabilities: Record<string, CatalogueCapability> = {};
    for (const c of [...subset].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) capabilities[c.id] = c.record;
    return Buffer.byteLength(JSON.stringify({ registry: 'r', spec: 1, sequence: 0, generatedAt: '', publishers, capabilities }));
  };
  const budget = maxBytes - 8 * 1024;
  const order = [...candidates].sort((a, b) => byPublished([a.id, a.publishedAt], [b.id, b.publishedAt]));
  if (size(candidates) <= budget) return boundary === null ? { subset: order, order } : null;
  let used = size([]);
  let count = 0;
  let stop: V1Candidate | undefined;
  for (const item of order) {
    const bytes = Buffer.byteLength(JSON.stringify({ [item.id]: item.record })) - 1;
    if (used + bytes > budget) {
      stop = item;
      break;
    }
    used += bytes;
    count++;
  }
  if (boundary !== null && (stop === undefined || byPublished([stop.id, stop.publishedAt], boundary) > 0)) return null;
  let subset = order.slice(0, count);
  while (subset.length > 0 && size(subset) > budget) subset = subset.slice(0, Math.floor(subset.length * 0.98));
  return { subset, order };
}

/**
 * How many capabilities after the v1 subset the state file keeps: a publish moves the last member
 * into this list, and a build whose subset grows (a removal, a smaller record) takes from it, so an
 * incremental build decides the subset without reading capabilities outside its bins.
 */
const V1_LOOKAHEAD = 256;

/** The capabilities right after the subset in its order (a full build knows every capability). */
function lookahead(documents: readonly BuiltDocument[], subset: readonly BuiltDocument[]): [string, string][] {
  if (subset.length === documents.length) return [];
  const listed = new Set(subset.map(({ doc }) => doc.id));
  const rest: [string, string][] = [];
  for (const { doc, publishedAt } of documents) if (!listed.has(doc.id)) rest.push([doc.id, publishedAt]);
  return rest.sort(byPublished).slice(0, V1_LOOKAHEAD);
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
async function previousCatalogue(root: string): Promise<{ payload: CataloguePayload; keyIds: string[]; sha256: string } | null> {
  try {
    const bytes = await readFile(v1Path(root, CATALOGUE_FILE));
    const envelope = JSON.parse(bytes.toString('utf8')) as {
      payload?: CataloguePayload;
      signatures?: { keyId?: unknown }[];
    };
    if (typeof envelope.payload?.sequence !== 'number' || !Array.isArray(envelope.signatures)) return null;
    return { payload: envelope.payload, keyIds: envelope.signatures.map((s) => String(s.keyId)), sha256: sha256Hex(bytes) };
  } catch {
    return null;
  }
}

function sameSigners(previous: { keyIds: readonly string[] }, keys: readonly KeyFile[]): boolean {
  const now = keys.map((k) => k.keyId).sort();
  const before = [...previous.keyIds].sort();
  return now.length === before.length && now.every((keyId, i) => keyId === before[i]);
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
