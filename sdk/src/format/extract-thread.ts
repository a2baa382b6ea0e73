/**
 * The writer of a large extraction (package-read.ts): one worker thread creates and writes the
 * verified files with synchronous calls, one after another, as tar(1) does, and hashes each file's
 * bytes against its `files` entry (spec §4), while the main thread reads and hashes the archive, feeds
 * the inflater (thread pool) and parses the tar stream. Through the thread pool every file cost three
 * round trips (open, write, close), each a hand-over to a pool thread and back, and several files
 * created at once in one folder spun on its lock in the kernel (perf: 9% of an install's samples in
 * rwsem_spin_on_owner); here a file costs three system calls on the writer and none of the main
 * thread's time but a copy of its bytes.
 *
 * The bytes go in SLABS buffers of SLAB_BYTES that travel between the threads: the main thread copies
 * each chunk into a free slab and, once the slab is full (or holds POST_OPS operations), posts it with
 * its operations, transferred, not copied; the writer hands it back in its answer. (Copying into a
 * ring of shared memory instead took 88 ms of the main thread against 56 ms into these, in a CPU
 * profile of one install: V8 copies into a SharedArrayBuffer without its fast memcpy.) Memory stays at
 * the slabs' size whatever the package's (with no slab free, the read waits). The first failure
 * stops the writer: nothing after it is written, and the error (its code and the package path, or the
 * SHA-256 the bytes have) is the read's.
 *
 * Creating a file is the writer's dearest call: 0.05-0.3 ms of kernel CPU each on this machine's ext4
 * (perf: ext4's inode allocator skipping recently deleted inodes; tar(1) pays the same). With 2,000
 * small files after a package's large ones, the writer fell 0.7 s behind the inflater and the read
 * waited for it at the end. So a second thread, the creator, makes the files the manifest lists, in
 * its order and empty, in the staging directory while the large files are still being inflated (no
 * byte of an entry is written before the writer has it), and the writer opens each one again when its
 * entry comes (a path lookup instead of an inode): `adcap install` of the bench package went from 1.89
 * to 1.54 s (medians of 6, tar -xzf 1.74 s). See CREATOR_SOURCE and the slots below.
 */
import { Worker } from 'node:worker_threads';

/**
 * SLABS of SLAB_BYTES hold the bytes not yet written (8 MiB: the write-behind bound of the
 * thread-pool path). Operations are posted once their slab is full, or once there are POST_OPS of
 * them: each message wakes the writer, and on two cores a wake-up per inflated chunk showed as a
 * quarter of the main thread's time in postMessage (the writer taking the core from it).
 */
const SLAB_BYTES = 1024 * 1024;
const SLABS = 8;
const POST_OPS = 64;

/** One operation: create a file, write bytes from the batch's slab to the open file, close it, or a whole file at once. */
type Op =
  | { op: 'open'; target: string; mode: number; path: string; sha256: string | undefined; index: number }
  | { op: 'write'; offset: number; length: number }
  | { op: 'close' }
  | { op: 'file'; target: string; mode: number; path: string; offset: number; length: number; sha256: string | undefined; index: number };

/**
 * The files the creator makes ahead of the writer, in this order (the manifest's `files`, which is
 * the order adcap build writes them in): `index` in an operation is a position here, -1 for a file
 * not in the list (the writer creates it itself).
 */
export interface AheadFiles {
  targets: readonly string[];
  modes: readonly number[];
  /** At most this many files ahead of the writer (default AHEAD; a test sets a smaller bound). */
  bound?: number;
}

/**
 * A slot per file in shared memory (Int32Array): who creates it. The creator claims a slot
 * (UNCLAIMED to CREATING) before it creates the file, empty, and closes it (CREATED); the writer then
 * opens that file again, which costs a path lookup, not an inode. The writer claims an unclaimed slot
 * (to WRITER) and creates the file itself: it never waits for a file the creator has not started, so
 * entries arriving in another order than the list cannot stall it. No descriptor crosses threads.
 */
const UNCLAIMED = 0;
const CREATING = 1;
const CREATED = 2;
const WRITER = 3;
/** The creator's call failed: the writer creates the file itself, and reports that failure as its own. */
const CREATE_FAILED = 4;
/**
 * Files the creator makes ahead of those the writer has reached, at most (it waits on the writer's
 * count): what a read that fails early, or a manifest listing more files than the archive holds, can
 * have it create for nothing, in the staging directory that is removed then.
 */
export const AHEAD = 4096;
/** control[REACHED]: listed files the writer has reached; control[STOP]: 1 once the creator must end. */
const REACHED = 0;
const STOP = 1;

/**
 * The creator's code (CommonJS, eval'd as the writer's is). It creates the listed files in order,
 * each after claiming its slot, at most AHEAD ahead of the writer, until the list ends or it is told
 * to stop (the writer's stop waits for it to end).
 */
