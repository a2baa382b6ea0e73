/**
 * What `registry build` remembers between builds, so a build after one publish recomputes one bin,
 * its node and its search pack instead of the whole registry (docs/deploy.md "Incremental builds";
 * docs/scaling.md "Version 2").
 *
 *   - The source walk lists entries/<pub>/ and status/<pub>/ and stats, never reads: each
 *     capability's entry directory (spec §13: a version entry is immutable and written by an atomic
 *     rename, so a version added, removed or replaced changes the directory's mtime) and its status
 *     file (edited in place or renamed: size, mtime and inode), as git's index and make do. The
 *     fingerprints of a bin's capabilities (sha256(id) mod F²) are combined into the bin's.
 *   - The state file, `.adcap-build-state.json` beside registry.json (never under v1/ or v2/, so never
 *     uploaded): the fan-out, each bin's fingerprint and capability count at the last build, the
 *     publishers' fingerprint, the SHA-256 of the two signed files that build wrote, and the v1
 *     subset's members with their publish dates and the capabilities right after them. A bin whose fingerprint differs is recomputed from
 *     its sources; every other bin is taken from the previous snapshot, after the files read from it
 *     are checked against their pins (and the signed files against the SHA-256 recorded here).
 *     Anything that does not match means a full rebuild.
 *   - A file modified within two seconds before the walk may still change within the same mtime
 *     tick (racy git): its bin is recorded as unknown, so the next build recomputes it.
 *   - Not seen: a published entry edited in place (which spec §13 forbids); `full: true`
 *     (`adcap registry build --full`) recomputes everything.
 */
import { readdirSync, statSync, type BigIntStats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asAdcapError } from '../../errors.js';
import { sha256Hex } from '../../util/hash.js';
import { writeFileAtomic } from '../../util/fs-atomic.js';
import { isIdPart } from '../layout.js';

/** The state file's name, in the registry's root beside registry.json. */
export const BUILD_STATE_FILE = '.adcap-build-state.json';
const STATE_FORMAT = 1;
/** Files modified this recently before the walk are not trusted to show a later change (ns). */
const RACY_NS = 2_000_000_000n;
/** A bin fingerprint that matches nothing: the bin is recomputed by the next build. */
export const UNKNOWN_FINGERPRINT = '';

/** The source tree as the walk saw it: capability ids grouped by their hash, and fingerprints. */
export interface SourceWalk {
  /** Capabilities with at least one version entry. */
  count: number;
  /** Each capability id, in walk order. */
  ids: string[];
  /** The first 32 bits of sha256(id) of each id (binOf: this mod the number of bins). */
  hashes: number[];
  /** 128 bits of each capability's fingerprint, as 4 words per capability. */
  fingerprints: Uint32Array;
  /** Capabilities with a file modified within the racy window (their bin is recorded as unknown). */
  racy: Uint8Array;
  /** Fingerprint of publishers/ (UNKNOWN_FINGERPRINT when racy). */
  publishers: string;
}

/** The state file, as written by the last build. */
export interface BuildState {
  format: 1;
  fanout: number;
  /** SHA-256 of v2/catalog.json and v1/catalog.json as that build wrote them. */
  topLevel: string;
  v1Catalog: string;
  publishers: string;
  /** One fingerprint per bin, in bin order. */
  bins: string[];
  /** How many capabilities each bin holds (a bin may hold none: then the empty bin's file is shared). */
  counts: number[];
  /** v1/catalog.json's members (all capabilities, or past the cap the newest that fit), newest first. */
  v1: { complete: boolean; members: [id: string, publishedAt: string][]; next: [id: string, publishedAt: string][] };
}

function listSorted(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw asAdcapError(error, `Cannot list ${dir}`);
  }
}

function statOf(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    throw asAdcapError(error, `Cannot read ${path}`);
  }
}

/**
 * Lists and stats the source tree (spec §13: entries/<pub>/<name>/, status/<pub>/<name>.json,
 * publishers/<pub>.json), reading no file. Synchronous calls: half a million small stats are several
 * times faster without the thread-pool round trip of each promise.
 */
