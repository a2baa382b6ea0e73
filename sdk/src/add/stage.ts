/**
 * Staging a skills repository as it is (docs/skills.md) into a folder `buildPackage` accepts:
 *  - every skill goes to `skills/<name>/`, where <name> is its SKILL.md name, so the spec's rule
 *    "name = folder" (spec §3.1) holds in the package even when the repository's folder differs;
 *  - a skill breaking a rule no staging can fix (a description over 1,024 characters, a bad name, no
 *    front matter, a second skill of the same name, a link leaving the repository) is left out and
 *    named with its rule; the rest goes in;
 *  - symbolic links that stay inside the repository are followed and stored as files; links that
 *    leave it are refused with their path; only regular files are read (no devices, FIFOs or
 *    sockets), each at most MAX_FILE_BYTES, all together at most MAX_TOTAL_BYTES;
 *  - the top-level README, LICENSE, AGENTS.md and similar files come along for the package's page.
 */
import type { Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AdcapError } from '../errors.js';
import { frontMatterName, skillDocumentProblems } from '../format/skills.js';
import { readSourceText } from '../format/source-read.js';

/** A SKILL.md is prose; anything larger than this is not one (SECURITY.md: reads of a repository have a limit). */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
/** DESIGN §4 reader limits: what a package may hold. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
export const MAX_FILES = 20_000;
const MAX_DEPTH = 5;
/** Folders never searched for skills nor copied into one. */
const NEVER = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv']);
/** Top-level files that describe the repository (kept beside the skills). */
const TOP_FILES = /^(readme|license|licence|copying|notice|changelog|agents|claude|gemini)(\.[a-z0-9]+)?$/i;

export interface StagedSkill {
  /** The skill's name, and its folder in the package (`skills/<name>`). */
  name: string;
  /** Its folder in the repository, relative to the repository root ('' for the root itself). */
  from: string;
  /** True when the repository's folder name differs from the name (staged under skills/<name>/). */
  renamed: boolean;
}

export interface LeftOut {
  /** The skill's folder (or a top-level file) in the repository. */
  path: string;
  /** The rule it breaks (a skill rule of spec §3.1, "skill-name-unique" or "link-outside-repository"). */
  rule: string;
  message: string;
}

export interface StageResult {
  skills: StagedSkill[];
  leftOut: LeftOut[];
  /** Other files copied (top-level README, LICENSE...). */
  files: string[];
}

export interface StageOptions {
  /** The folder inside `root` to take skills from ('' for the root). */
  path?: string;
  /** Only these skills (by name or by folder name); E_NOT_FOUND naming the others when one is missing. */
  only?: readonly string[];
}

class LinkOutside extends Error {
  constructor(readonly path: string) {
    super(path);
  }
}

