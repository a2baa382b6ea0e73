import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { AdcapError, isAdcapError } from '../errors.js';

/**
 * An inter-process lock for the home directory (DESIGN §6 home/locks/). The lock is a directory
 * created with mkdir (atomic on every local file system) holding `owner.json`. The holder
 * refreshes its mtime as a heartbeat. A lock is stale, and may be taken over, when its holder on
 * this host is no longer alive or its heartbeat stopped: a process killed in the middle of an
 * install must not block the repair that follows it.
 *
 * This is the SDK's one lock: the home, config.json, each remote's catalogue,
 * the audit log, a registry being built and the content cache's partial downloads all use it.
 * DESIGN §12 suggests proper-lockfile; we keep our own because proper-lockfile judges a lock only
 * by its mtime, so a lock left by a process that was killed blocks everyone until the stale time
 * has passed (the crash-then-repair case above must not wait), and it records no holder, so
 * E_LOCKED could not say which process (and which operation) holds the lock. The token check in
 * breakLock also keeps two processes that break the same stale lock from removing a fresh one.
 */
interface LockOptions {
  /** How long to wait for another holder before failing with E_LOCKED. */
  waitMs?: number;
  /** A heartbeat older than this marks the lock stale even when its pid looks alive. */
  staleMs?: number;
  /** Words for the error message: what is locked ("the Arcotheon home"). */
  what?: string;
  /**
   * Take and release a free lock with synchronous calls (the same steps in the same order; a lock
   * held by someone else is waited for, judged and broken as always). For a lock held for a few
   * milliseconds on a path where latency counts (the audit line of every tool run): each step is a
   * metadata operation in a local folder that returns at once, where a promise costs a thread-pool
   * round trip (about 25 of them to take and release the lock).
   */
  syncFs?: boolean;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: string;
  purpose: string;
}

interface HeldLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): Promise<void>;
}

const POLL_MS = 50;
const HEARTBEAT_MS = 2_000;

export async function acquireLock(lockPath: string, purpose: string, options: LockOptions = {}): Promise<HeldLock> {
  const waitMs = options.waitMs ?? 30_000;
  const staleMs = Math.max(options.staleMs ?? 30_000, HEARTBEAT_MS * 3);
  const deadline = Date.now() + waitMs;
  if (options.syncFs === true) mkdirSync(dirname(lockPath), { recursive: true });
  else await mkdir(dirname(lockPath), { recursive: true });
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomBytes(8).toString('hex'),
    acquiredAt: new Date().toISOString(),
    purpose,
  };
  for (;;) {
    if (options.syncFs === true ? tryCreateSync(lockPath, owner) : await tryCreate(lockPath, owner)) {
      return hold(lockPath, owner, options.syncFs === true);
    }
    const current = await readOwner(lockPath);
    if (await isStale(lockPath, current, staleMs)) {
      await breakLock(lockPath, current?.token ?? null);
      continue;
    }
    if (Date.now() >= deadline) {
      const holder = current === null ? 'another process' : `process ${current.pid} (${current.purpose}, since ${current.acquiredAt})`;
      throw new AdcapError(
        'E_LOCKED',
        `${options.what ?? 'The Arcotheon home'} is busy: ${holder} holds its lock. Wait for it to finish and try again.`,
        { details: { lock: lockPath, ...(current === null ? {} : { pid: current.pid }) } },
      );
    }
    await sleep(POLL_MS);
  }
}

/**
 * Takes the lock if nobody holds it now (a stale lock is taken over), without waiting: null when a
 * live holder has it. For work a second process does differently rather than waits for (the
 * content cache's partial download).
 */
export async function tryAcquireLock(
  lockPath: string,
  purpose: string,
  options: Omit<LockOptions, 'waitMs'> = {},
): Promise<HeldLock | null> {
  try {
    return await acquireLock(lockPath, purpose, { ...options, waitMs: 0 });
  } catch (error) {
    if (isAdcapError(error, 'E_LOCKED')) return null;
    throw error;
  }
}

