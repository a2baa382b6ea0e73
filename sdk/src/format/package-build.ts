import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { AdcapError, asAdcapError } from '../errors.js';
import { assertNoSecretKey, readHead, secretKeyIn } from './secret-scan.js';
import { hashFile, sha256Hex } from '../util/hash.js';
import { progressReporter, type ProgressListener } from '../util/progress.js';
import { CaseFoldGuard, checkEntryPath, comparePaths } from './archive/entry-path.js';
import { DEFAULT_ARCHIVE_LIMITS } from './archive/limits.js';
import { BLOCK_SIZE } from './archive/ustar.js';
import { writeArchive, type ArchiveEntrySource } from './archive/writer.js';
import { manifestDigest } from './canonical-json.js';
import { validateManifest } from './manifest.js';
import type { Envelope, FileEntry, Manifest, PackagePayload } from './manifest-types.js';
import { MANIFEST_ENTRY, SIGNATURE_ENTRY } from './package-read.js';
import { ADCAPIGNORE_FILE, sourceFileWarnings, type SourceWarning } from './skill-repo.js';
import { skillProblemFixes, validateSkillDocument } from './skills.js';
import { runtimeKind } from './runtime-table.js';
import { parseStrictJson } from './strict-json.js';
import { readSourceBytes, readSourceText } from './source-read.js';
import { validateWorkflowFiles } from './workflow-doc.js';

export const IGNORE_FILE = ADCAPIGNORE_FILE;
/** Never packaged: VCS metadata and OS litter. Everything else is up to .adcapignore. */
const ALWAYS_IGNORED = ['.git/', '.hg/', '.svn/', '.DS_Store'];

/** Options of `buildPackage()`. */
export interface BuildPackageOptions {
  /** Where to write the .adcap file (atomically). */
  out: string;
  /** Signs the payload; its envelope becomes SIGNATURE.json, the last entry. */
  envelopeFor?: (payload: PackagePayload) => Promise<Envelope<PackagePayload>> | Envelope<PackagePayload>;
  /** Told `{ phase, done, total }` (bytes) as files are hashed and the archive is written. */
  onProgress?: ProgressListener;
}

/** A package `buildPackage()` wrote: the file, its manifest and the digests that pin it. */
export interface BuiltPackage {
  /** The .adcap file written. */
  file: string;
  /** The manifest it holds. */
  manifest: Manifest;
  /** The SHA-256 of the canonical manifest. */
  manifestSha256: string;
  /** The SHA-256 of the file. */
  archiveSha256: string;
  /** The file's size in bytes. */
  size: number;
  /** Printed, not refused: Git LFS pointers and files that look like secrets. */
  warnings: SourceWarning[];
}

/** One problem of one skill in a build report: where, which spec §3.1 rule, and the fix. */
export interface SkillBuildProblem {
  /** The skill folder in the package, e.g. "skills/pdf". */
  path: string;
  /** The JSON pointer of the skill in capability.json, e.g. "/skills/0". */
  pointer: string;
  /** The id of the spec §3.1 rule broken (one of SKILL_RULES). */
  rule: string;
  /** What is wrong, in a sentence. */
  message: string;
  /** What to change so the skill builds. */
  fix: string;
}

interface SourceFile {
  path: string;
  absolute: string;
  executable: boolean;
  size: number;
}

/** Files up to this size are read whole (one call instead of a stream per file); larger ones stream. */
const SMALL_FILE_BYTES = 256 * 1024;
/** File system calls in flight at once while walking and hashing (each is a thread-pool round trip). */
const PARALLEL_IO = 16;

/** `items.map(fn)` with at most `limit` calls pending; results keep the input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Hashes one file and, from the same read, says whether it holds a secret key (refused)
 * and collects the warnings (Git LFS pointers and other credentials, printed).
 */
async function hashSourceFile(
  file: SourceFile,
  warnings: SourceWarning[],
): Promise<{ sha256: string; size: number; secret: string | null }> {
  if (file.size > SMALL_FILE_BYTES) {
    const [hashed, head] = await Promise.all([hashFile(file.absolute), readHead(file.absolute)]);
    warnings.push(...sourceFileWarnings(file.path, file.size, head));
    return { ...hashed, secret: secretKeyIn(head) };
  }
  const bytes = await readFile(file.absolute);
  warnings.push(...sourceFileWarnings(file.path, bytes.length, bytes));
  return { sha256: sha256Hex(bytes), size: bytes.length, secret: secretKeyIn(bytes) };
}

/**
 * Builds a package from a source directory (spec §2-§4): reads capability.json (strict JSON; any
 * `files` in it is recomputed), walks the directory honouring .adcapignore and refusing symbolic
 * links and special files, hashes every file into `files`, validates the manifest, its skills
 * (spec §3.1) and workflow documents (spec §8), and writes a deterministic archive atomically.
 */
