import { AdcapError } from '../../errors.js';
import { CaseFoldGuard, checkEntryPath } from './entry-path.js';
import type { ArchiveLimits } from './limits.js';
import { BLOCK_SIZE, decodeHeader, isZeroBlock } from './ustar.js';

/** An entry header that has passed every per-entry rule of spec §2. */
export interface ArchiveEntryHeader {
  /** 0-based position in the archive. */
  index: number;
  path: string;
  size: number;
  /** The header's mode has an execute bit (informational: packages take it from `files`). */
  executable: boolean;
}

/**
 * What the caller does with entries. Each method may return a promise; the parser waits for it
 * before reading further, which is how extraction gets backpressure. Throwing aborts the read.
 */
export interface ArchiveVisitor {
  entry(header: ArchiveEntryHeader): void | Promise<void>;
  data(chunk: Buffer): void | Promise<void>;
  entryEnd(): void | Promise<void>;
}

const ZEROS = Buffer.alloc(64 * 1024);

const enum State {
  Header,
  Data,
  Padding,
  SecondZeroBlock,
  AfterEnd,
}

/*
 * Why this parser and not tar-stream (the tar library of the design card): tar-stream's extractor
 * applies PAX headers and GNU long names silently (ustar.ts says how), while spec §2 requires a
 * reader to refuse them (E_ENTRY_TYPE), so the reader stays ours. tar-stream does the job it does
 * well instead: it is the independent second reader of test/sdk/format/archive/independent-readers.test.ts,
 * where every package we write must list identically (names, sizes, modes, types, contents) under
 * this parser, tar-stream and GNU tar.
 */

/**
 * A streaming ustar parser that enforces spec §2 per entry: regular files only, path rules,
 * no duplicates, and the reader limits on entry count and expanded size, checked on every chunk
 * while decompressing and, for declared sizes, before an entry's data is inflated at all.
 */
export class TarParser {
  private state = State.Header;
  private readonly header = Buffer.alloc(BLOCK_SIZE);
  private headerFill = 0;
  private remaining = 0;
  private position = 0;
  private declared = 0;
  private count = 0;
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();
  private readonly caseFold = new CaseFoldGuard();
  private aborted = false;

  constructor(
    private readonly visitor: ArchiveVisitor,
    private readonly limits: ArchiveLimits,
  ) {}

  /** Stops a write in progress at its next step, so no visitor call starts after a failure. */
  abort(): void {
    this.aborted = true;
  }

  get entries(): number {
    return this.count;
  }

  get expandedBytes(): number {
    return this.position;
  }

  async write(chunk: Buffer): Promise<void> {
    // spec §2: limits are enforced while decompressing, on the inflated bytes actually produced.
    if (this.position + chunk.length > this.limits.maxExpandedBytes) {
      throw overExpanded(this.limits);
    }
    let offset = 0;
    while (offset < chunk.length) {
      if (this.aborted) throw new AdcapError('E_IO', 'Reading the package was stopped.');
      switch (this.state) {
        case State.Data: {
          const take = Math.min(this.remaining, chunk.length - offset);
          const result = this.visitor.data(chunk.subarray(offset, offset + take));
          if (result !== undefined) await result;
          offset += take;
          this.position += take;
          this.remaining -= take;
          if (this.remaining === 0) await this.finishEntry();
          break;
        }
        case State.Padding: {
          const take = Math.min(this.remaining, chunk.length - offset);
          offset += take;
          this.position += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = State.Header;
          break;
        }
        case State.AfterEnd: {
          // Zero records after the end-of-archive marker are normal; anything else is hidden data.
          const take = Math.min(ZEROS.length, chunk.length - offset);
          if (!chunk.subarray(offset, offset + take).equals(ZEROS.subarray(0, take))) {
            throw new AdcapError(
              'E_TAR',
              `The package has data after the tar end-of-archive marker (near byte ${this.position}); it is corrupt or was tampered with.`,
            );
          }
          offset += take;
          this.position += take;
          break;
        }
        case State.Header:
        case State.SecondZeroBlock: {
          const take = Math.min(BLOCK_SIZE - this.headerFill, chunk.length - offset);
          chunk.copy(this.header, this.headerFill, offset, offset + take);
          this.headerFill += take;
          offset += take;
          this.position += take;
          if (this.headerFill === BLOCK_SIZE) {
            this.headerFill = 0;
            await this.onBlock(this.position - BLOCK_SIZE);
          }
        }
      }
    }
  }