/** Whether a live holder has the lock now; a missing or stale lock is not held. */
export async function lockHeld(lockPath: string, options: Pick<LockOptions, 'staleMs'> = {}): Promise<boolean> {
  const staleMs = Math.max(options.staleMs ?? 30_000, HEARTBEAT_MS * 3);
  if ((await stat(lockPath).catch(() => null)) === null) return false;
  return !(await isStale(lockPath, await readOwner(lockPath), staleMs));
}

/** Runs `fn` while holding the lock, releasing it however `fn` ends. */
export async function withLock<T>(lockPath: string, purpose: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = await acquireLock(lockPath, purpose, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  // Build the lock fully in a private directory, then rename it into place: other processes never
  // see a lock directory without its owner file.
  const temp = `${lockPath}.${owner.token}.new`;
  await mkdir(temp, { recursive: true });
  await writeFile(join(temp, 'owner.json'), JSON.stringify(owner));
  try {
    await mkdir(lockPath);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
  // mkdir won the race; move the owner file in (the empty lock dir is only visible for an instant,
  // and readOwner treats a missing owner as "being created", never as stale).
  await rename(join(temp, 'owner.json'), join(lockPath, 'owner.json'));
  await rm(temp, { recursive: true, force: true });
  return true;
}

/** tryCreate with synchronous calls, step for step (LockOptions.syncFs). */
function tryCreateSync(lockPath: string, owner: LockOwner): boolean {
  const temp = `${lockPath}.${owner.token}.new`;
  mkdirSync(temp, { recursive: true });
  writeFileSync(join(temp, 'owner.json'), JSON.stringify(owner));
  try {
    mkdirSync(lockPath);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
  renameSync(join(temp, 'owner.json'), join(lockPath, 'owner.json'));
  rmSync(temp, { recursive: true, force: true });
  return true;
}

function hold(lockPath: string, owner: LockOwner, syncFs = false): HeldLock {
  let released = false;
  const timer = setInterval(() => {
    const now = new Date();
    utimes(lockPath, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    path: lockPath,
    owner,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (syncFs) {
        releaseSync(lockPath, owner);
        return;
      }
      const current = await readOwner(lockPath);
      // Never remove a lock someone else took over after we were presumed dead.
      if (current !== null && current.token !== owner.token) return;
      await breakLock(lockPath, owner.token);
    },
  };
}

/** release() with synchronous calls, step for step (LockOptions.syncFs): readOwner, then breakLock. */
function releaseSync(lockPath: string, owner: LockOwner): void {
  const current = readOwnerSync(lockPath);
  if (current !== null && current.token !== owner.token) return;
  const doomed = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lockPath, doomed);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  const taken = readOwnerSync(doomed);
  if (taken !== null && taken.token !== owner.token) {
    try {
      renameSync(doomed, lockPath);
      return;
    } catch {
      // Someone created a lock meanwhile; the newer holder will notice at release (token check).
    }
  }
  rmSync(doomed, { recursive: true, force: true });
}

function readOwnerSync(lockPath: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(join(lockPath, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    return JSON.parse(await readFile(join(lockPath, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

async function isStale(lockPath: string, owner: LockOwner | null, staleMs: number): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(lockPath)).mtimeMs;
  } catch {
    return false; // gone already: the next tryCreate will succeed
  }
  const age = Date.now() - mtimeMs;
  if (owner === null) return age > staleMs; // being created, or its creator died mid-way
  if (owner.host === hostname() && !isAlive(owner.pid)) return true;
  return age > staleMs;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isCode(error, 'EPERM');
  }
}

/**
 * Removes the lock held under `expectedToken`. The lock is renamed away first, and if what was
 * renamed turns out to be a newer holder's lock (two processes broke the same stale lock), it is
 * put back, so a fresh lock is never removed by someone who judged its predecessor stale.
 */
async function breakLock(lockPath: string, expectedToken: string | null): Promise<void> {
  const doomed = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, doomed);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  const taken = await readOwner(doomed);
  if (taken !== null && taken.token !== expectedToken) {
    try {
      await rename(doomed, lockPath);
      return;
    } catch {
      // Someone created a lock meanwhile; the newer holder will notice at release (token check).
    }
  }
  await rm(doomed, { recursive: true, force: true });
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
