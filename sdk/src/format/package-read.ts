import { randomBytes } from 'node:crypto';
import { close as fsClose, constants, open as fsOpen, write as fsWrite } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { Hash } from 'node:crypto';
import { AdcapError, asAdcapError } from '../errors.js';
import { fsyncDir } from '../util/fs-atomic.js';
import { removeTree } from '../util/fs-tree.js';
import { createSha256, sha256Hex } from '../util/hash.js';
import type { ProgressListener } from '../util/progress.js';
import { readArchive } from './archive/reader.js';
import { ThreadWriter } from './extract-thread.js';
import { resolveLimits, type ArchiveLimits } from './archive/limits.js';
import type { ArchiveEntryHeader, ArchiveVisitor } from './archive/tar-parser.js';
import { manifestDigest } from './canonical-json.js';
import { validateManifest } from './manifest.js';
import type { FileEntry, Manifest } from './manifest-types.js';
import { validateSkillDocument } from './skills.js';
import { parseStrictJson } from './strict-json.js';

export const MANIFEST_ENTRY = 'capability.json';
export const SIGNATURE_ENTRY = 'SIGNATURE.json';

/** Options of `readPackage()`. */
export interface ReadPackageOptions {
  /** Extract into this directory (which must not exist yet; its parent must). */
  extractTo?: string;
  /** Make extracted files and directories read-only (0444/0555, 0555 for directories). */
  readOnly?: boolean;
  /** Tighter caps on entry count, sizes and manifest bytes than DEFAULT_ARCHIVE_LIMITS (E_LIMIT beyond them). */
  limits?: Partial<ArchiveLimits>;
  /** Told `{ phase, done, total }` (bytes) as the archive is read. */
  onProgress?: ProgressListener;
  /** Cancels the read (E_CANCELLED); nothing is left extracted. */
  signal?: AbortSignal;
  /**
   * The archive's pin (spec §2: registries pin the SHA-256 and size of the compressed file). When
   * given, a read whose archive hashes otherwise fails with E_HASH before anything is extracted,
   * so a caller can verify a download and extract it in one pass.
   */
  expectArchive?: { sha256: string; size: number };
  /**
   * Extract into this directory, which must not exist yet, and leave it there: no rename. For a
   * caller that moves the directory into place itself, later (a prepared version: the install's
   * switch renames it after its journal is written), so the extraction has one staging directory,
   * not one inside another. On any failure the directory is removed. Not with `extractTo`.
   */
  extractInto?: string;
  /**
   * The caller's own checks of the extracted files (the signature, the registry entry, workflow
   * documents), run after every check of this read and before the directory is renamed into
   * `extractTo` (or handed back at `extractInto`): a throw removes the staging directory, so
   * nothing that failed any check ever appears at the target. Only with `extractTo` or `extractInto`.
   */
  accept?: (pkg: ReadPackage, dir: string) => Promise<void> | void;
}

/** A package `readPackage()` read and checked: its manifest, digests, entries and signature bytes. */
export interface ReadPackage {
  /** The validated capability.json. */
  manifest: Manifest;
  /** The SHA-256 (hex) of the manifest's canonical JSON, what a signature covers. */
  manifestSha256: string;
  /**
   * The SHA-256 (hex) of capability.json's bytes as they were read, parsed strictly and validated,
   * and, when extracting, written: what a record of that check names (store/file-fingerprints.ts).
   */
  manifestFileSha256: string;
  /**
   * The bytes of SIGNATURE.json (at most maxManifestBytes), or null when the package has none.
   * The format layer only places it (spec §2: last entry); parsing and verifying it is the trust
   * layer's one job (trust/package-signature.ts parsePackageEnvelope, verifyPackage).
   */
  signatureBytes: Buffer | null;
  /** SHA-256 and size of the compressed archive. */
  archiveSha256: string;
  /** The compressed archive's size in bytes. */
  size: number;
  /** Entry paths in archive order, capability.json and SIGNATURE.json included. */
  entries: string[];
  /** The extracted directory, when `extractTo` was given. */
  dir?: string;
}