  /** Called after the last inflated byte: the archive must have ended with its marker. */
  end(): void {
    if (this.state === State.AfterEnd) return;
    const what =
      this.state === State.Data || this.state === State.Padding ? 'in the middle of an entry' : 'without the end-of-archive marker';
    throw new AdcapError('E_TAR', `The package's tar stream stops ${what} (after ${this.position} bytes); the file is truncated.`);
  }

  private async onBlock(offset: number): Promise<void> {
    const block = this.header;
    if (this.state === State.SecondZeroBlock) {
      if (!isZeroBlock(block)) {
        throw new AdcapError('E_TAR', `The package has a lone zero block followed by more entries at byte ${offset}; it is corrupt.`);
      }
      this.state = State.AfterEnd;
      return;
    }
    if (isZeroBlock(block)) {
      this.state = State.SecondZeroBlock;
      return;
    }
    const raw = decodeHeader(block, offset);
    const path = checkEntryPath(raw.pathBytes);
    this.count++;
    if (this.count > this.limits.maxEntries) {
      throw new AdcapError('E_LIMIT', `The package has more than ${this.limits.maxEntries} entries, the reader's limit (spec §2).`, {
        details: { limit: 'maxEntries', value: this.limits.maxEntries },
      });
    }
    // Checked before the entry's data is inflated: the declared sizes alone already break the limit.
    this.declared += BLOCK_SIZE + roundUp(raw.size);
    if (this.declared > this.limits.maxExpandedBytes) throw overExpanded(this.limits);
    this.checkUnique(path);
    const index = this.count - 1;
    const result = this.visitor.entry({ index, path, size: raw.size, executable: (raw.mode & 0o111) !== 0 });
    if (result !== undefined) await result;
    this.remaining = raw.size;
    if (raw.size === 0) await this.finishEntry();
    else this.state = State.Data;
  }

  /**
   * spec §2: duplicate paths MUST be rejected. A file that is also a directory of another path
   * ("a" and "a/b") is the same clash in disguise: both cannot exist once extracted.
   */
  private checkUnique(path: string): void {
    if (this.files.has(path)) {
      throw new AdcapError('E_DUPLICATE', `The package contains ${JSON.stringify(path)} twice; spec §2 requires unique paths.`, {
        details: { path },
      });
    }
    if (this.dirs.has(path)) {
      throw new AdcapError(
        'E_DUPLICATE',
        `The package contains ${JSON.stringify(path)} both as a file and as a directory of other files.`,
        { details: { path } },
      );
    }
    const parents: string[] = [];
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
      const parent = path.slice(0, i);
      if (this.files.has(parent)) {
        throw new AdcapError(
          'E_DUPLICATE',
          `The package contains ${JSON.stringify(parent)} both as a file and as a directory of ${JSON.stringify(path)}.`,
          {
            details: { path },
          },
        );
      }
      parents.push(parent);
    }
    // Exact clashes above are E_DUPLICATE; names equal once case is folded are E_PATH.
    this.caseFold.add(path);
    this.files.add(path);
    for (const parent of parents) this.dirs.add(parent);
  }

  private async finishEntry(): Promise<void> {
    const result = this.visitor.entryEnd();
    if (result !== undefined) await result;
    const padding = this.position % BLOCK_SIZE === 0 ? 0 : BLOCK_SIZE - (this.position % BLOCK_SIZE);
    this.remaining = padding;
    this.state = padding === 0 ? State.Header : State.Padding;
  }
}

function roundUp(size: number): number {
  return Math.ceil(size / BLOCK_SIZE) * BLOCK_SIZE;
}

function overExpanded(limits: ArchiveLimits): AdcapError {
  return new AdcapError(
    'E_LIMIT',
    `The package expands to more than ${limits.maxExpandedBytes} bytes, ` +
      "the reader's limit (spec §2); it is too large or a decompression bomb.",
    { details: { limit: 'maxExpandedBytes', value: limits.maxExpandedBytes } },
  );
}