export function walkSources(root: string): SourceWalk {
  const racyAfter = BigInt(Date.now()) * 1_000_000n - RACY_NS;
  const ids: string[] = [];
  const hashes: number[] = [];
  let fingerprints = new Uint32Array(4 * 4096);
  let racy = new Uint8Array(4096);
  for (const publisher of listSorted(join(root, 'entries'))) {
    if (!isIdPart(publisher)) continue;
    const statusNames = new Set(listSorted(join(root, 'status', publisher)));
    for (const name of listSorted(join(root, 'entries', publisher))) {
      if (!isIdPart(name)) continue;
      // spec §13: a version entry is immutable and written by an atomic rename, so an added, removed
      // or replaced version changes its directory's mtime: one stat per capability, no listing.
      const info = statOf(join(root, 'entries', publisher, name));
      if (info === undefined || !info.isDirectory()) continue;
      const parts = [`entries:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`];
      let isRacy = info.mtimeNs >= racyAfter || info.ctimeNs >= racyAfter;
      const statusName = `${name}.json`;
      if (statusNames.has(statusName)) {
        const info = statOf(join(root, 'status', publisher, statusName));
        if (info !== undefined) {
          parts.push(`status:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`);
          if (info.mtimeNs >= racyAfter || info.ctimeNs >= racyAfter) isRacy = true;
        }
      }
      const id = `${publisher}/${name}`;
      const index = ids.length;
      if (4 * index + 4 > fingerprints.length) {
        const grown = new Uint32Array(fingerprints.length * 2);
        grown.set(fingerprints);
        fingerprints = grown;
        const grownRacy = new Uint8Array(racy.length * 2);
        grownRacy.set(racy);
        racy = grownRacy;
      }
      ids.push(id);
      hashes.push(parseInt(sha256Hex(id).slice(0, 8), 16));
      const digest = sha256Hex(`${id}\n${parts.join('\n')}`);
      for (let w = 0; w < 4; w++) fingerprints[4 * index + w] = parseInt(digest.slice(8 * w, 8 * w + 8), 16);
      racy[index] = isRacy ? 1 : 0;
    }
  }
  return { count: ids.length, ids, hashes, fingerprints, racy, publishers: publishersFingerprint(root, racyAfter) };
}

function publishersFingerprint(root: string, racyAfter: bigint): string {
  const parts: string[] = [];
  for (const fileName of listSorted(join(root, 'publishers'))) {
    if (!fileName.endsWith('.json')) continue;
    const info = statOf(join(root, 'publishers', fileName));
    if (info === undefined) continue;
    if (info.mtimeNs >= racyAfter || info.ctimeNs >= racyAfter) return UNKNOWN_FINGERPRINT;
    parts.push(`${fileName}:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`);
  }
  return sha256Hex(parts.join('\n'));
}

/** The ids of some bins (the others are left empty), each bin's ids in code-unit order (buildV2Snapshot's). */
export function idsInBins(walk: SourceWalk, bins: number, only: ReadonlySet<number>): string[][] {
  const out: string[][] = Array.from({ length: bins }, () => []);
  for (let i = 0; i < walk.count; i++) {
    const bin = (walk.hashes[i] as number) % bins;
    if (only.has(bin)) out[bin]?.push(walk.ids[i] as string);
  }
  for (const ids of out) ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return out;
}

/**
 * Each bin's fingerprint: the XOR of its capabilities' 128-bit fingerprints (ids are unique, so no
 * two cancel), or UNKNOWN_FINGERPRINT when one of them is racy.
 */
export function binFingerprints(walk: SourceWalk, bins: number): string[] {
  const words = new Uint32Array(4 * bins);
  const unknown = new Uint8Array(bins);
  for (let i = 0; i < walk.count; i++) {
    const bin = (walk.hashes[i] as number) % bins;
    for (let w = 0; w < 4; w++) words[4 * bin + w] = ((words[4 * bin + w] as number) ^ (walk.fingerprints[4 * i + w] as number)) >>> 0;
    if (walk.racy[i] === 1) unknown[bin] = 1;
  }
  const out: string[] = [];
  for (let bin = 0; bin < bins; bin++) {
    if (unknown[bin] === 1) {
      out.push(UNKNOWN_FINGERPRINT);
      continue;
    }
    let hex = '';
    for (let w = 0; w < 4; w++) hex += (words[4 * bin + w] as number).toString(16).padStart(8, '0');
    out.push(hex);
  }
  return out;
}

function isState(value: unknown): value is BuildState {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<BuildState>;
  return (
    s.format === STATE_FORMAT &&
    Number.isSafeInteger(s.fanout) &&
    typeof s.topLevel === 'string' &&
    typeof s.v1Catalog === 'string' &&
    typeof s.publishers === 'string' &&
    Array.isArray(s.bins) &&
    s.bins.length === (s.fanout as number) * (s.fanout as number) &&
    s.bins.every((b) => typeof b === 'string') &&
    Array.isArray(s.counts) &&
    s.counts.length === s.bins.length &&
    s.counts.every((c) => Number.isSafeInteger(c) && c >= 0) &&
    typeof s.v1 === 'object' &&
    s.v1 !== null &&
    typeof s.v1.complete === 'boolean' &&
    Array.isArray(s.v1.members) &&
    [s.v1.members, (s.v1.next ??= [])].every(
      (list) =>
        Array.isArray(list) &&
        list.every((m) => Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string'),
    )
  );
}

/** The state of the last build, or null (none, damaged, or of another format: build in full). */
export async function readBuildState(root: string): Promise<BuildState | null> {
  try {
    const value = JSON.parse(await readFile(join(root, BUILD_STATE_FILE), 'utf8')) as unknown;
    return isState(value) ? value : null;
  } catch {
    return null;
  }
}

export async function writeBuildState(root: string, state: BuildState): Promise<void> {
  const path = join(root, BUILD_STATE_FILE);
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`).catch((error: unknown) => {
    throw asAdcapError(error, `Cannot write ${path}`);
  });
}