/**
 * Reads and verifies a package in one streaming pass (spec §2, §4): every archive rule of
 * spec §2 with its DESIGN §9 code, capability.json first and validated before any other entry is
 * accepted, each entry hashed as it streams and compared with `files`, unlisted and missing files
 * refused, and the manifest digest recomputed. With `extractTo`, files are written only into a
 * fresh staging sibling that is renamed into place after all of that and the caller's `accept`
 * passed (spec §4: nothing is extracted before verification passes); with `extractInto`, into that
 * directory, left for the caller to rename. On any failure the staging directory is removed (after
 * the writer thread of a large package, extract-thread.ts, has ended).
 */
export async function readPackage(source: string | Readable, options: ReadPackageOptions = {}): Promise<ReadPackage> {
  const limits = resolveLimits(options.limits);
  if (options.extractTo !== undefined && options.extractInto !== undefined) {
    throw new AdcapError('E_USAGE', 'readPackage takes extractTo or extractInto, not both.');
  }
  const staging =
    options.extractInto !== undefined
      ? await createTarget(options.extractInto)
      : options.extractTo === undefined
        ? undefined
        : await createStaging(options.extractTo);
  const visitor = new PackageVisitor(limits, staging, options.readOnly === true);
  try {
    const summary = await readArchive(source, visitor, {
      limits,
      phase: staging === undefined ? 'verify' : 'extract',
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const { manifest, manifestSha256, manifestFileSha256 } = visitor.complete();
    const pin = options.expectArchive;
    if (pin !== undefined && (summary.sha256 !== pin.sha256 || summary.size !== pin.size)) {
      throw new AdcapError(
        'E_HASH',
        `The package is not the pinned archive (expected ${pin.size} bytes with SHA-256 ` +
          `${pin.sha256}, found ${summary.size} bytes with SHA-256 ${summary.sha256}).`,
        {
          details: { expected: pin.sha256, actual: summary.sha256, expectedSize: pin.size, size: summary.size },
        },
      );
    }
    const result: ReadPackage = {
      manifest,
      manifestSha256,
      manifestFileSha256,
      signatureBytes: visitor.signatureBytes,
      archiveSha256: summary.sha256,
      size: summary.size,
      entries: visitor.paths,
    };
    if (staging !== undefined) {
      await visitor.flushWrites();
      await visitor.closeAll();
      const dirs = [...visitor.directories()];
      if (options.accept !== undefined) await options.accept(result, staging);
      if (options.extractTo !== undefined) {
        await publishStaging(staging, dirs, options.extractTo, options.readOnly === true);
        result.dir = options.extractTo;
      } else {
        await finishModes(staging, dirs, options.readOnly === true);
        result.dir = staging;
      }
    }
    return result;
  } catch (error) {
    const earlier = await visitor.closeAll();
    if (staging !== undefined) await removeTree(staging).catch(() => undefined);
    throw earlier ?? error;
  }
}

type Current =
  | { kind: 'document'; path: string; chunks: Buffer[]; bytes: number }
  | {
      kind: 'file';
      path: string;
      expected: FileEntry;
      /** Its position in the manifest's `files`. */
      listedAt: number;
      /** The entry's SHA-256 as it streams, or undefined when the writer thread checks it (extract-thread.ts). */
      hash: Hash | undefined;
      handle: FileHandle | undefined;
      /** A large file whose bytes stream to the writer thread as they are inflated. */
      threaded: boolean;
      chunks: Buffer[] | undefined;
      /** A skill's SKILL.md, kept (up to SKILL_DOC_BYTES) to check its front matter once its hash is verified. */
      skill: { dirName: string; pointer: string; chunks: Buffer[]; bytes: number } | undefined;
    };

/**
 * How much of a SKILL.md is read to check it: its front matter is a few lines at
 * the top, so a longer file is checked on its first 256 KiB (a front matter not closed by then is
 * refused as such).
 */
const SKILL_DOC_BYTES = 256 * 1024;

/**
 * Entries up to this size are extracted with one write after their hash is checked (one file
 * system call sequence per file matters with thousands of small files); larger ones stream.
 */
const SMALL_ENTRY_BYTES = 256 * 1024;
/** Verified small files are written this many at a time while the stream goes on. */
const PARALLEL_WRITES = 16;
/**
 * A large file's chunks are written behind the stream: the next chunk is
 * inflated and hashed while earlier ones are still being written in the thread pool, up to this
 * many bytes not yet written. The chunks are the inflater's own buffers, never reused, so holding
 * them is safe.
 */
const WRITE_BEHIND_BYTES = 8 * 1024 * 1024;
/**
 * From this many files, or this many bytes, a package is extracted by a writer thread
 * (extract-thread.ts), whose start costs about as much as this many files cost through the pool.
 */
export const THREAD_MIN_FILES = 256;
const THREAD_MIN_BYTES = 64 * 1024 * 1024;

/** The package rules on top of the archive rules: order, manifest, files, signature. */
class PackageVisitor implements ArchiveVisitor {
  readonly paths: string[] = [];
  signatureBytes: Buffer | null = null;
  private manifest: Manifest | undefined;
  private digest = '';
  private fileDigest = '';
  /**
   * Each listed path's position in the manifest's `files` (its entry there; the writer thread's
   * creator makes the files in that order, extract-thread.ts).
   */
  private readonly listed = new Map<string, number>();
  /** spec §3.1: skills[].path/SKILL.md -> the skill's directory name and JSON pointer. */
  private readonly skillDocs = new Map<string, { dirName: string; pointer: string }>();
  private readonly seen = new Set<string>();
  private current: Current | undefined;
  private signatureSeen = false;
  private readonly madeDirs = new Map<string, Promise<unknown>>();
  private readonly open = new Set<FileHandle>();
  private readonly writes = new Set<Promise<void>>();
  private writeError: unknown;
  /** The writer thread of a large extraction (chosen once the manifest is known), else the thread pool's calls. */
  private thread: ThreadWriter | undefined;

  constructor(
    private readonly limits: ArchiveLimits,
    private readonly staging: string | undefined,
    /** Files are created with their final read-only modes (0444/0555), so publishing only has directories to change. */
    private readonly readOnly: boolean,
  ) {}

  /** Every directory below the staging directory, parents of files and their ancestors (publishStaging sets their modes). */
  directories(): Set<string> {
    const dirs = new Set<string>();
    for (let dir of this.madeDirs.keys()) {
      while (this.staging !== undefined && dir !== this.staging && dir.startsWith(`${this.staging}${sep}`) && !dirs.has(dir)) {
        dirs.add(dir);
        dir = dirname(dir);
      }
    }
    return dirs;
  }

  async entry(header: ArchiveEntryHeader): Promise<void> {
    const { path, size, index } = header;
    // spec §2: the first entry MUST be capability.json; SIGNATURE.json, if present, MUST be last.
    if (index === 0 && path !== MANIFEST_ENTRY) {
      throw new AdcapError(
        'E_ORDER',
        `The package's first entry is ${JSON.stringify(path)}, but spec §2 requires capability.json first; rebuild it with adcap build.`,
        {
          details: { path, index },
        },
      );
    }
    if (this.signatureSeen) {
      throw new AdcapError(
        'E_ORDER',
        `The package has ${JSON.stringify(path)} after SIGNATURE.json, but spec §2 requires SIGNATURE.json to be the last entry.`,
        {
          details: { path, index },
        },
      );
    }
    this.paths.push(path);
    if (index === 0 || path === SIGNATURE_ENTRY) {
      if (path === SIGNATURE_ENTRY) this.signatureSeen = true;
      if (size > this.limits.maxManifestBytes) {
        throw new AdcapError(
          'E_LIMIT',
          `The package's ${path} is ${size} bytes, more than the reader's limit of ${this.limits.maxManifestBytes} bytes.`,
          {
            details: { limit: 'maxManifestBytes', path },
          },
        );
      }
      this.current = { kind: 'document', path, chunks: [], bytes: 0 };
      return;
    }
    // spec §4: check each entry against files (hash and size) and reject unlisted files.
    const listedAt = this.listed.get(path);
    const expected = listedAt === undefined ? undefined : this.manifest!.files[listedAt];
    if (listedAt === undefined || expected === undefined) {
      throw new AdcapError(
        'E_UNLISTED',
        `The package contains ${JSON.stringify(path)}, which its manifest does not list in files; it was tampered with or built wrongly.`,
        {
          details: { path },
        },
      );
    }
    if (expected.size !== size) {
      throw new AdcapError(
        'E_HASH',
        `The package entry ${JSON.stringify(path)} is ${size} bytes, ` +
          `but the manifest says ${expected.size}; it was tampered with or corrupted.`,
        {
          details: { path, expectedSize: expected.size, size },
        },
      );
    }
    this.seen.add(path);
    const small = this.staging !== undefined && size <= SMALL_ENTRY_BYTES;
    const threaded = !small && this.thread !== undefined;
    const skillDoc = this.skillDocs.get(path);
    // spec §4: the writer thread hashes what it writes and checks it (a small file before it is
    // created); a skill's document is hashed here, as its front matter is checked after its hash.
    const writerChecks = this.thread !== undefined && skillDoc === undefined;
    if (threaded) {
      this.thread!.open(
        this.targetOf(path),
        this.fileMode(expected.executable === true),
        path,
        writerChecks ? expected.sha256 : undefined,
        listedAt,
      );
    }
    const handle = small || threaded ? undefined : await this.createFile(path, expected.executable === true);
    this.current = {
      kind: 'file',
      path,
      expected,
      listedAt,
      hash: writerChecks ? undefined : createSha256(),
      handle,
      threaded,
      chunks: small ? [] : undefined,
      skill: skillDoc === undefined ? undefined : { ...skillDoc, chunks: [], bytes: 0 },
    };
  }

  data(chunk: Buffer): void | Promise<void> {
    const current = this.current!;
    if (current.kind === 'document') {
      current.chunks.push(chunk);
      current.bytes += chunk.length;
      return;
    }
    current.hash?.update(chunk);
    if (current.skill !== undefined && current.skill.bytes < SKILL_DOC_BYTES) {
      const keep = chunk.subarray(0, SKILL_DOC_BYTES - current.skill.bytes);
      current.skill.chunks.push(keep);
      current.skill.bytes += keep.length;
    }
    if (current.chunks !== undefined) current.chunks.push(chunk);
    else if (current.threaded) return this.thread!.write(chunk);
    else if (current.handle !== undefined) return this.writeBehind(current.handle, chunk);
  }

  async entryEnd(): Promise<void> {
    const current = this.current!;
    this.current = undefined;
    if (current.kind === 'document') {
      const bytes = Buffer.concat(current.chunks, current.bytes);
      if (current.path === SIGNATURE_ENTRY) this.signatureBytes = bytes;
      else this.acceptManifest(bytes);
      // The installed directory keeps capability.json and SIGNATURE.json beside the files they cover.
      await this.writeSmallFile(current.path, false, bytes);
      return;
    }
    const sha256 = current.hash?.digest('hex');
    if (current.threaded) this.thread!.close();
    if (current.handle !== undefined) {
      await this.behind.done;
      this.open.delete(current.handle);
      await current.handle.close();
    }
    if (sha256 !== undefined && sha256 !== current.expected.sha256) throw entryHashError(current.path, current.expected.sha256, sha256);
    // spec §3.1: skills are checked by every reader (verify, install), not only
    // by the builder, so a package made by another tool cannot carry a skill agents would refuse.
    if (current.skill !== undefined) {
      validateSkillDocument(
        current.skill.dirName,
        Buffer.concat(current.skill.chunks, current.skill.bytes).toString('utf8'),
        current.skill.pointer,
      );
    }
    if (current.chunks === undefined) return;
    const executable = current.expected.executable === true;
    if (this.thread !== undefined) {
      const check = sha256 === undefined ? current.expected.sha256 : undefined;
      await this.thread.file(
        this.targetOf(current.path),
        this.fileMode(executable),
        current.path,
        current.chunks,
        current.expected.size,
        check,
        current.listedAt,
      );
    } else await this.queueWrite(current.path, executable, Buffer.concat(current.chunks));
  }

  /** Small verified files are written in the background, at most PARALLEL_WRITES at once. */
  private async queueWrite(path: string, executable: boolean, bytes: Buffer): Promise<void> {
    if (this.writeError !== undefined) throw this.writeError;
    const write = this.writeSmallFile(path, executable, bytes).then(
      () => {
        this.writes.delete(write);
      },
      (error: unknown) => {
        this.writes.delete(write);
        this.writeError ??= error;
      },
    );
    this.writes.add(write);
    if (this.writes.size >= PARALLEL_WRITES) await Promise.race(this.writes);
  }

  /** Waits for background writes; the first failure among them is the read's failure. */
  async flushWrites(): Promise<void> {
    await this.thread?.flush();
    await Promise.all(this.writes);
    if (this.writeError !== undefined) throw this.writeError;
  }

  /**
   * A small file in one go: open, write, close through node:fs's callbacks, with no FileHandle and
   * one promise per file (thousands of small files: the promise API's per-call objects were a
   * visible share of the main thread's time in CPU profiles of an install). The descriptor is
   * closed before the promise settles, on failure too.
   */
  private async writeSmallFile(path: string, executable: boolean, bytes: Buffer): Promise<void> {
    if (this.staging === undefined) return;
    if (this.thread !== undefined) return this.thread.file(this.targetOf(path), this.fileMode(executable), path, [bytes], bytes.length);
    const target = await this.parentMade(path);
    try {
      await writeNewFile(target, this.fileMode(executable), bytes);
    } catch (error) {
      throw extractError(error, path);
    }
  }

  /**
   * The target path of `path` in the staging directory, for the writer thread, which makes its
   * folders; they are remembered here for publishStaging's modes.
   */
  private targetOf(path: string): string {
    const target = join(this.staging!, ...path.split('/'));
    const parent = dirname(target);
    if (!this.madeDirs.has(parent)) this.madeDirs.set(parent, MADE);
    return target;
  }

  /** The target path of `path` in the staging directory, once its parent folder exists. */
  private async parentMade(path: string): Promise<string> {
    const target = join(this.staging!, ...path.split('/'));
    const parent = dirname(target);
    let made = this.madeDirs.get(parent);
    if (made === undefined) {
      made = mkdir(parent, { recursive: true });
      this.madeDirs.set(parent, made);
    }
    try {
      await made;
    } catch (error) {
      throw asAdcapError(error, `Cannot extract ${path}`);
    }
    return target;
  }

  /**
   * Modes 0644/0755 as in the archive (DESIGN §4), narrowed by the umask as tar(1) does; `readOnly`
   * files are created 0444/0555 at once (the descriptor stays writable), which saves a chmod per
   * file at publishing.
   */
  private fileMode(executable: boolean): number {
    return (executable ? 0o755 : 0o644) & (this.readOnly ? 0o555 : 0o777);
  }

  /** spec §3/§4: parse strictly, validate, and index `files` before any other entry is accepted. */
  private acceptManifest(bytes: Buffer): void {
    const manifest = validateManifest(parseStrictJson(bytes, 'The package manifest (capability.json)'));
    manifest.files.forEach((file, i) => this.listed.set(file.path, i));
    manifest.skills?.forEach((skill, i) => {
      this.skillDocs.set(`${skill.path}/SKILL.md`, { dirName: skill.path.split('/').pop() ?? skill.path, pointer: `/skills/${i}/path` });
    });
    this.manifest = manifest;
    this.digest = manifestDigest(manifest);
    this.fileDigest = sha256Hex(bytes);
    const bytesListed = manifest.files.reduce((sum, file) => sum + file.size, 0);
    if (this.staging !== undefined && (manifest.files.length >= THREAD_MIN_FILES || bytesListed >= THREAD_MIN_BYTES)) {
      try {
        this.thread = new ThreadWriter(
          CREATE_FLAGS,
          (error) =>
            error.actualSha256 === undefined
              ? extractError(error, error.path)
              : entryHashError(error.path, manifest.files[this.listed.get(error.path) ?? -1]?.sha256 ?? '', error.actualSha256),
          // Every listed file, created ahead of the writer in the staging directory (paths the
          // manifest's schema checked; an entry is written only to its own listed path).
          {
            targets: manifest.files.map((file) => this.targetOf(file.path)),
            modes: manifest.files.map((file) => this.fileMode(file.executable === true)),
          },
        );
      } catch {
        // No thread to be had (a resource limit): the thread pool's calls write the files instead.
      }
    }
  }

  /** After the last entry: spec §4 rejects missing files; an empty archive has no manifest at all. */
  complete(): { manifest: Manifest; manifestSha256: string; manifestFileSha256: string } {
    if (this.manifest === undefined) {
      throw new AdcapError('E_ORDER', 'The package has no entries; spec §2 requires capability.json as its first entry.');
    }
    const missing = this.manifest.files.filter((file) => !this.seen.has(file.path)).map((file) => file.path);
    if (missing.length > 0) {
      const shown = missing
        .slice(0, 5)
        .map((p) => JSON.stringify(p))
        .join(', ');
      throw new AdcapError(
        'E_MISSING',
        `The package lacks ${missing.length === 1 ? 'the file' : `${missing.length} files`} ` +
          `${shown}${missing.length > 5 ? ', ...' : ''} that its manifest lists.`,
        {
          details: { missing },
        },
      );
    }
    return { manifest: this.manifest, manifestSha256: this.digest, manifestFileSha256: this.fileDigest };
  }

  /** The large file being written: its chain of writes and the bytes in it. */
  private behind: { done: Promise<void>; bytes: number } = { done: Promise.resolve(), bytes: 0 };

  private writeBehind(handle: FileHandle, chunk: Buffer): Promise<void> | void {
    const behind = this.behind;
    behind.bytes += chunk.length;
    // In order: each write starts when the previous one finished (the file offset advances).
    behind.done = behind.done.then(async () => {
      await writeAll(handle, chunk);
      behind.bytes -= chunk.length;
    });
    behind.done.catch(() => undefined); // awaited at the entry's end (or by the bound below); never unhandled
    if (behind.bytes > WRITE_BEHIND_BYTES) return behind.done;
  }

  /**
   * Ends every write. Resolves with the writer thread's own failure, if it had one: it checks and
   * writes entries in archive order behind the read, so its failure is of an earlier entry than any
   * the read failed on since, and is the read's error (as it would be on the thread pool's path).
   */
  async closeAll(): Promise<Error | undefined> {
    // The writer thread ends (its open file closed) before anyone removes or renames what it wrote.
    const writerFailure = await this.thread?.stop();
    // No descriptor is closed under a write still in flight (its number could be reused meanwhile).
    await this.behind.done.catch(() => undefined);
    await Promise.all(this.writes);
    for (const handle of this.open) await handle.close().catch(() => undefined);
    this.open.clear();
    return writerFailure;
  }

  private async createFile(path: string, executable: boolean): Promise<FileHandle | undefined> {
    if (this.staging === undefined) return undefined;
    const target = await this.parentMade(path);
    try {
      const handle = await open(target, CREATE_FLAGS, this.fileMode(executable));
      this.open.add(handle);
      return handle;
    } catch (error) {
      throw extractError(error, path);
    }
  }
}

/** A folder the writer thread makes as its first file needs it (targetOf). */
const MADE = Promise.resolve();

/** O_EXCL: a case-insensitive file system folding two paths together fails here instead of overwriting. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** spec §4: an entry whose bytes do not hash to its `files` SHA-256. */
function entryHashError(path: string, expected: string, actual: string): AdcapError {
  return new AdcapError(
    'E_HASH',
    `The package entry ${JSON.stringify(path)} does not match the SHA-256 in its manifest; it was tampered with or corrupted.`,
    { details: { path, expected, actual } },
  );
}

function extractError(error: unknown, path: string): AdcapError {
  if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
    return new AdcapError(
      'E_DUPLICATE',
      `The package path ${JSON.stringify(path)} clashes with another entry on this file system (names that differ only in case?).`,
      { details: { path } },
    );
  }
  return asAdcapError(error, `Cannot extract ${path}`);
}

/** Creates `target` (CREATE_FLAGS) holding `bytes`; the descriptor is closed before this settles. */
function writeNewFile(target: string, mode: number, bytes: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    fsOpen(target, CREATE_FLAGS, mode, (openError, fd) => {
      if (openError !== null) return reject(openError);
      const finish = (error: unknown): void => {
        fsClose(fd, (closeError) => {
          const failure = error ?? closeError;
          if (failure === null || failure === undefined) resolve();
          else reject(failure as Error);
        });
      };
      const writeFrom = (offset: number): void => {
        if (offset >= bytes.length) return finish(null);
        fsWrite(fd, bytes, offset, bytes.length - offset, null, (writeError, written) => {
          if (writeError !== null) finish(writeError);
          else writeFrom(offset + written);
        });
      };
      writeFrom(0);
    });
  });
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** `extractInto`: the directory itself, made fresh and private (it must not exist yet). */
async function createTarget(dir: string): Promise<string> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new AdcapError('E_IO', `The extraction target ${dir} already exists; remove it or choose another directory.`, {
        details: { path: dir },
      });
    }
    throw asAdcapError(error, `Cannot create the extraction directory ${dir}`);
  }
  return dir;
}

