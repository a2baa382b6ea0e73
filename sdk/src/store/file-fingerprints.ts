/**
 * The installed files of a version, checked before every run against the signed manifest (spec
 * §4: a package's identity is its manifest, which lists every file's SHA-256 and size). Hashing
 * every file before each run would cost as much as the install's verification, so a stat
 * fingerprint of each file (size, mtime, inode, ctime, in nanoseconds) is recorded once the files
 * are known good, and a run hashes only the files whose fingerprint differs. ctime cannot be set
 * by a user (utimes sets it to now), so a file rewritten and given back its old mtime still
 * differs; a file moved in from elsewhere has another inode. The fingerprints are a cache of a
 * verification, never the truth: a missing or unreadable record means "hash everything".
 */
import { lstatSync, readdirSync, readFileSync, type BigIntStats } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AdcapError } from '../errors.js';
import { reasonError } from '../surface-text.js';
import type { Manifest } from '../format/manifest-types.js';
import { writeJsonAtomic } from '../util/fs-atomic.js';
import { hashFile, sha256Hex } from '../util/hash.js';
import { manifestDigest } from '../format/canonical-json.js';
import { parseStrictJson } from '../format/strict-json.js';
import { sdkPackageVersion } from '../util/sdk-version.js';
import type { HomeLayout } from './home.js';
import type { InstalledView } from './store-view.js';

/** The entries of an installed version that `files` does not list (spec §2: the archive's own). */
const PACKAGE_OWN = new Set(['capability.json', 'SIGNATURE.json']);
const FORMAT = 1;
const HASH_CONCURRENCY = 4;
/** Files up to this size are read whole to hash them (a stream's 1 MiB buffer per small file costs more). */
const SMALL_FILE_BYTES = 1 << 20;
/**
 * Up to this many files (and folder entries), a version's files are listed and stat'ed with
 * synchronous calls: each returns at once from the kernel's caches, where a promise costs a
 * thread-pool round trip, and a run's check is on the path of every tool call. Larger packages
 * are checked with promises, so the event loop is never held for long.
 */
const SYNC_CHECK_ENTRIES = 256;

interface FingerprintFile {
  format: typeof FORMAT;
  /** path -> "size:mtimeNs:ino:ctimeNs". */
  files: Record<string, string>;
  /** The capability.json that passed every check of validateManifest (see manifestCheckRecorded). */
  manifest?: ManifestCheck;
}

/**
 * A full check of an installed capability.json that passed: the SHA-256 of its bytes and which
 * checks it passed (MANIFEST_CHECKS). A cache of a verification like the fingerprints, never the truth.
 */
interface ManifestCheck {
  sha256: string;
  checks: string;
}

/** What a check did: files compared by fingerprint only, and files hashed because theirs differed. */
export interface FileCheck {
  files: number;
  hashed: number;
}

/** SHA-256 and size of a file expected to be `size` bytes, or null when it cannot be read. */
async function contentOf(path: string, size: number): Promise<{ sha256: string; size: number } | null> {
  if (size > SMALL_FILE_BYTES) return hashFile(path).catch(() => null);
  const bytes = await readFile(path).catch(() => null);
  return bytes === null ? null : { sha256: sha256Hex(bytes), size: bytes.length };
}

function fingerprintOf(info: BigIntStats): string {
  return `${info.size}:${info.mtimeNs}:${info.ino}:${info.ctimeNs}`;
}

async function readRecord(path: string): Promise<FingerprintFile> {
  try {
    // Synchronous, as the small packages' checks below: the record is read before every run.
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<FingerprintFile> | null;
    if (value?.format !== FORMAT || typeof value.files !== 'object' || value.files === null) return { format: FORMAT, files: {} };
    const m = value.manifest;
    const manifest = typeof m?.sha256 === 'string' && typeof m.checks === 'string' ? { sha256: m.sha256, checks: m.checks } : undefined;
    return { format: FORMAT, files: value.files, ...(manifest === undefined ? {} : { manifest }) };
  } catch {
    return { format: FORMAT, files: {} };
  }
}

/**
 * Records the fingerprints of a version's files. Called right after the install verified them
 * (and by a run that hashed them); a failure to record costs only a full hash at the next run.
 *
 * The files are stat'ed synchronously: they were just written, so each lstat is a lookup in the
 * kernel's caches (about 15-40 ms for 2,000 files here), where one awaited thread-pool round trip
 * per file took 85-740 ms on a loaded machine and all of them at once 40-130 ms.
 */
