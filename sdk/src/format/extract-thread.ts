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
  | { op: 'open'; target: string; mode: number; path: string; sha256: string | undefined }
  | { op: 'write'; offset: number; length: number }
  | { op: 'close' }
  | { op: 'file'; target: string; mode: number; path: string; offset: number; length: number; sha256: string | undefined };

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
const flags = workerData.flags;
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
function create(target, mode, entry) {
  path = entry;
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
  fs.closeSync(file);
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
          const file = create(op.target, op.mode, op.path);
          try { writeAll(file, op.offset, op.length); } finally { fs.closeSync(file); }
        } else if (op.op === 'open') {
          fd = create(op.target, op.mode, op.path);
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
  ) {
    this.worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { flags } });
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
  open(target: string, mode: number, path: string, sha256?: string): void {
    this.queue({ op: 'open', target, mode, path, sha256 });
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
  file(target: string, mode: number, path: string, chunks: readonly Buffer[], length: number, sha256?: string): Promise<void> | void {
    const offset = this.take(length);
    if (offset === undefined) return this.room().then(() => this.file(target, mode, path, chunks, length, sha256));
    let at = offset;
    for (const chunk of chunks) {
      this.slab!.set(chunk, at);
      at += chunk.length;
    }
    this.queue({ op: 'file', target, mode, path, offset, length, sha256 });
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
