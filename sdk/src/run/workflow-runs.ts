/**
 * Paused workflow runs (spec §8 "a runner stops there and returns the interpolated instruction and
 * the results so far"; host contract "Workflows": the host feeds the instruction to its agent and
 * decides how to continue). runWorkflow keeps what a resume needs in home/runs/<token>.json, written
 * atomically (DESIGN §6), and hands the host the token; resumeWorkflow claims the file by renaming
 * it (one resume wins), and puts it back when the steps after the agent step fail, so the host can
 * try again. A token is 128 random bits in a fixed form: it never names a path of its own.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';
import { fsyncDir, writeJsonAtomic } from '../util/fs-atomic.js';
import type { RunContext } from './context.js';

/** What a paused run keeps: the step results are those of runWorkflow's result. */
export interface PausedRunRecord<Step> {
  format: 1;
  capability: string;
  version: string;
  manifestSha256: string;
  workflow: string;
  inputs: Record<string, unknown>;
  /** The agent step the run stopped at. */
  stepId: string;
  steps: Step[];
  pausedAt: string;
}

const TOKEN = /^wfr_[0-9a-f]{32}$/;
/** Paused runs nobody resumed are removed after this long (when the next run pauses). */
export const PAUSED_RUN_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export function runsDir(arc: Pick<RunContext, 'home'>): string {
  return join(arc.home.root, 'runs');
}

/** E_USAGE unless `token` has the form runWorkflow hands out (so it can never name another file). */
export function checkResumeToken(token: unknown): string {
  if (typeof token !== 'string' || !TOKEN.test(token)) {
    throw new AdcapError(
      'E_USAGE',
      'resumeWorkflow needs the resumeToken that runWorkflow returned at the agent step (wfr_ and 32 hex digits).',
      { details: { argument: 'token' } },
    );
  }
  return token;
}

/** Writes a paused run and returns its token; paused runs older than PAUSED_RUN_MAX_AGE_MS are dropped. */
export async function savePausedRun<Step>(arc: Pick<RunContext, 'home'>, record: PausedRunRecord<Step>): Promise<string> {
  const token = `wfr_${randomBytes(16).toString('hex')}`;
  // 0600: the inputs and step outputs may hold the user's data.
  await writeJsonAtomic(join(runsDir(arc), `${token}.json`), record, { mode: 0o600 });
  await dropOldRuns(arc, Date.now() - PAUSED_RUN_MAX_AGE_MS).catch(() => undefined);
  return token;
}

async function dropOldRuns(arc: Pick<RunContext, 'home'>, before: number): Promise<void> {
  const dir = runsDir(arc);
  for (const name of await readdir(dir)) {
    const file = join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info !== null && info.isFile() && info.mtimeMs < before) await rm(file, { force: true });
  }
}

/** Reads the paused run of `token` (E_NOT_FOUND when there is none, E_IO when it cannot be read). */
export async function readPausedRun<Step>(arc: Pick<RunContext, 'home'>, token: string): Promise<PausedRunRecord<Step>> {
  const file = join(runsDir(arc), `${checkResumeToken(token)}.json`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(token);
    throw new AdcapError('E_IO', `The paused workflow run ${file} cannot be read; run the workflow again.`, {
      cause: error,
      details: { path: file },
    });
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw new AdcapError('E_IO', `The paused workflow run ${file} is damaged; run the workflow again.`, {
      cause: error,
      details: { path: file },
    });
  }
  const r = record as Partial<PausedRunRecord<Step>> | null;
  if (
    typeof r !== 'object' ||
    r === null ||
    r.format !== 1 ||
    typeof r.capability !== 'string' ||
    typeof r.version !== 'string' ||
    typeof r.workflow !== 'string' ||
    typeof r.stepId !== 'string' ||
    !Array.isArray(r.steps) ||
    typeof r.inputs !== 'object' ||
    r.inputs === null
  ) {
    throw new AdcapError('E_IO', `The paused workflow run ${file} is damaged; run the workflow again.`, { details: { path: file } });
  }
  return r as PausedRunRecord<Step>;
}

/** A claimed paused run: `release()` puts it back for another try, `finish()` removes it. */
export interface ClaimedRun {
  release(): Promise<void>;
  finish(): Promise<void>;
}

/** Takes the paused run of `token` for one resume (a second, concurrent resume gets E_NOT_FOUND). */
export async function claimPausedRun(arc: Pick<RunContext, 'home'>, token: string): Promise<ClaimedRun> {
  const dir = runsDir(arc);
  const file = join(dir, `${checkResumeToken(token)}.json`);
  const claimed = join(dir, `.${token}.${process.pid}.${randomBytes(6).toString('hex')}.resuming`);
  try {
    await rename(file, claimed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(token);
    throw new AdcapError('E_IO', `The paused workflow run ${file} cannot be taken for resuming: ${(error as Error).message}.`, {
      cause: error,
      details: { path: file },
    });
  }
  return {
    release: async () => {
      await rename(claimed, file);
      await fsyncDir(dir);
    },
    finish: async () => {
      await rm(claimed, { force: true });
      await fsyncDir(dir);
    },
  };
}

function notFound(token: string): AdcapError {
  return new AdcapError(
    'E_NOT_FOUND',
    `There is no paused workflow run ${token} in this home: it was resumed already, or it is older than 30 days; run the workflow again.`,
    { details: { token } },
  );
}
