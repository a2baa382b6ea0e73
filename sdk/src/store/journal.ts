import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';
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

export interface Journal {
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

/** Journal records left by operations that did not finish (a crash, a kill, a power cut). */
export async function pendingOperations(home: HomeLayout): Promise<Array<{ file: string; record: JournalRecord }>> {
  let names: string[];
  try {
    names = await readdir(home.journalDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: Array<{ file: string; record: JournalRecord }> = [];
  for (const name of names.sort()) {
    const file = join(home.journalDir, name);
    if (!name.endsWith('.json')) {
      // A temp file of an interrupted journal write: the operation never started.
      await rm(file, { force: true });
      continue;
    }
    try {
      found.push({ file, record: parseStrictJson(await readFile(file), `The journal record ${name}`) as JournalRecord });
    } catch (cause) {
      throw new AdcapError('E_JSON', `The journal record ${name} is damaged; remove ${file} after checking your installs with "adcap doctor".`, { cause });
    }
  }
  return found;
}
