/**
 * The v2/ half of `adcap registry build` (docs/scaling.md "Version 2", docs/deploy.md "Upload
 * order"): writes the content-addressed files of a snapshot that are not on disk yet, then the
 * signed top level, then collects files no snapshot has referenced for longer than the grace
 * period. Because every file but the top level is named by its hash, a client that read any top
 * level still served finds every file it pins, however the upload interleaves with its reads.
 */
import { access, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { asAdcapError } from '../../errors.js';
import { canonicalJson } from '../../format/canonical-json.js';
import { CATALOG_V2_CONTEXT, signEnvelope } from '../../trust/envelope.js';
import type { KeyFile } from '../../trust/keys.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs-atomic.js';
import type { buildV2Snapshot, TopLevelPayload, V2File } from '../layout-v2.js';

/** The top level's file name under v2/. */
export const V2_TOP_LEVEL = 'catalog.json';
/** Folders of content-addressed files under v2/ (garbage-collected after the grace period). */
export const V2_CONTENT_DIRS = ['docs', 'bins', 'nodes', 'publishers', 'search'] as const;
/** Where the builder remembers since when a file is referenced by no snapshot (a dot-file: never served). */
const RETIRED_FILE = '.retired.json';
/** Default grace period: longer than any cache keeps a top level, and than a client takes between a top level and its files. */
export const DEFAULT_GC_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** What the v2 half of a build wrote. */
export interface V2BuildResult {
  /** F: nodes, search packs and bins per node. */
  fanout: number;
  /** F², the number of bins. */
  bins: number;
  /** Content-addressed files written in this build, by folder (files already on disk are not touched). */
  written: Record<'docs' | 'bins' | 'nodes' | 'publishers' | 'search', number>;
  /** Whether the top level was written (false when keepUnchanged kept it). */
  topLevelWritten: boolean;
  /** Files removed because no snapshot had referenced them for longer than the grace period. */
  collected: number;
  /** Where the top level is (v2/catalog.json). */
  topLevelPath: string;
}

export function v2Path(root: string, relative: string): string {
  return join(root, 'v2', ...relative.split('/'));
}

/** The signed top level on disk, parsed (this builder's own; used for keepUnchanged and the sequence floor). */
export async function previousTopLevel(root: string): Promise<{ payload: TopLevelPayload; keyIds: string[] } | null> {
  try {
    const envelope = JSON.parse(await readFile(v2Path(root, V2_TOP_LEVEL), 'utf8')) as {
      payload?: TopLevelPayload;
      signatures?: { keyId?: unknown }[];
    };
    if (typeof envelope.payload?.sequence !== 'number' || !Array.isArray(envelope.signatures)) return null;
    return { payload: envelope.payload, keyIds: envelope.signatures.map((s) => String(s.keyId)) };
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** True when the snapshot's payload equals the top level on disk (same sequence, same pins). */
export function sameTopLevel(snapshot: ReturnType<typeof buildV2Snapshot>, previous: { payload: TopLevelPayload } | null): boolean {
  return previous !== null && canonicalJson(previous.payload) === canonicalJson(snapshot.payload);
}

/**
 * Writes one snapshot: immutable files first (documents, bins, publisher bins, nodes, search
 * packs; only those missing), the signed top level last, then garbage collection.
 */
export async function writeV2Snapshot(
  root: string,
  snapshot: ReturnType<typeof buildV2Snapshot>,
  options: { rootKeys: readonly KeyFile[]; now: Date; gcGraceMs?: number; writeTopLevel: boolean },
): Promise<V2BuildResult> {
  const written: V2BuildResult['written'] = { docs: 0, bins: 0, nodes: 0, publishers: 0, search: 0 };
  const files: V2File[] = [
    ...snapshot.docs,
    ...snapshot.bins,
    ...snapshot.publisherBins,
    ...snapshot.nodes,
    snapshot.publishersNode,
    ...snapshot.packs,
  ];
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.path)) continue; // equal content, one name (empty bins share one file)
    seen.add(file.path);
    const path = v2Path(root, file.path);
    if (await exists(path)) continue;
    await writeFileAtomic(path, file.bytes).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot write ${path}`);
    });
    written[file.path.slice(0, file.path.indexOf('/')) as keyof V2BuildResult['written']]++;
  }
  const topLevelPath = v2Path(root, V2_TOP_LEVEL);
  if (options.writeTopLevel) {
    const envelope = signEnvelope(snapshot.payload, CATALOG_V2_CONTEXT, options.rootKeys);
    await writeFileAtomic(topLevelPath, `${JSON.stringify(envelope)}\n`).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot write ${topLevelPath}`);
    });
  }
  const collected = await collectGarbage(root, seen, options.now, options.gcGraceMs ?? DEFAULT_GC_GRACE_MS);
  return {
    fanout: snapshot.payload.fanout,
    bins: snapshot.payload.fanout * snapshot.payload.fanout,
    written,
    topLevelWritten: options.writeTopLevel,
    collected,
    topLevelPath,
  };
}

/**
 * Garbage collection (docs/deploy.md "Upload order"): a content-addressed file the current snapshot
 * does not reference is recorded as retired with the time; it is deleted once it has been retired
 * for longer than the grace period, so a client (or a cache) that read an older top level within
 * that period still finds every file it pins. A file referenced again is no longer retired.
 */
async function collectGarbage(root: string, live: ReadonlySet<string>, now: Date, graceMs: number): Promise<number> {
  const recordPath = v2Path(root, RETIRED_FILE);
  let retired: Record<string, string> = {};
  try {
    const value = JSON.parse(await readFile(recordPath, 'utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) retired = value as Record<string, string>;
  } catch {
    // none yet (or damaged: every unreferenced file starts its grace period now)
  }
  const next: Record<string, string> = {};
  let collected = 0;
  for (const dir of V2_CONTENT_DIRS) {
    let names: string[];
    try {
      names = await readdir(v2Path(root, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue; // temp files of a concurrent atomic write
      const path = `${dir}/${name}`;
      if (live.has(path)) continue;
      const since = Object.hasOwn(retired, path) ? Date.parse(retired[path] as string) : Number.NaN;
      if (Number.isNaN(since)) {
        next[path] = now.toISOString();
      } else if (now.getTime() - since > graceMs) {
        await rm(v2Path(root, path), { force: true });
        collected++;
      } else {
        next[path] = retired[path] as string;
      }
    }
  }
  await writeJsonAtomic(recordPath, next).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot write ${recordPath}`);
  });
  return collected;
}