/** Stages the skills of `root` (a repository or folder) into the empty folder `stage`. */
export async function stageSkillsRepository(root: string, stage: string, options: StageOptions = {}): Promise<StageResult> {
  const realRoot = await realpath(root);
  const base = options.path === undefined || options.path === '' ? realRoot : join(realRoot, ...options.path.split('/'));
  const reader = new RepoReader(realRoot);
  const found = await findSkillFolders(reader, base);
  const leftOut: LeftOut[] = [];
  const skills: StagedSkill[] = [];
  const names = new Set<string>();
  let chosen = found;
  if (options.only !== undefined && options.only.length > 0) {
    const only = options.only;
    const described = await Promise.all(found.map(async (dir) => ({ dir, name: await reader.skillName(dir).catch(() => null) })));
    for (const wanted of only) {
      if (!described.some((d) => d.name === wanted || lastSegment(d.dir) === wanted))
        throw new AdcapError(
          'E_NOT_FOUND',
          `There is no skill ${JSON.stringify(wanted)} here; the skills are ` +
            `${described.map((d) => d.name ?? lastSegment(d.dir)).join(', ') || 'none'}.`,
        );
    }
    chosen = described.filter((d) => only.includes(d.name ?? '') || only.includes(lastSegment(d.dir))).map((d) => d.dir);
  }
  for (const dir of chosen) {
    const from = relativePath(realRoot, dir);
    let text: string;
    try {
      text = await reader.readText(join(dir, 'SKILL.md'), MAX_SKILL_MD_BYTES);
    } catch (error) {
      leftOut.push(leftOutFor(from, error));
      continue;
    }
    const name = frontMatterName(text) ?? lastSegment(dir);
    const problems = skillDocumentProblems(name, text, `/${from}`);
    const first = problems[0];
    if (first !== undefined) {
      const rule = typeof first.details.rule === 'string' ? first.details.rule : 'skill-front-matter';
      leftOut.push({ path: from || '.', rule, message: first.message.replace(/^\[[a-z-]+\]\s*/, '') });
      continue;
    }
    if (names.has(name)) {
      leftOut.push({
        path: from || '.',
        rule: 'skill-name-unique',
        message: `/${from} has the name ${name}, which an earlier skill already has; a package holds one skill of a name.`,
      });
      continue;
    }
    const target = join(stage, 'skills', name);
    try {
      await reader.copyTree(dir, target);
    } catch (error) {
      leftOut.push(leftOutFor(from, error));
      continue;
    }
    names.add(name);
    skills.push({ name, from, renamed: lastSegment(dir) !== name });
  }
  if (found.length === 0) {
    throw new AdcapError(
      'E_NOT_FOUND',
      `${options.path === undefined || options.path === '' ? 'The source' : options.path} holds no skill: ` +
        'no SKILL.md in skills/<name>/, <name>/ or a few folders down. Nothing was added.',
    );
  }
  const files: string[] = [];
  for (const entry of await readdir(realRoot, { withFileTypes: true })) {
    if (!TOP_FILES.test(entry.name)) continue;
    const from = join(realRoot, entry.name);
    try {
      const info = await reader.follow(from);
      if (!info.isFile()) continue;
      await reader.copyFile(from, join(stage, entry.name));
      files.push(entry.name);
    } catch (error) {
      leftOut.push(leftOutFor(entry.name, error));
    }
  }
  return { skills, leftOut, files };
}

function leftOutFor(path: string, error: unknown): LeftOut {
  if (error instanceof LinkOutside)
    return {
      path: path || '.',
      rule: 'link-outside-repository',
      message: `${error.path} is a symbolic link to a place outside the repository; only links inside it are followed`,
    };
  if (error instanceof AdcapError)
    return { path: path || '.', rule: error.code === 'E_LIMIT' ? 'size-limit' : 'regular-files', message: error.message };
  throw error;
}

/** Folders holding a SKILL.md: `base` itself; else under skills/; else up to MAX_DEPTH folders down. */
async function findSkillFolders(reader: RepoReader, base: string): Promise<string[]> {
  if (await reader.has(join(base, 'SKILL.md'))) return [base];
  const walk = async (dir: string, depth: number, out: string[]): Promise<string[]> => {
    if (depth > MAX_DEPTH) return out;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (NEVER.has(entry.name) || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (!entry.isDirectory()) continue;
      if (await reader.has(join(path, 'SKILL.md'))) out.push(path);
      else await walk(path, depth + 1, out);
    }
    return out;
  };
  const nested = join(base, 'skills');
  const underSkills = (await reader.isDir(nested)) ? await walk(nested, 1, []) : [];
  return underSkills.length > 0 ? underSkills : walk(base, 1, []);
}

/** Reads a repository: regular files only, links followed only while they stay inside it, with limits. */
class RepoReader {
  private total = 0;
  private count = 0;

  constructor(private readonly root: string) {}