/** `extractInto` after every check: the final directory modes, made durable (no rename follows here). */
async function finishModes(dir: string, dirs: string[], readOnly: boolean): Promise<void> {
  try {
    const mode = readOnly ? 0o555 : 0o755;
    await Promise.all([...dirs, dir].map((d) => chmod(d, mode)));
  } catch (error) {
    throw asAdcapError(error, `Cannot finish the extracted package in ${dir}`);
  }
  await fsyncDir(dirname(dir));
}

/** A fresh, private staging directory beside `extractTo`, so the final rename stays on one file system. */
async function createStaging(extractTo: string): Promise<string> {
  const existing = await lstat(extractTo).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw asAdcapError(error, `Cannot check the extraction target ${extractTo}`);
  });
  if (existing !== undefined) {
    throw new AdcapError('E_IO', `The extraction target ${extractTo} already exists; remove it or choose another directory.`, {
      details: { path: extractTo },
    });
  }
  const staging = join(dirname(extractTo), `.${basename(extractTo)}.staging-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(staging, { mode: 0o700 });
  } catch (error) {
    throw asAdcapError(error, `Cannot create a staging directory beside ${extractTo}`);
  }
  return staging;
}

/**
 * Everything verified: apply the final directory modes (files got theirs when they were created)
 * and make the directory visible by one rename. `dirs` are the directories made below `staging`.
 */
async function publishStaging(staging: string, dirs: string[], extractTo: string, readOnly: boolean): Promise<void> {
  try {
    const mode = readOnly ? 0o555 : 0o755;
    await Promise.all([...dirs, staging].map((dir) => chmod(dir, mode)));
    await rename(staging, extractTo);
  } catch (error) {
    if (readOnly) await applyModes(staging, false).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') {
      throw new AdcapError(
        'E_IO',
        `The extraction target ${extractTo} appeared while the package was being read; remove it and try again.`,
        { cause: error },
      );
    }
    throw asAdcapError(error, `Cannot move the extracted package into ${extractTo}`);
  }
  await fsyncDir(dirname(extractTo));
}

/** Post-order: directories 0755 (0555 read-only); files keep their exec bit and lose write when read-only. */
async function applyModes(dir: string, readOnly: boolean): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await applyModes(path, readOnly);
    else if (readOnly) {
      const info = await lstat(path);
      await chmod(path, info.mode & 0o111 ? 0o555 : 0o444);
    }
  }
  await chmod(dir, readOnly ? 0o555 : 0o755);
}
