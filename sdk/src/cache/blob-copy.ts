/**
 * A cache entry written by the reader that verifies it (ContentCache.withBlob over a file://
 * mirror): the reader hands every chunk it reads and hashes to `write`, in order, so the entry
 * holds exactly the bytes whose SHA-256 was checked against the pin, in the same read of the
 * mirror (DESIGN §6: temp, fsync, rename; the rename is BlobStore.commit's). Flushed to disk as it
 * grows, so the fsync before the rename has little left to wait for.
 */
import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { AdcapError } from '../errors.js';
import type { ArchiveCopy } from '../format/archive/reader.js';

/** A datasync is started each time this many more bytes were written (one at a time, in the background). */
const FLUSH_EVERY = 32 * 1024 * 1024;

export class BlobCopy implements ArchiveCopy {
  /** Bytes handed to `write` so far. */
  private written = 0;
  private flushedUpTo = 0;
  private readonly pending = new Set<Promise<unknown>>();
  private flushing: Promise<void> | undefined;
  private failure: unknown;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** Creates `path` (which must not exist) for the copy. */
  static async create(path: string): Promise<BlobCopy> {
    return new BlobCopy(path, await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644));
  }

  /** Appends `chunk`; resolves once it is written (the caller may then reuse its memory). */
  write(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const position = this.written;
    this.written += chunk.length;
    const done = this.track(writeAt(this.handle, chunk, position));
    if (this.written - this.flushedUpTo >= FLUSH_EVERY && this.flushing === undefined) {
      this.flushedUpTo = this.written;
      this.flushing = this.handle.datasync().then(() => {
        this.flushing = undefined;
      });
      void this.track(this.flushing).catch(() => undefined);
    }
    return done;
  }

  /**
   * After the reader accepted the bytes: exactly `size` were written (a reader that skipped the
   * copy leaves nothing to keep), and they are on disk. The file is closed either way.
   */
  async finish(size: number): Promise<void> {
    try {
      await this.settle();
      if (this.failure !== undefined) throw this.failure;
      if (this.written !== size) {
        throw new AdcapError(
          'E_IO',
          `The cache copy ${this.path} holds ${this.written} of the ${size} bytes read; it is not kept. Try again.`,
        );
      }
      await this.handle.sync();
    } finally {
      await this.handle.close().catch(() => undefined);
    }
  }

  /** Closes and removes the copy, once no write is in flight (a descriptor is never closed under one). */
  async discard(): Promise<void> {
    await this.settle();
    await this.handle.close().catch(() => undefined);
    await rm(this.path, { force: true }).catch(() => undefined);
  }

  private async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    promise.then(
      () => this.pending.delete(promise),
      (error: unknown) => {
        this.pending.delete(promise);
        this.failure ??= error;
      },
    );
    return promise;
  }
}

async function writeAt(handle: FileHandle, chunk: Buffer, position: number): Promise<void> {
  for (let offset = 0; offset < chunk.length;) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset, position + offset);
    offset += bytesWritten;
  }
}