  private inside(path: string): boolean {
    const rel = relative(this.root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  }

  /** What `path` is after following links, refusing a link whose target leaves the repository. */
  async follow(path: string): Promise<Stats> {
    const info = await lstat(path);
    if (!info.isSymbolicLink()) return info;
    const lexical = resolve(dirname(path), await readlink(path));
    if (!this.inside(lexical)) throw new LinkOutside(relativePath(this.root, path));
    const target = await realpath(path).catch(() => null);
    if (target === null)
      throw new AdcapError(
        'E_MISSING',
        `${relativePath(this.root, path)} is a symbolic link to nothing (${relativePath(this.root, lexical)}).`,
      );
    if (!this.inside(target)) throw new LinkOutside(relativePath(this.root, path));
    return stat(target);
  }

  async has(path: string): Promise<boolean> {
    try {
      return (await this.follow(path)).isFile();
    } catch (error) {
      if (error instanceof LinkOutside) return true;
      return false;
    }
  }

  async isDir(path: string): Promise<boolean> {
    return this.follow(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
  }

  async skillName(dir: string): Promise<string | null> {
    return frontMatterName(await this.readText(join(dir, 'SKILL.md'), MAX_SKILL_MD_BYTES)) ?? null;
  }

  /**
   * A regular file's text, at most `max` bytes: a link leaving the repository is LinkOutside (its
   * own rule), then format/source-read.ts reads it (non-blocking, checked on the descriptor, so a
   * FIFO never blocks; E_ENTRY_TYPE for anything not a regular file, E_LIMIT past `max`).
   */
  async readText(path: string, max: number): Promise<string> {
    await this.follow(path);
    const text = await readSourceText(this.root, relative(this.root, path), max);
    if (text === null) throw new AdcapError('E_MISSING', `${relativePath(this.root, path)} does not exist.`);
    return text;
  }

  async copyFile(from: string, to: string): Promise<void> {
    const info = await this.follow(from);
    if (!info.isFile())
      throw new AdcapError('E_ENTRY_TYPE', `${relativePath(this.root, from)} is not a regular file; only regular files are copied.`);
    if (info.size > MAX_FILE_BYTES)
      throw new AdcapError(
        'E_LIMIT',
        `${relativePath(this.root, from)} is ${info.size} bytes, over the ${MAX_FILE_BYTES}-byte limit of a package file.`,
      );
    this.total += info.size;
    this.count += 1;
    if (this.total > MAX_TOTAL_BYTES || this.count > MAX_FILES)
      throw new AdcapError('E_LIMIT', `The skills hold more than ${MAX_FILES} files or ${MAX_TOTAL_BYTES} bytes, over a package's limits.`);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(await realpath(from), to);
    // Only the executable bit travels (DESIGN §4: modes 0644 or 0755).
    if ((info.mode & 0o111) !== 0) await chmod(to, 0o755);
  }

  /** Copies a folder, following inside links (a folder reached twice on one path is a loop: refused). */
  async copyTree(from: string, to: string, seen: readonly string[] = []): Promise<void> {
    const real = await realpath(from);
    if (!this.inside(real)) throw new LinkOutside(relativePath(this.root, from));
    if (seen.includes(real))
      throw new AdcapError('E_ENTRY_TYPE', `${relativePath(this.root, from)} is a link back into a folder that holds it (a loop).`);
    await mkdir(to, { recursive: true });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (NEVER.has(entry.name)) continue;
      const path = join(from, entry.name);
      const info = await this.follow(path);
      if (info.isDirectory()) await this.copyTree(path, join(to, entry.name), [...seen, real]);
      else if (info.isFile()) await this.copyFile(path, join(to, entry.name));
      else throw new AdcapError('E_ENTRY_TYPE', `${relativePath(this.root, path)} is not a regular file or folder; only those are copied.`);
    }
  }
}

function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

function lastSegment(path: string): string {
  return (
    path
      .split(/[\\/]/)
      .filter((s) => s !== '')
      .pop() ?? path
  );
}