export async function recordFileFingerprints(
  home: HomeLayout,
  id: string,
  version: string,
  manifest: Manifest,
  verified: {
    /** manifestDigest(manifest), when the caller has it already (the install's verification computed it). */
    digest?: string;
    /**
     * The SHA-256 of the capability.json bytes that were parsed strictly, passed validateManifest
     * into `manifest`, and were written as the version's capability.json (readPackage's
     * manifestFileSha256). The record names those bytes: a later read checks the bytes on disk
     * against it (manifestCheckRecorded), so bytes that differ are checked in full.
     */
    checkedFileSha256?: string;
  } = {},
): Promise<void> {
  const dir = home.versionDir(id, version);
  const files: Record<string, string> = {};
  for (const file of manifest.files) files[file.path] = fingerprintOf(lstatSync(join(dir, file.path), { bigint: true }));
  let check: ManifestCheck | undefined;
  if (verified.checkedFileSha256 !== undefined) {
    check = { sha256: verified.checkedFileSha256, checks: MANIFEST_CHECKS };
  } else {
    // `manifest` passed validateManifest at install: the capability.json on disk is recorded as
    // checked only when its bytes hold that very manifest (same canonical digest).
    const digest = verified.digest ?? manifestDigest(manifest);
    const bytes = await readFile(join(dir, 'capability.json')).catch(() => null);
    try {
      if (bytes !== null && manifestDigest(parseStrictJson(bytes, 'capability.json') as Manifest) === digest) {
        check = { sha256: sha256Hex(bytes), checks: MANIFEST_CHECKS };
      }
    } catch {
      // not the manifest that was checked: the next read checks it in full
    }
  }
  await writeJsonAtomic(home.fingerprintFile(id, version), {
    format: FORMAT,
    files,
    ...(check === undefined ? {} : { manifest: check }),
  } satisfies FingerprintFile);
}

/**
 * Which checks a recorded manifest check stands for: the SDK's version and the revision of
 * validateManifest's rules. A record made by another SDK, or before the rules changed, is not
 * used (the manifest is checked in full again). Raise MANIFEST_RULES when validateManifest
 * refuses something it accepted before.
 */
const MANIFEST_RULES = 1;
export const MANIFEST_CHECKS = `sdk ${sdkPackageVersion()}; rules ${MANIFEST_RULES}`;

/**
 * Whether the capability.json of `id@version` whose bytes hash to `sha256` passed every check of
 * validateManifest before, under MANIFEST_CHECKS (DESIGN §6 fingerprints/). Anything else (no
 * record, other bytes, other checks, an unreadable record) is false: the caller checks in full.
 */
export async function manifestCheckRecorded(home: HomeLayout, id: string, version: string, sha256: string): Promise<boolean> {
  const check = (await readRecord(home.fingerprintFile(id, version))).manifest;
  return check !== undefined && check.sha256 === sha256 && check.checks === MANIFEST_CHECKS;
}

/**
 * Records that the capability.json of `id@version` with these bytes passed every check of
 * validateManifest (the caller just checked it in full). Best effort: a lost record costs one
 * full check at the next read. The file fingerprints in the record are kept.
 */
export async function recordManifestCheck(home: HomeLayout, id: string, version: string, sha256: string): Promise<void> {
  const path = home.fingerprintFile(id, version);
  const record = await readRecord(path);
  if (record.manifest?.sha256 === sha256 && record.manifest.checks === MANIFEST_CHECKS) return;
  await writeJsonAtomic(path, { ...record, manifest: { sha256, checks: MANIFEST_CHECKS } } satisfies FingerprintFile).catch(
    () => undefined,
  );
}

/**
 * Its tools do not run; how to repair it depends on where the message is read (surface-text.ts:
 * arc.doctor({ fix: true }) for the SDK, "adcap doctor --fix" for the CLI, Repair on Health in the UI).
 */
function changed(
  id: string,
  version: string,
  path: string,
  how: 'changed' | 'added' | 'removed',
  code: 'E_HASH' | 'E_UNLISTED' | 'E_MISSING',
): AdcapError {
  const what = how === 'added' ? `The set of installed files (${path} was added)` : `The installed file ${path}`;
  return reasonError('installed-files-changed', { id, version, path, what }, { code });
}

/**
 * Checks every file of an installed version that a run exposes against `manifest.files`: each
 * listed file is a regular file whose fingerprint matches the one recorded, or whose SHA-256 and
 * size match the manifest; no other file or link was added. E_HASH (changed), E_MISSING (gone)
 * or E_UNLISTED (added) name the path and `adcap doctor --fix`. Fingerprints of files that were
 * hashed and found intact are recorded again (a copy or restore changes inodes, not content).
 */