export async function buildPackage(sourceDir: string, options: BuildPackageOptions): Promise<BuiltPackage> {
  const root = resolve(sourceDir);
  const out = resolve(options.out);
  const source = await readManifestSource(root);
  const forcedExecutable = binaryEntries(source);
  const sourceFiles = await walkSource(root, out, forcedExecutable);

  const hashing = progressReporter('hash', options.onProgress);
  let hashed = 0;
  const warnings: SourceWarning[] = [];
  const secrets = new Map<string, string>();
  const files: FileEntry[] = await mapLimited(sourceFiles, PARALLEL_IO, async (file) => {
    const { sha256, size, secret } = await hashSourceFile(file, warnings).catch((error: unknown) => {
      throw asAdcapError(error, `Cannot read ${file.absolute}`);
    });
    hashed += size;
    hashing.report(hashed);
    if (secret !== null) secrets.set(file.path, secret);
    return file.executable ? { path: file.path, sha256, size, executable: true } : { path: file.path, sha256, size };
  });
  // A package is public: a secret key in it is refused before anything is written.
  assertNoSecretKey(
    sourceFiles.map((f) => f.path),
    secrets,
  );
  checkBuildLimits(files);

  const manifest = validateManifest({ ...source, files });
  await checkDocuments(root, manifest);
  const manifestSha256 = manifestDigest(manifest);
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');

  const entries: ArchiveEntrySource[] = [
    { path: MANIFEST_ENTRY, size: manifestBytes.length, executable: false, open: () => manifestBytes },
  ];
  for (const [i, file] of files.entries()) {
    const absolute = sourceFiles[i]!.absolute;
    entries.push({
      path: file.path,
      size: file.size,
      executable: file.executable === true,
      open: () => (file.size <= SMALL_FILE_BYTES ? readFile(absolute) : createReadStream(absolute, { highWaterMark: 1 << 20 })),
    });
  }
  if (options.envelopeFor !== undefined) {
    const envelope = await options.envelopeFor({ adcap: manifest.adcap, id: manifest.id, version: manifest.version, manifestSha256 });
    const signature = Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`, 'utf8');
    entries.push({ path: SIGNATURE_ENTRY, size: signature.length, executable: false, open: () => signature });
  }
  const archive = await writeArchive(entries, out);
  options.onProgress?.({ phase: 'write', done: archive.size, total: archive.size });
  warnings.sort((a, b) => comparePaths(a.path, b.path) || (a.kind < b.kind ? -1 : 1));
  return { file: out, manifest, manifestSha256, archiveSha256: archive.sha256, size: archive.size, warnings };
}

async function readManifestSource(root: string): Promise<Record<string, unknown>> {
  // SECURITY.md "Source folders": a regular file inside the folder, at most the reader's manifest limit (DESIGN §4).
  const bytes = await readSourceBytes(root, MANIFEST_ENTRY, DEFAULT_ARCHIVE_LIMITS.maxManifestBytes);
  if (bytes === null) {
    throw new AdcapError('E_NOT_FOUND', `There is no capability.json in ${root}; run adcap init there or pass the capability's folder.`);
  }
  const value = parseStrictJson(bytes, `${join(root, MANIFEST_ENTRY)}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdcapError('E_SCHEMA', `${join(root, MANIFEST_ENTRY)} must hold a JSON object (/ must be an object).`, {
      details: { pointer: '', keyword: 'type' },
    });
  }
  // `files` is the builder's to compute (DESIGN §3); a stale copy from an extracted package is replaced.
  const { files: _files, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** Binary tool runtimes are executed directly, so their entries are marked executable whatever the source mode. */
function binaryEntries(source: Record<string, unknown>): Set<string> {
  const forced = new Set<string>();
  const tools = Array.isArray(source.tools) ? (source.tools as unknown[]) : [];
  for (const tool of tools) {
    const runtime = (tool as { runtime?: { type?: unknown; entries?: unknown } } | null)?.runtime;
    if (runtimeKind(runtime?.type) === 'binary' && typeof runtime?.entries === 'object' && runtime.entries !== null) {
      for (const entry of Object.values(runtime.entries)) if (typeof entry === 'string') forced.add(entry);
    }
  }
  return forced;
}

async function loadIgnore(root: string): Promise<Ignore> {
  const rules = ignore().add(ALWAYS_IGNORED);
  const text = await readSourceText(root, IGNORE_FILE);
  if (text !== null) rules.add(text);
  return rules;
}

/** The files to package, sorted by path bytes (spec §2), with spec §2's rules applied at the source. */
async function walkSource(root: string, out: string, forcedExecutable: Set<string>): Promise<SourceFile[]> {
  const rules = await loadIgnore(root);
  const found: SourceFile[] = [];
  const reserved = new Set([MANIFEST_ENTRY, SIGNATURE_ENTRY, IGNORE_FILE]);

  async function walk(dir: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      throw asAdcapError(error, `Cannot list ${dir}`);
    }
    const candidates = names
      .map((name) => join(dir, name))
      .filter((absolute) => absolute !== out && !(dir === root && reserved.has(absolute.slice(root.length + 1))));
    const infos = await mapLimited(candidates, PARALLEL_IO, (absolute) =>
      lstat(absolute).catch((error: unknown) => {
        throw asAdcapError(error, `Cannot read ${absolute}`);
      }),
    );
    for (const [i, absolute] of candidates.entries()) {
      const info = infos[i]!;
      const path = relative(root, absolute).split(sep).join('/');
      if (info.isDirectory()) {
        if (!rules.ignores(`${path}/`)) await walk(absolute);
        continue;
      }
      if (rules.ignores(path)) continue;
      if (!info.isFile()) {
        const kind = info.isSymbolicLink() ? 'a symbolic link' : 'a special file (device, FIFO or socket)';
        throw new AdcapError(
          'E_ENTRY_TYPE',
          `${absolute} is ${kind}; packages hold only regular files (spec §2). Replace it with a copy or list it in ${IGNORE_FILE}.`,
          {
            details: { path },
          },
        );
      }
      checkEntryPath(path);
      found.push({ path, absolute, executable: (info.mode & 0o111) !== 0 || forcedExecutable.has(path), size: info.size });
    }
  }

  await walk(root);
  found.sort((a, b) => comparePaths(a.path, b.path));
  // spec §2 unique paths, as macOS and Windows compare them: refused here as the reader refuses them (E_PATH).
  const caseFold = new CaseFoldGuard();
  caseFold.add(MANIFEST_ENTRY);
  caseFold.add(SIGNATURE_ENTRY);
  for (const file of found) caseFold.add(file.path);
  return found;
}

/** A package the default reader would refuse is refused at build time (spec §2 reference limits). */
function checkBuildLimits(files: FileEntry[]): void {
  const limits = DEFAULT_ARCHIVE_LIMITS;
  if (files.length + 2 > limits.maxEntries) {
    throw new AdcapError(
      'E_LIMIT',
      `The package would have ${files.length + 1} or more entries, ` +
        `over the reference limit of ${limits.maxEntries} (spec §2); ` +
        `list unneeded files in ${IGNORE_FILE} or move data into resources.`,
    );
  }
  const expanded = files.reduce((sum, file) => sum + BLOCK_SIZE + Math.ceil(file.size / BLOCK_SIZE) * BLOCK_SIZE, 0);
  if (expanded > limits.maxExpandedBytes) {
    throw new AdcapError(
      'E_LIMIT',
      `The package would expand to ${expanded} bytes, over the reference limit of ` +
        `${limits.maxExpandedBytes} (spec §2); move large data into resources (spec principle 4).`,
    );
  }
}

/**
 * spec §3.1 skills and spec §8 workflow documents, read from the source folder. Every problem of
 * every skill is collected first and refused together, so one build run shows them all:
 * E_SEMANTIC with `details.problems` (path, pointer, rule, message, fix); a single problem keeps
 * the validator's own message.
 */
async function checkDocuments(root: string, manifest: Manifest): Promise<void> {
  const problems: SkillBuildProblem[] = [];
  let single: unknown;
  for (const [i, skill] of (manifest.skills ?? []).entries()) {
    const pointer = `/skills/${i}`;
    const dirName = skill.path.split('/').pop() ?? skill.path;
    let text: string;
    try {
      // SECURITY.md "Source folders": only a regular file inside the folder (an ignored link is not followed), size-limited.
      const read = await readSourceText(root, `${skill.path}/SKILL.md`);
      if (read === null) throw new Error('no such file');
      text = read;
    } catch (error) {
      const missing = new AdcapError(
        'E_SEMANTIC',
        `[skill-md] /skills/${i}/path ${skill.path} has no readable SKILL.md (${(error as Error).message}).`,
        {
          details: { rule: 'skill-md', pointer: `/skills/${i}/path` },
        },
      );
      single ??= missing;
      problems.push({
        path: skill.path,
        pointer,
        rule: 'skill-md',
        message: error instanceof AdcapError ? `SKILL.md cannot be read: ${error.message}` : 'SKILL.md cannot be read',
        fix: `add a SKILL.md to ${skill.path} or remove the skill from capability.json`,
      });
      continue;
    }
    const found = skillProblemFixes(dirName, text);
    if (found.length === 0) continue;
    if (single === undefined) {
      try {
        validateSkillDocument(dirName, text, pointer);
      } catch (error) {
        single = error;
      }
    }
    for (const problem of found) problems.push({ path: skill.path, pointer, ...problem });
  }
  if (problems.length === 1 && single !== undefined) throw single;
  if (problems.length > 0) {
    const skills = new Set(problems.map((p) => p.path)).size;
    const list = problems.map((p) => `${p.path}/SKILL.md [${p.rule}] ${p.message}: ${p.fix}`).join('; ');
    throw new AdcapError('E_SEMANTIC', `${problems.length} problems in ${skills} skill${skills === 1 ? '' : 's'}: ${list}.`, {
      details: { rule: problems[0]?.rule, pointer: problems[0]?.pointer, problems },
    });
  }
  await validateWorkflowFiles(manifest, root);
}