const CREATOR_SOURCE = `
'use strict';
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { dirname } = require('node:path');
const { targets, modes, bound, flags, slots, control, finalModes } = workerData;
const made = new Set();
function createAll() {
  for (let i = 0; i < targets.length; i++) {
    // Wait while AHEAD files are made and not reached (the writer's count moves, or stop).
    for (;;) {
      if (Atomics.load(control, ${STOP}) === 1) return;
      const reached = Atomics.load(control, ${REACHED});
      if (i - reached < bound) break;
      Atomics.wait(control, ${REACHED}, reached, 100);
    }
    if (Atomics.compareExchange(slots, i, ${UNCLAIMED}, ${CREATING}) !== ${UNCLAIMED}) continue;
    let state = ${CREATED};
    try {
      const parent = dirname(targets[i]);
      if (!made.has(parent)) {
        fs.mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      // Writable by its owner, so the writer can open it again; a read-only file's own mode (the
      // umask applied) is kept for the writer to set once it is written.
      const file = fs.openSync(targets[i], flags, modes[i] | 0o200);
      try {
        if ((modes[i] & 0o200) === 0) finalModes[i] = fs.fstatSync(file).mode & 0o7777 & ~0o200;
      } finally {
        fs.closeSync(file);
      }
    } catch {
      state = ${CREATE_FAILED};
    }
    Atomics.store(slots, i, state);
    Atomics.notify(slots, i);
  }
}
createAll();
`;

/** Operations and the slab their bytes are in (none when they carry no bytes). */
interface Batch {
  ops: Op[];
  slab: ArrayBuffer | undefined;
}

/** The writer's answer to a batch: its slab back, and the failure that stopped it (`actual`: a file's bytes hashed otherwise). */
interface Answer {
  slab: ArrayBuffer | undefined;
  error?: { code?: string; message: string; path: string; actual?: string };
}

/**
 * The writer's code (CommonJS, run with `eval`, so it is found the same way from the sources, the
 * SDK's dist and the CLI's bundle). Folders are made as their first file needs them, O_EXCL as the
 * thread-pool path does (a clash on a case-insensitive file system fails instead of overwriting).
 */
