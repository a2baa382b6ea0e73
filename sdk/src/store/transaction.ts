import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { asAdcapError } from '../errors.js';
import { removeTree } from '../util/fs-tree.js';
import { pruneFingerprints, recordFileFingerprints } from './file-fingerprints.js';
import type { Manifest } from '../format/manifest-types.js';
import type { HomeLayout } from './home.js';
import { readInstalledManifest } from './installed.js';
import { beginOperation, pendingOperations, readJournal, type JournalRecord, type OperationKind } from './journal.js';
import { writeState, type PackageState } from './state.js';

/** A version directory an operation creates, with the function that extracts it (verified). */
export interface VersionToCreate {
  id: string;
  version: string;
  /**
   * Extracts the verified package into `target`; returns the manifest it verified, its digest and
   * the SHA-256 of the capability.json bytes it checked and wrote, when it has them at hand.
   */
  extract(target: string): Promise<ExtractedManifest | void>;
}

/** What an extraction verified: the manifest, its canonical digest and the SHA-256 of the capability.json bytes it wrote. */
export interface ExtractedManifest {
  manifest: Manifest;
  manifestSha256: string;
  manifestFileSha256: string;
}

interface OperationSpec {
  op: OperationKind;
  before: Record<string, PackageState | null>;
  after: Record<string, PackageState | null>;
  creates: VersionToCreate[];
  /** Called between steps; tests use it to observe progress. */
  onStep?: (step: 'journal' | 'extracted' | 'states' | 'pruned') => void;
}

/**
 * Carries out one change of installed packages in the order of journal.ts, so a crash at any point
 * leaves a journal record from which `recoverOperations` reaches either the old or the new state.
 * The caller holds the home lock.
 */
export async function runOperation(home: HomeLayout, spec: OperationSpec): Promise<void> {
  const journal = await beginOperation(home, {
    op: spec.op,
    before: spec.before,
    after: spec.after,
    creates: spec.creates.map(({ id, version }) => ({ id, version })),
  });
  spec.onStep?.('journal');
  try {
    for (const create of spec.creates) {
      const target = home.versionDir(create.id, create.version);
      if (await exists(target)) continue; // kept from an earlier install of the same version
      await mkdir(dirname(target), { recursive: true });
      const verified = await create.extract(target);
      // SECURITY.md "Installed files": the fingerprints of files just verified, so a run hashes only
      // what changed since. The manifest the extraction verified is used as it is (reading it back
      // would validate it once more and write the record twice), and the manifest check is recorded
      // under the SHA-256 of the very bytes the extraction validated and wrote as capability.json.
      await (
        verified === undefined
          ? readInstalledManifest(home, create.id, create.version).then((manifest) =>
              recordFileFingerprints(home, create.id, create.version, manifest),
            )
          : recordFileFingerprints(home, create.id, create.version, verified.manifest, {
              digest: verified.manifestSha256,
              checkedFileSha256: verified.manifestFileSha256,
            })
      ).catch(() => undefined);
    }
  } catch (error) {
    // A refused or failed extraction: undo now (the before-states are all on disk), so the home
    // is as it was and no journal waits for doctor. A crash in here is still recovered later.
    const undo: JournalRecord = { ...journal.record, before: journal.record.after, after: journal.record.before };
    await applyStates(home, undo);
    await pruneUnreferenced(home, undo);
    await journal.complete();
    throw error;
  }
  spec.onStep?.('extracted');
  await applyStates(home, journal.record);
  spec.onStep?.('states');
  await pruneUnreferenced(home, journal.record);
  spec.onStep?.('pruned');
  await journal.complete();
}

interface RecoveryOutcome {
  opId: string;
  op: OperationKind;
  startedAt: string;
  outcome: 'completed' | 'undone';
  packages: string[];
}

/**
 * Finishes or undoes operations that a crash interrupted (DESIGN §6). Forward when every version
 * directory the new states need is on disk (extraction finished), backward otherwise. Either way
 * nothing the surviving states reference is removed. The caller holds the home lock.
 */
export async function recoverOperations(
  home: HomeLayout,
  options: { dryRun?: boolean; skipDamaged?: boolean } = {},
): Promise<RecoveryOutcome[]> {
  const outcomes: RecoveryOutcome[] = [];
  // doctor reports damaged records itself (skipDamaged); every other caller stops at one (E_JSON).
  const records =
    options.skipDamaged === true
      ? (await readJournal(home, { removeTemp: options.dryRun !== true })).records
      : await pendingOperations(home, { removeTemp: options.dryRun !== true });
  for (const { file, record } of records) {
    const forward = await allPresent(home, record.after);
    const outcome: RecoveryOutcome = {
      opId: record.opId,
      op: record.op,
      startedAt: record.startedAt,
      outcome: forward ? 'completed' : 'undone',
      packages: Object.keys(record.after),
    };
    outcomes.push(outcome);
    if (options.dryRun === true) continue;
    try {
      if (forward) {
        await applyStates(home, record);
        await pruneUnreferenced(home, record);
      } else {
        const undo: JournalRecord = { ...record, before: record.after, after: record.before };
        await applyStates(home, undo);
        await pruneUnreferenced(home, undo);
      }
      await rm(file, { force: true });
    } catch (error) {
      // Every failure of the journal is coded (E_IO naming the operation).
      throw asAdcapError(
        error,
        `Cannot ${forward ? 'finish' : 'undo'} the interrupted ${record.op} of ${outcome.packages.join(', ')} (journal ${file})`,
      );
    }
  }
  return outcomes;
}

async function applyStates(home: HomeLayout, record: Pick<JournalRecord, 'after'>): Promise<void> {
  for (const [id, state] of Object.entries(record.after)) {
    if (state === null) await rm(home.stateFile(id), { force: true });
    else await writeState(home, state);
  }
}

function referenced(state: PackageState | null | undefined): Set<string> {
  return new Set(state === null || state === undefined ? [] : [state.active, ...state.history]);
}

/**
 * Removes version directories of the touched packages that the new states no longer reference,
 * staging leftovers, and whole package directories of uninstalled capabilities.
 */
async function pruneUnreferenced(home: HomeLayout, record: Pick<JournalRecord, 'after'>): Promise<void> {
  for (const [id, state] of Object.entries(record.after)) {
    const dir = home.packageDir(id);
    if (state === null) {
      await removeTree(dir);
      await pruneFingerprints(home, id, null);
      continue;
    }
    const keep = referenced(state);
    for (const name of await listDir(dir)) {
      if (name === 'state.json' || keep.has(name)) continue;
      await removeTree(join(dir, name));
    }
    await pruneFingerprints(home, id, keep);
  }
}

async function allPresent(home: HomeLayout, after: Record<string, PackageState | null>): Promise<boolean> {
  for (const [id, state] of Object.entries(after)) {
    for (const version of referenced(state)) {
      if (!(await exists(home.versionDir(id, version)))) return false;
    }
  }
  return true;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
