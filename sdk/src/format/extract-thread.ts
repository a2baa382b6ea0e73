/**
 * The writer of a large extraction (package-read.ts): one worker thread creates and writes the
 * verified files with synchronous calls, one after another, as tar(1) does, while the main thread
 * inflates (in the thread pool), parses and hashes. Through the thread pool every file cost three
 * round trips (open, write, close), each a hand-over to a pool thread and back, and several files
 * created at once in one folder spun on its lock in the kernel (perf: 9% of an install's samples in
 * rwsem_spin_on_owner); here a file costs three system calls on the writer and none of the main
 * thread's time but a copy of its bytes.
 *
 * The bytes go through a ring of RING_BYTES in shared memory: the main thread copies each verified
 * chunk in and posts the operations as one message per POST_BYTES; the writer answers each
 * message once it is done, which frees its part of the ring. Memory stays at the ring's size
 * whatever the package's (a full ring makes the read wait). The first failure stops the writer:
 * nothing after it is written, and the error (its code and the package path) is the read's.
 */
import { Worker } from 'node:worker_threads';

/** The ring of bytes not yet written (the write-behind bound of the thread-pool path). */
const RING_BYTES = 8 * 1024 * 1024;
/**
 * Operations are posted to the writer once they carry this many bytes, or this many operations:
 * each message wakes the writer, and on two cores a wake-up per inflated chunk showed as a quarter
 * of the main thread's time in postMessage (the writer taking the core from it).
 */
const POST_BYTES = 1024 * 1024;
const POST_OPS = 64;

/** One operation: create a file, write bytes from the ring to the open file, close it, or a whole file at once. */
type Op =
  | { op: 'open'; target: string; mode: number; path: string; sha256: string | undefined }
  | { op: 'write'; offset: number; length: number }
  | { op: 'close' }
  | { op: 'file'; target: string; mode: number; path: string; offset: number; length: number; sha256: string | undefined };

interface Batch {
  id: number;
  ops: Op[];
}

/** The writer's answer to a batch: done, or the failure that stopped it (`actual`: a file's bytes hashed otherwise). */
interface Answer {
  id: number;
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
const ring = new Uint8Array(workerData.ring);
const flags = workerData.flags;
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
  for (let done = 0; done < length; ) done += fs.writeSync(file, ring, offset + done, length - done);
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
  if (!failed) {
    try {
      for (const op of batch.ops) {
        if (op.op === 'file') {
          path = op.path;
          expected = op.sha256;
          // Checked before the file is created: nothing unverified is written.
          if (expected !== undefined) check(createHash('sha256').update(ring.subarray(op.offset, op.offset + op.length)).digest('hex'));
          const file = create(op.target, op.mode, op.path);
          try { writeAll(file, op.offset, op.length); } finally { fs.closeSync(file); }
        } else if (op.op === 'open') {
          fd = create(op.target, op.mode, op.path);
          expected = op.sha256;
          hash = expected === undefined ? undefined : createHash('sha256');
        } else if (op.op === 'write') {
          if (hash !== undefined) hash.update(ring.subarray(op.offset, op.offset + op.length));
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
      parentPort.postMessage({ id: batch.id, error: { code: error.code, message: String(error.message), path, actual } });
      return;
    }
  }
  parentPort.postMessage({ id: batch.id });
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
  private readonly ring = new SharedArrayBuffer(RING_BYTES);
  private readonly bytes = new Uint8Array(this.ring);
  /** Where the next bytes go in the ring, and how many bytes of it are taken (posted or not yet answered). */
  private head = 0;
  private used = 0;
  private ops: Op[] = [];
  /** Ring bytes the operations being gathered take (their copies and any end of the ring skipped). */
  private gathered = 0;
  private nextId = 0;
  /** Batches posted and not answered yet, with the ring bytes each frees. */
  private readonly pending = new Map<number, number>();
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
    this.worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { ring: this.ring, flags } });
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

  /** Appends a verified or streaming chunk to the open file; waits while the ring is full. */
  write(chunk: Buffer): Promise<void> | void {
    const offset = this.take(chunk.length);
    if (offset === undefined) return this.room().then(() => this.write(chunk));
    chunk.copy(this.bytes, offset);
    this.queue({ op: 'write', offset, length: chunk.length });
  }

  close(): void {
    this.queue({ op: 'close' });
  }

  /**
   * A whole file from `chunks` (`length` bytes in all, at most half the ring): created, written and
   * closed by the writer; with `sha256`, only once its bytes hash to it (else the writer fails).
   */
  file(target: string, mode: number, path: string, chunks: readonly Buffer[], length: number, sha256?: string): Promise<void> | void {
    const offset = this.take(length);
    if (offset === undefined) return this.room().then(() => this.file(target, mode, path, chunks, length, sha256));
    let at = offset;
    for (const chunk of chunks) {
      chunk.copy(this.bytes, at);
      at += chunk.length;
    }
    this.queue({ op: 'file', target, mode, path, offset, length, sha256 });
  }

  /** Resolves once everything queued was written; rejects with the writer's failure. */
  async flush(): Promise<void> {
    this.post();
    while (this.pending.size > 0 && this.failure === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
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

  /** The ring offset for `length` bytes, or undefined while the ring is too full. */
  private take(length: number): number | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (length > RING_BYTES / 2) throw new RangeError(`${length} bytes do not fit the writer's ring`);
    // A copy is contiguous: when the end of the ring is too short, it is skipped (and counted taken).
    const wrap = this.head + length > RING_BYTES;
    const skip = wrap ? RING_BYTES - this.head : 0;
    if (this.used + skip + length > RING_BYTES) return undefined;
    const offset = wrap ? 0 : this.head;
    this.head = offset + length;
    this.used += skip + length;
    this.gathered += skip + length;
    return offset;
  }

  /** Posts what was gathered and waits for the writer's next answer (which frees part of the ring). */
  private async room(): Promise<void> {
    this.post();
    if (this.pending.size > 0 && this.failure === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  /** Gathers `op` into the next message, posted once it carries POST_BYTES or POST_OPS (or the read waits for room, flushes or stops). */
  private queue(op: Op): void {
    if (this.failure !== undefined) throw this.failure;
    this.ops.push(op);
    if (this.gathered >= POST_BYTES || this.ops.length >= POST_OPS) this.post();
  }

  private post(): void {
    if (this.ops.length === 0 || this.exited) return;
    const batch: Batch = { id: this.nextId++, ops: this.ops };
    this.pending.set(batch.id, this.gathered);
    this.ops = [];
    this.gathered = 0;
    this.worker.postMessage(batch);
  }

  private answered(answer: Answer): void {
    this.used -= this.pending.get(answer.id) ?? 0;
    this.pending.delete(answer.id);
    if (this.used === 0) this.head = 0; // nothing in the ring: the next copy starts at its beginning
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