const WRITER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { dirname } = require('node:path');
const { flags, slots, control, finalModes } = workerData;
// A file the creator made: opened for writing, not created, never through a link.
const reopen = fs.constants.O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0);
// The highest listed file reached, plus one (the creator stays at most AHEAD files beyond it).
let reached = 0;
// The mode the file create() opened gets before it is closed (a read-only file the creator made), or -1.
let chmodTo = -1;
let openChmod = -1;
let bytes;
const made = new Set();
let fd = -1;
let path = '';
let expected;
let hash;
let failed = false;
class Mismatch extends Error {
  constructor(actual) {
    super('SHA-256 mismatch');
    this.actual = actual;
  }
}
// Opens file number index of the creator's list for writing: the file the creator made (opened again,
// O_NOFOLLOW, never created here), else a new one made here as always.
function create(target, mode, entry, index) {
  path = entry;
  chmodTo = -1;
  if (slots !== undefined && index >= 0) {
    if (index + 1 > reached) {
      reached = index + 1;
      Atomics.store(control, ${REACHED}, reached);
      Atomics.notify(control, ${REACHED});
    }
    for (;;) {
      const state = Atomics.compareExchange(slots, index, ${UNCLAIMED}, ${WRITER});
      if (state === ${CREATING}) {
        Atomics.wait(slots, index, ${CREATING});
        continue;
      }
      if (state === ${CREATED}) {
        Atomics.store(slots, index, ${WRITER});
        const file = fs.openSync(target, reopen);
        chmodTo = finalModes[index] === 0 ? -1 : finalModes[index];
        return file;
      }
      break; // unclaimed (now the writer's), or the creator failed: made here, as without it
    }
  }
  const parent = dirname(target);
  if (!made.has(parent)) {
    fs.mkdirSync(parent, { recursive: true });
    made.add(parent);
  }
  return fs.openSync(target, flags, mode);
}
function writeAll(file, offset, length) {
  for (let done = 0; done < length; ) done += fs.writeSync(file, bytes, offset + done, length - done);
}
function closeOpen() {
  if (fd === -1) return;
  const file = fd;
  fd = -1;
  try {
    if (openChmod !== -1) fs.fchmodSync(file, openChmod);
  } finally {
    fs.closeSync(file);
  }
}
function check(digest) {
  if (digest !== expected) throw new Mismatch(digest);
}
parentPort.on('message', (batch) => {
  if (batch === 'stop') {
    try { closeOpen(); } catch {}
    parentPort.close();
    return;
  }
  bytes = batch.slab === undefined ? undefined : new Uint8Array(batch.slab);
  const back = batch.slab === undefined ? [] : [batch.slab];
  if (!failed) {
    try {
      for (const op of batch.ops) {
        if (op.op === 'file') {
          path = op.path;
          expected = op.sha256;
          // Checked before the file is created: nothing unverified is written.
          if (expected !== undefined) check(createHash('sha256').update(bytes.subarray(op.offset, op.offset + op.length)).digest('hex'));
          const file = create(op.target, op.mode, op.path, op.index);
          try {
            writeAll(file, op.offset, op.length);
            if (chmodTo !== -1) fs.fchmodSync(file, chmodTo);
          } finally {
            fs.closeSync(file);
          }
        } else if (op.op === 'open') {
          fd = create(op.target, op.mode, op.path, op.index);
          openChmod = chmodTo;
          expected = op.sha256;
          hash = expected === undefined ? undefined : createHash('sha256');
        } else if (op.op === 'write') {
          if (hash !== undefined) hash.update(bytes.subarray(op.offset, op.offset + op.length));
          writeAll(fd, op.offset, op.length);
        } else {
          closeOpen();
          if (hash !== undefined) check(hash.digest('hex'));
          hash = undefined;
        }
      }
    } catch (error) {
      failed = true;
      try { closeOpen(); } catch {}
      const actual = error instanceof Mismatch ? error.actual : undefined;
      parentPort.postMessage({ slab: batch.slab, error: { code: error.code, message: String(error.message), path, actual } }, back);
      return;
    }
  }
  parentPort.postMessage({ slab: batch.slab }, back);
});
`;

/** A failure of the writer, as node:fs reported it or a file's bytes that hash otherwise, with the package path. */
export class WriterError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The package path (capability.json, docs/a.md, ...) being written. */
    readonly path: string,
    /** The SHA-256 the file's bytes have, when it is not the one expected. */
    readonly actualSha256?: string,
  ) {
    super(message);
  }
}

/** Creates and writes verified files from a worker thread; see the module comment. */
export class ThreadWriter {
  private readonly worker: Worker;
  /** The creator (CREATOR_SOURCE) and what it shares with the writer, when files are created ahead. */
  private readonly creator: { worker: Worker; control: Int32Array; exit: Promise<void> } | undefined;
  /** Slabs not in the writer's hands, and the one being filled (`filled` bytes of it). */
  private readonly free: ArrayBuffer[] = Array.from({ length: SLABS }, () => new ArrayBuffer(SLAB_BYTES));
  private slab: Uint8Array | undefined;
  private filled = 0;
  private ops: Op[] = [];
  /** Batches posted and not answered yet. */
  private pending = 0;
  private waiters: Array<() => void> = [];
  private failure: Error | undefined;
  /** The failure the writer answered with (not its end). */
  private answerFailure: Error | undefined;
  private exited = false;
  private readonly exit: Promise<void>;

  /**
   * `flags`: the open flags of a new file (package-read.ts CREATE_FLAGS); `explain` turns the
   * writer's failure into the read's error (every later call throws that error).
   */
  constructor(
    flags: number,
    private readonly explain: (error: WriterError) => Error,
    /** Files to create ahead of the writer (an operation's `index` is a position in them). */
    ahead?: AheadFiles,
  ) {
    const shared =
      ahead === undefined || ahead.targets.length === 0
        ? undefined
        : {
            slots: new Int32Array(new SharedArrayBuffer(4 * ahead.targets.length)),
            control: new Int32Array(new SharedArrayBuffer(8)),
            finalModes: new Int32Array(new SharedArrayBuffer(4 * ahead.targets.length)),
          };
    // The writer first: when it cannot start, the caller writes through the thread pool, and no
    // creator may be making files there.
    this.worker = new Worker(WRITER_SOURCE, {
      eval: true,
      workerData: { flags, ...(shared ?? {}) },
    });
    if (ahead !== undefined && shared !== undefined) {
      try {
        const worker = new Worker(CREATOR_SOURCE, {
          eval: true,
          workerData: { targets: ahead.targets, modes: ahead.modes, bound: ahead.bound ?? AHEAD, flags, ...shared },
        });
        // Its failures are per file (CREATE_FAILED: the writer then creates the file and reports
        // its own error). Should the thread itself die, a file it was making is left to the writer,
        // which would otherwise wait for it for ever (on a normal end no slot is CREATING).
        worker.on('error', () => undefined);
        const { slots } = shared;
        const exit = new Promise<void>((resolve) =>
          worker.once('exit', () => {
            for (let i = 0; i < slots.length; i++) {
              if (Atomics.compareExchange(slots, i, CREATING, CREATE_FAILED) === CREATING) Atomics.notify(slots, i);
            }
            resolve();
          }),
        );
        this.creator = { worker, control: shared.control, exit };
      } catch {
        // No second thread to be had: every slot stays unclaimed, and the writer creates every file.
      }
    }
    this.worker.on('message', (answer: Answer) => this.answered(answer));
    this.exit = new Promise<void>((resolve) => {
      this.worker.once('exit', () => {
        this.exited = true;
        this.fail(new WriterError('The extraction writer stopped.', undefined, ''));
        resolve();
      });
    });
    this.worker.on('error', (error) => this.fail(new WriterError(`The extraction writer failed: ${error.message}`, undefined, '')));
  }

  /**
   * Creates `target` for the entry `path`; `write` appends to it until `close`. With `sha256`, the
   * writer hashes the bytes it writes and fails at `close` when they hash otherwise.
   */
  open(target: string, mode: number, path: string, sha256?: string, index = -1): void {
    this.queue({ op: 'open', target, mode, path, sha256, index });
  }

  /** Appends a verified or streaming chunk to the open file; waits while no slab is free. */
  write(chunk: Buffer): Promise<void> | void {
    const offset = this.take(chunk.length);
    if (offset === undefined) return this.room().then(() => this.write(chunk));
    this.slab!.set(chunk, offset);
    this.queue({ op: 'write', offset, length: chunk.length });
  }

  close(): void {
    this.queue({ op: 'close' });
  }

  /**
   * A whole file from `chunks` (`length` bytes in all, at most a slab): created, written and
   * closed by the writer; with `sha256`, only once its bytes hash to it (else the writer fails).
   */
  file(
    target: string,
    mode: number,
    path: string,
    chunks: readonly Buffer[],
    length: number,
    sha256?: string,
    index = -1,
  ): Promise<void> | void {
    const offset = this.take(length);
    if (offset === undefined) return this.room().then(() => this.file(target, mode, path, chunks, length, sha256, index));
    let at = offset;
    for (const chunk of chunks) {
      this.slab!.set(chunk, at);
      at += chunk.length;
    }
    this.queue({ op: 'file', target, mode, path, offset, length, sha256, index });
  }

  /** Resolves once everything queued was written; rejects with the writer's failure. */
  async flush(): Promise<void> {
    this.post();
    while (this.pending > 0 && this.failure === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Stops the writer once it has done (or skipped, after a failure) everything queued, its open
   * file closed, and resolves once the thread has ended: nothing is written after. Resolves with
   * the writer's own failure, if it had one: an entry before any the read failed on since.
   */
  async stop(): Promise<Error | undefined> {
    this.post();
    if (!this.exited) this.worker.postMessage('stop');
    await this.exit;
    // Then the creator (done already, unless the read ended early): nothing is made after this.
    if (this.creator !== undefined) {
      Atomics.store(this.creator.control, STOP, 1);
      Atomics.notify(this.creator.control, REACHED);
      await this.creator.exit;
    }
    return this.answerFailure;
  }

  /** The offset in the slab being filled for `length` bytes, or undefined while no slab is free. */
  private take(length: number): number | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (length > SLAB_BYTES) throw new RangeError(`${length} bytes do not fit the writer's slab`);
    if (this.slab !== undefined && this.filled + length > SLAB_BYTES) this.post();
    if (this.slab === undefined) {
      const next = this.free.pop();
      if (next === undefined) return undefined;
      this.slab = new Uint8Array(next);
      this.filled = 0;
    }
    const offset = this.filled;
    this.filled += length;
    return offset;
  }

  /** Posts what was gathered and waits for the writer's next answer (which frees a slab). */
  private async room(): Promise<void> {
    this.post();
    if (this.pending > 0 && this.failure === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Gathers `op` into the next message, posted once its slab is full or it holds POST_OPS
   * operations (or the read waits for a slab, flushes or stops).
   */
  private queue(op: Op): void {
    if (this.failure !== undefined) throw this.failure;
    this.ops.push(op);
    if (this.ops.length >= POST_OPS) this.post();
  }

  /** Sends the gathered operations with their slab (transferred: it is unusable here until the answer brings it back). */
  private post(): void {
    if (this.exited) return;
    const slab = this.slab?.buffer as ArrayBuffer | undefined;
    if (this.ops.length === 0) return;
    const batch: Batch = { ops: this.ops, slab };
    this.ops = [];
    this.slab = undefined;
    this.pending += 1;
    this.worker.postMessage(batch, slab === undefined ? [] : [slab]);
  }

  private answered(answer: Answer): void {
    this.pending -= 1;
    if (answer.slab !== undefined) this.free.push(answer.slab);
    if (answer.error !== undefined) {
      const { code, message, path, actual } = answer.error;
      this.fail(new WriterError(message, code, path, actual));
      this.answerFailure ??= this.failure;
    }
    this.wake();
  }

  private fail(error: WriterError): void {
    this.failure ??= this.explain(error);
    this.wake();
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
