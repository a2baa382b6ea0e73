import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError, asAdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { fsyncDir, writeJsonAtomic } from '../util/fs-atomic.js';
import type { HomeLayout } from './home.js';
import type { PackageState } from './state.js';

/**
 * Intent records for operations that change installed packages (DESIGN §6: "a crash at any point
 * leaves either the old or the new state, and doctor() says which and repairs").
 *
 * Protocol, always in this order:
 *   1. write the journal record (before- and after-states of every package touched);
 *   2. extract every new version (each appears by one rename, complete or not at all);
 *   3. write every after-state;
 *   4. delete version directories that the after-states no longer reference;
 *   5. delete the journal record.
 * Recovery rolls forward when every version the after-states need is on disk (step 2 finished),
 * and back otherwise; step 4 never starts before step 2 finished, so rolling back never lacks a
 * version the before-states need.
 */
export type OperationKind = 'install' | 'update' | 'rollback' | 'uninstall' | 'grants' | 'disable' | 'enable';

export interface JournalRecord {
  opId: string;
  op: OperationKind;
  pid: number;
  startedAt: string;
  /** State of each touched package before the operation (null: not installed). */
  before: Record<string, PackageState | null>;
  /** State of each touched package after the operation (null: uninstalled). */
  after: Record<string, PackageState | null>;
  /** Version directories the operation extracts. */
  creates: Array<{ id: string; version: string }>;
}

interface Journal {
  readonly file: string;
  readonly record: JournalRecord;
  complete(): Promise<void>;
}

export async function beginOperation(home: HomeLayout, record: Omit<JournalRecord, 'opId' | 'pid' | 'startedAt'>): Promise<Journal> {
  const full: JournalRecord = {
    opId: `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    ...record,
  };
  const file = join(home.journalDir, `${full.opId}.json`);
  await writeJsonAtomic(file, full);
  return {
    file,
    record: full,
    async complete() {
      await rm(file, { force: true });
      await fsyncDir(home.journalDir);
    },
  };
}

/** A journal file that cannot be read as a record (reported with a code, never a TypeError). */
export interface DamagedJournalRecord {
  file: string;
  error: AdcapError;
}

/**
 * Journal records left by operations that did not finish (a crash, a kill, a power cut).
 * `removeTemp` (default true) deletes temp files of interrupted journal writes (operations that
 * never started); a read-only caller (doctor without fix) passes false. Damaged records are
 * E_JSON: thrown by default, or returned in `damaged` with `{ damaged: 'report' }`. Every failure
 * is an AdcapError (E_IO for the file system).
 */
export async function pendingOperations(
  home: HomeLayout,
  options: { removeTemp?: boolean } = {},
): Promise<Array<{ file: string; record: JournalRecord }>> {
  const { records, damaged } = await readJournal(home, options);
  const first = damaged[0];
  if (first !== undefined) throw first.error;
  return records;
}

export async function readJournal(
  home: HomeLayout,
  options: { removeTemp?: boolean } = {},
): Promise<{ records: Array<{ file: string; record: JournalRecord }>; damaged: DamagedJournalRecord[] }> {
  let names: string[];
  try {
    names = await readdir(home.journalDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], damaged: [] };
    throw asAdcapError(error, `Cannot read the operation journal ${home.journalDir}`);
  }
  const records: Array<{ file: string; record: JournalRecord }> = [];
  const damaged: DamagedJournalRecord[] = [];
  for (const name of names.sort()) {
    const file = join(home.journalDir, name);
    if (!name.endsWith('.json')) {
      // A temp file of an interrupted journal write: the operation never started.
      if (options.removeTemp !== false) {
        try {
          await rm(file, { force: true });
        } catch (error) {
          throw asAdcapError(error, `Cannot remove the unfinished journal file ${file}`);
        }
      }
      continue;
    }
    const broken = (why: string, cause?: unknown): AdcapError =>
      new AdcapError(
        'E_JSON',
        `The journal record ${name} is damaged (${why}); remove ${file} after checking your installs with "adcap doctor".`,
        {
          ...(cause === undefined ? {} : { cause }),
          details: { file },
        },
      );
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // finished meanwhile
      throw asAdcapError(error, `Cannot read the journal record ${file}`);
    }
    let value: unknown;
    try {
      value = parseStrictJson(bytes, `The journal record ${name}`);
    } catch (cause) {
      damaged.push({ file, error: broken('not valid JSON', cause) });
      continue;
    }
    const problem = journalShapeProblem(value);
    if (problem !== null) damaged.push({ file, error: broken(problem) });
    else records.push({ file, record: value as JournalRecord });
  }
  return { records, damaged };
}

const OPERATIONS: readonly string[] = ['install', 'update', 'rollback', 'uninstall', 'grants'];

/** What makes `value` unusable as a JournalRecord, or null. Package states are checked when applied. */
function journalShapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  if (typeof r.opId !== 'string' || typeof r.startedAt !== 'string') return 'no opId or startedAt';
  if (typeof r.op !== 'string' || !OPERATIONS.includes(r.op)) return 'an unknown operation';
  for (const side of ['before', 'after'] as const) {
    const states = r[side];
    if (typeof states !== 'object' || states === null || Array.isArray(states)) return `no "${side}" states`;
    for (const [id, state] of Object.entries(states)) {
      if (state === null) continue;
      if (typeof state !== 'object' || Array.isArray(state)) return `a "${side}" state of ${id} that is not an object`;
      const st = state as Record<string, unknown>;
      if (typeof st.active !== 'string' || !Array.isArray(st.history) || !st.history.every((v) => typeof v === 'string'))
        return `a "${side}" state of ${id} without active and history`;
    }
  }
  if (!Array.isArray(r.creates)) return 'no "creates" list';
  return null;
}