export async function checkInstalledFiles(home: HomeLayout, id: string, version: string, manifest: Manifest): Promise<FileCheck> {
  const dir = home.versionDir(id, version);
  const recordPath = home.fingerprintFile(id, version);
  const record = await readRecord(recordPath);
  const recorded = record.files;
  const listed = new Set(manifest.files.map((f) => f.path));
  const small = manifest.files.length <= SYNC_CHECK_ENTRIES;
  const budget = { entries: SYNC_CHECK_ENTRIES };
  let unlisted = small ? firstUnlistedSync(dir, '', listed, budget) : undefined;
  // A large package, or a small one whose folders hold more entries than the budget: with promises.
  if (unlisted === undefined || budget.entries < 0) unlisted = await firstUnlisted(dir, '', listed);
  if (unlisted !== null) throw changed(id, version, unlisted, 'added', 'E_UNLISTED');
  const current: Record<string, string> = {};
  const toHash: Manifest['files'] = [];
  const compare = (file: Manifest['files'][number], info: BigIntStats | null): void => {
    if (info === null) throw changed(id, version, file.path, 'removed', 'E_MISSING');
    if (!info.isFile()) throw changed(id, version, file.path, 'changed', 'E_HASH');
    current[file.path] = fingerprintOf(info);
    if (recorded[file.path] !== current[file.path]) toHash.push(file);
  };
  if (small) {
    for (const file of manifest.files) compare(file, lstatOrNull(join(dir, file.path)));
  } else {
    await Promise.all(
      manifest.files.map(async (file) => compare(file, await lstat(join(dir, file.path), { bigint: true }).catch(() => null))),
    );
  }
  // A few at a time: after a copy or restore every file differs, and thousands of open files would not do.
  const queue = [...toHash];
  const hashOne = async (): Promise<void> => {
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      const actual = await contentOf(join(dir, file.path), file.size);
      if (actual === null || actual.size !== file.size || actual.sha256 !== file.sha256)
        throw changed(id, version, file.path, 'changed', 'E_HASH');
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASH_CONCURRENCY, queue.length) }, hashOne));
  const hashed = toHash.length;
  if (hashed > 0) {
    const kept = record.manifest === undefined ? {} : { manifest: record.manifest };
    await writeJsonAtomic(recordPath, { format: FORMAT, files: current, ...kept } satisfies FingerprintFile).catch(() => undefined);
  }
  return { files: manifest.files.length, hashed };
}

/** The package path of `name` inside the folder at `prefix` ('' for the version's own folder). */
function childPath(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}/${name}`;
}

/** Whether the file at `rel` (in the folder at `prefix`) is neither listed nor one of the package's own files. */
function isUnlisted(rel: string, prefix: string, listed: ReadonlySet<string>): boolean {
  return !listed.has(rel) && !(prefix === '' && PACKAGE_OWN.has(rel));
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return null;
  }
}

/**
 * firstUnlisted with synchronous calls, for a small package: each entry seen takes one from
 * `budget.entries`; once it is below zero the walk stops (the caller walks again with promises).
 */
function firstUnlistedSync(dir: string, prefix: string, listed: ReadonlySet<string>, budget: { entries: number }): string | null {
  const entries = readdirSync(dir, { withFileTypes: true });
  budget.entries -= entries.length;
  if (budget.entries < 0) return null;
  for (const entry of entries) {
    const rel = childPath(prefix, entry.name);
    if (entry.isDirectory()) {
      const inner = firstUnlistedSync(join(dir, entry.name), rel, listed, budget);
      if (inner !== null || budget.entries < 0) return inner;
    } else if (isUnlisted(rel, prefix, listed)) {
      return rel;
    }
  }
  return null;
}

/** The first entry below `dir` that is neither listed nor the package's own, or a link, or null. */
async function firstUnlisted(dir: string, prefix: string, listed: ReadonlySet<string>): Promise<string | null> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = childPath(prefix, entry.name);
    if (entry.isDirectory()) {
      const inner = await firstUnlisted(join(dir, entry.name), rel, listed);
      if (inner !== null) return inner;
    } else if (isUnlisted(rel, prefix, listed)) {
      return rel;
    }
  }
  return null;
}

/**
 * The files a run of a tool of `id@version` exposes and executes: the capability's own and those
 * of its direct dependencies (bound read-only into the sandbox, spec §6), each checked as
 * `checkInstalledFiles` does; a dependency's manifest must also be the one it was installed with.
 * The caller has checked the capability's own manifest digest.
 */
export async function checkRunFiles(view: InstalledView, id: string, version: string, manifest: Manifest): Promise<FileCheck> {
  const total = await checkInstalledFiles(view.home, id, version, manifest);
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    // A dependency that is not installed is refused with its own message when its folder is looked up.
    const state = await view.state(dep).catch(() => null);
    if (state === null) continue;
    const depManifest = await view.readInstalledManifest(dep, state.active);
    const expected = state.versions[state.active]?.manifestSha256;
    if (expected !== undefined && manifestDigest(depManifest) !== expected) {
      throw changed(dep, state.active, 'capability.json', 'changed', 'E_HASH');
    }
    const check = await checkInstalledFiles(view.home, dep, state.active, depManifest);
    total.files += check.files;
    total.hashed += check.hashed;
  }
  return total;
}

/**
 * Removes the fingerprints of versions that are no longer on disk: all of `id`'s when `keep` is
 * null (uninstalled), else those of versions not in `keep`. Best effort: a leftover record only
 * costs a full hash if the same version is installed again.
 */
export async function pruneFingerprints(home: HomeLayout, id: string, keep: ReadonlySet<string> | null): Promise<void> {
  const dir = dirname(home.fingerprintFile(id, '0.0.0'));
  if (keep === null) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    return;
  }
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name.endsWith('.json') && !keep.has(name.slice(0, -'.json'.length)))
      await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}
