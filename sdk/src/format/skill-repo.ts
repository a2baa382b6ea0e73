/**
 * Skills repositories as capabilities: find the skills of a folder that already holds
 * Agent Skills (`skills/<name>/SKILL.md`, or `<name>/SKILL.md` at the top), write the
 * capability.json and .adcapignore that package them, say which files of a skill are programs an
 * agent may run, and warn about files that should not be published (Git LFS pointers, secrets).
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AdcapError, asAdcapError } from '../errors.js';
import { writeFileAtomic } from '../util/fs-atomic.js';
import type { FileEntry, Manifest } from './manifest-types.js';
import { MANIFEST_ENTRY } from './package-read.js';
import { extractFrontMatter, skillDocumentProblems } from './skills.js';
import { readSourceText } from './source-read.js';
import { idPartTitle, splitCapabilityId } from '../util/capability-id.js';

/** The builder's ignore file (package-build.ts re-exports it as IGNORE_FILE). */
export const ADCAPIGNORE_FILE = '.adcapignore';

/** A skill folder found in a repository: its package path and what its front matter says. */
export interface FoundSkill {
  /** The skills[].path for capability.json, e.g. "skills/pdf". */
  path: string;
  /** The folder name (the skill name spec §3.1 wants). */
  dir: string;
  /** The front matter's description, when it has one (for the summary). */
  description?: string;
}

/**
 * The skill folders of `root`: every `skills/<dir>/SKILL.md`, else every `<dir>/SKILL.md` at the
 * top (the two layouts public skills repositories use), sorted by path, dot folders skipped; else
 * every SKILL.md a few folders down (other layouts).
 */
export async function findSkills(root: string): Promise<FoundSkill[]> {
  const under = async (prefix: string): Promise<FoundSkill[]> => {
    const dir = prefix === '' ? root : join(root, prefix);
    const names = await readdir(dir).catch(() => [] as string[]);
    const found: FoundSkill[] = [];
    for (const name of names.sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const text = await skillText(root, prefix === '' ? `${name}/SKILL.md` : `${prefix}/${name}/SKILL.md`);
      if (text === null) continue;
      const description = frontMatterDescription(text);
      found.push({ path: prefix === '' ? name : `${prefix}/${name}`, dir: name, ...(description === undefined ? {} : { description }) });
    }
    return found;
  };
  const nested = await under('skills');
  if (nested.length > 0) return nested;
  const top = await under('');
  return top.length > 0 ? top : deeper(root);
}

/** Folders never searched for skills (VCS metadata, dependencies, CI). */
const NOT_SKILLS = new Set(['.git', '.github', '.hg', '.svn', 'node_modules', '__pycache__', '.venv']);
const MAX_SKILL_DEPTH = 4;

/**
 * The last resort for other layouts (e.g. `skills/.curated/<name>/SKILL.md`, or
 * `<category>/<name>/SKILL.md`): every SKILL.md up to four folders down, not looking inside a skill.
 */
async function deeper(root: string): Promise<FoundSkill[]> {
  const found: FoundSkill[] = [];
  const walk = async (prefix: string, depth: number): Promise<void> => {
    if (depth > MAX_SKILL_DEPTH) return;
    const entries = await readdir(prefix === '' ? root : join(root, ...prefix.split('/')), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (!entry.isDirectory() || NOT_SKILLS.has(entry.name)) continue;
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const text = await skillText(root, `${path}/SKILL.md`);
      if (text === null) {
        await walk(path, depth + 1);
        continue;
      }
      const description = frontMatterDescription(text);
      found.push({ path, dir: entry.name, ...(description === undefined ? {} : { description }) });
    }
  };
  await walk('', 1);
  return found;
}

/**
 * A SKILL.md's text, or null when there is none or it cannot be read (a folder without access is
 * not a skill). A link leaving the repository, a device or FIFO, or a file over the limit is
 * refused with its path (SECURITY.md, "Source folders"): its text would end up in capability.json.
 */
async function skillText(root: string, relativePath: string): Promise<string | null> {
  try {
    return await readSourceText(root, relativePath);
  } catch (error) {
    if (error instanceof AdcapError && error.code === 'E_IO') return null;
    throw error;
  }
}

function frontMatterDescription(text: string): string | undefined {
  const source = extractFrontMatter(text);
  if (source === undefined) return undefined;
  try {
    const data: unknown = parseYaml(source, { maxAliasCount: 50 });
    const description = (data as { description?: unknown } | null)?.description;
    return typeof description === 'string' && description.trim() !== '' ? description.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Options of `initSkillsRepository()`. */
export interface InitSkillsOptions {
  /** `publisher/name` of the capability. */
  id: string;
  /** Overwrite an existing capability.json and .adcapignore. */
  force?: boolean;
  /** The version to start at (default 0.1.0). */
  version?: string;
  /** The display name (default: the README's first heading, else the id's name). */
  name?: string;
}

/** What `initSkillsRepository()` found and wrote: the manifest, the skills and warnings about source files. */
export interface InitSkillsResult {
  /** The capability.json written (as a plain object). */
  manifest: Record<string, unknown>;
  /** The skills found in the folder, each listed in the manifest. */
  skills: FoundSkill[];
  /** Files written, relative to the folder. */
  wrote: string[];
  /** Files left as they were (an .adcapignore that exists, without --force). */
  kept: string[];
  /** Things a person should check by hand (an unknown license, a summary taken from a skill). */
  notes: string[];
  /**
   * Skills left out because they break a rule (docs/skills.md, as `adcap add` does): not in
   * capability.json, and their folders listed in .adcapignore, so the rest builds.
   */
  leftOut: Array<{ path: string; rule: string; message: string }>;
}

/** The usual clutter of a skills repository, left out of the package (gitignore syntax). */
export const SKILLS_ADCAPIGNORE = [
  '.git/',
  '.github/',
  'node_modules/',
  '__pycache__/',
  '*.pyc',
  '.venv/',
  '.DS_Store',
  'Thumbs.db',
  '.idea/',
  '.vscode/',
  '*.swp',
  '*~',
  '.env',
  '.env.*',
  '*.adcap',
  'key.json',
  '*.key.json',
  '',
].join('\n');

/**
 * `adcap init <dir> --id <pub/name>` on a folder that already holds skills: writes capability.json
 * listing every skill (name and summary from the README, else the first skill; license from
 * LICENSE when it is a well-known text) and .adcapignore. Never overwrites an existing
 * capability.json without `force` (E_USAGE naming --force); E_NOT_FOUND when there is no skill.
 */
export async function initSkillsRepository(root: string, options: InitSkillsOptions): Promise<InitSkillsResult> {
  const parts = splitCapabilityId(options.id);
  if (parts === null) {
    throw new AdcapError(
      'E_USAGE',
      `--id ${JSON.stringify(options.id)} is not publisher/name (lowercase letters, digits and single hyphens, each part 1-64 characters).`,
    );
  }
  const found = await findSkills(root);
  if (found.length === 0) {
    throw new AdcapError('E_NOT_FOUND', `${root} holds no skills: expected skills/<name>/SKILL.md or <name>/SKILL.md.`);
  }
  const { skills, leftOut } = await withoutBrokenSkills(root, found);
  if (skills.length === 0) {
    throw new AdcapError(
      'E_SEMANTIC',
      `No skill of ${root} can be packaged: ${leftOut.map((l) => `${l.path} [${l.rule}] ${l.message}`).join('; ')}.`,
      { details: { leftOut } },
    );
  }
  const manifestPath = join(root, MANIFEST_ENTRY);
  if (options.force !== true && (await pathExists(manifestPath))) {
    throw new AdcapError(
      'E_USAGE',
      `${manifestPath} already exists; pass --force to replace it with one listing the ${skills.length} skills found.`,
    );
  }
  const notes: string[] = [];
  const readme = await firstFile(root, ['README.md', 'readme.md', 'Readme.md']);
  const readmeText = readme === null ? null : await optionalText(root, readme, notes);
  const fromReadme = readmeText === null ? {} : readmeSummary(readmeText);
  const name = truncate(options.name ?? fromReadme.title ?? idPartTitle(parts.name), 80);
  let summary = fromReadme.summary;
  if (summary === undefined) {
    const first = skills.find((s) => s.description !== undefined);
    summary = first?.description === undefined ? undefined : firstSentence(first.description);
    if (summary !== undefined)
      notes.push(`the summary comes from the skill ${first?.dir}; edit it in capability.json to describe the whole repository`);
  }
  summary = truncate(
    summary ?? `${skills.length} agent skill${skills.length === 1 ? '' : 's'}: ${skills.map((s) => s.dir).join(', ')}`,
    200,
  );
  const licenseFile = await firstFile(root, ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'LICENCE', 'COPYING']);
  let license: string | undefined;
  if (licenseFile !== null) {
    const licenseText = await optionalText(root, licenseFile, notes);
    license = licenseText === null ? undefined : detectLicense(licenseText);
    if (license === undefined && licenseText !== null)
      notes.push(`${licenseFile} is not a license text adcap recognises; set "license" in capability.json to its SPDX expression`);
  }
  const manifest: Record<string, unknown> = {
    adcap: '1.0',
    id: options.id,
    version: options.version ?? '0.1.0',
    name,
    summary,
    ...(license === undefined ? {} : { license }),
    ...(readme === null || readmeText === null ? {} : { readme }),
    skills: skills.map((s) => ({ path: s.path })),
  };
  const wrote: string[] = [];
  const kept: string[] = [];
  await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  wrote.push(MANIFEST_ENTRY);
  const ignorePath = join(root, ADCAPIGNORE_FILE);
  if (options.force === true || !(await pathExists(ignorePath))) {
    // Comment-free, so the user can edit it as a plain list: the clutter, then the skills left out.
    await writeFileAtomic(ignorePath, `${SKILLS_ADCAPIGNORE}${leftOut.map((l) => `/${l.path}/\n`).join('')}`);
    wrote.push(ADCAPIGNORE_FILE);
  } else {
    kept.push(ADCAPIGNORE_FILE);
    if (leftOut.length > 0)
      notes.push(`${ADCAPIGNORE_FILE} was kept: add ${leftOut.map((l) => `/${l.path}/`).join(', ')} to it so the build leaves them out`);
  }
  return { manifest, skills, wrote, kept, notes, leftOut };
}

/**
 * The skills that pass every rule of spec §3.1 as they are, and the others with the first rule each
 * breaks (docs/skills.md: a folder that differs from the name is left out here, since init does not
 * move folders; `adcap add` packages such a skill under its name).
 */
async function withoutBrokenSkills(
  root: string,
  found: FoundSkill[],
): Promise<{ skills: FoundSkill[]; leftOut: InitSkillsResult['leftOut'] }> {
  const skills: FoundSkill[] = [];
  const leftOut: InitSkillsResult['leftOut'] = [];
  for (const skill of found) {
    let problem: AdcapError | undefined;
    try {
      const text = await readSourceText(root, `${skill.path}/SKILL.md`);
      problem = text === null ? undefined : skillDocumentProblems(skill.dir, text, `/${skill.path}`)[0];
    } catch (error) {
      if (!(error instanceof AdcapError)) throw error;
      problem = error;
    }
    if (problem === undefined) {
      skills.push(skill);
      continue;
    }
    const rule = typeof problem.details.rule === 'string' ? problem.details.rule : 'regular-files';
    const message = problem.message.replace(/^\[[a-z-]+\]\s*/, '');
    leftOut.push({
      path: skill.path,
      rule,
      message:
        rule === 'skill-name-matches-dir'
          ? `${message}; rename the folder, or bring it in with "adcap add", which packages it under its name`
          : message,
    });
  }
  return { skills, leftOut };
}

/**
 * A README or LICENSE, read only as a regular file inside the repository (SECURITY.md, "Source folders"); one
 * that is a link leaving it, a special file or too large is left unread, with a note saying why.
 */
async function optionalText(root: string, relativePath: string, notes: string[]): Promise<string | null> {
  try {
    return await readSourceText(root, relativePath);
  } catch (error) {
    if (!(error instanceof AdcapError) || (error.code !== 'E_ENTRY_TYPE' && error.code !== 'E_LIMIT')) throw error;
    notes.push(`${relativePath} was not read: ${error.message}`);
    return null;
  }
}

async function pathExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw asAdcapError(error, `Cannot check ${path}`);
    },
  );
}

async function firstFile(root: string, names: readonly string[]): Promise<string | null> {
  for (const name of names) {
    if (
      await stat(join(root, name)).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return name;
  }
  return null;
}

/** The README's first heading (the display name) and first paragraph of prose (the summary). */
export function readmeSummary(text: string): { title?: string; summary?: string } {
  const lines = text.replace(/^\ufeff/, '').split(/\r?\n/);
  let title: string | undefined;
  const paragraph: string[] = [];
  let inFence = false;
  let inComment = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (line.startsWith('<!--')) inComment = !line.includes('-->');
    else if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (line.startsWith('<!--')) continue;
    if (title === undefined && /^#\s+/.test(line)) {
      title = plainText(line.replace(/^#+\s+/, ''));
      continue;
    }
    const prose = line !== '' && !/^(#|!\[|\[!\[|<|>|\||[-*+]\s|\d+\.\s|---|===)/.test(line);
    if (prose) paragraph.push(line);
    else if (paragraph.length > 0) break;
    if (line === '' && paragraph.length > 0) break;
  }
  const summary = paragraph.length === 0 ? undefined : firstSentence(plainText(paragraph.join(' ')));
  return { ...(title === undefined || title === '' ? {} : { title }), ...(summary === undefined || summary === '' ? {} : { summary }) };
}

/** Markdown links, emphasis and code marks removed, whitespace collapsed. */
function plainText(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function firstSentence(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const end = oneLine.search(/[.!?](\s|$)/);
  return end < 0 ? oneLine : oneLine.slice(0, end + 1);
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/**
 * The SPDX id of a well-known license text, or undefined. Only texts recognised with certainty
 * are named; anything else is left for the publisher to state.
 */
export function detectLicense(text: string): string | undefined {
  const t = text.replace(/\s+/g, ' ');
  if (/Apache License,? Version 2\.0/i.test(t)) return 'Apache-2.0';
  if (/Permission is hereby granted, free of charge, to any person obtaining a copy/i.test(t)) return 'MIT';
  if (/Mozilla Public License,? (Version|v\.?) ?2\.0/i.test(t)) return 'MPL-2.0';
  if (/This is free and unencumbered software released into the public domain/i.test(t)) return 'Unlicense';
  if (/Permission to use, copy, modify, and\/or distribute this software for any purpose with or without fee/i.test(t)) return 'ISC';
  if (/Redistribution and use in source and binary forms/i.test(t)) {
    return /Neither the name/i.test(t) ? 'BSD-3-Clause' : 'BSD-2-Clause';
  }
  if (/GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3/i.test(t)) return 'AGPL-3.0-only';
  if (/GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3/i.test(t)) return 'LGPL-3.0-only';
  if (/GNU GENERAL PUBLIC LICENSE\s+Version 3/i.test(t)) return 'GPL-3.0-only';
  if (/GNU GENERAL PUBLIC LICENSE\s+Version 2/i.test(t)) return 'GPL-2.0-only';
  if (/CC0 1\.0 Universal/i.test(t)) return 'CC0-1.0';
  if (/Attribution 4\.0 International/i.test(t) && !/NonCommercial|ShareAlike|NoDerivatives/i.test(t)) return 'CC-BY-4.0';
  return undefined;
}

// ---------------------------------------------------------------- programs in skills

/** Extensions of files an agent can run as programs (scripts and native executables). */
const PROGRAM_EXTENSIONS = new Set([
  'sh',
  'bash',
  'zsh',
  'fish',
  'ksh',
  'py',
  'js',
  'mjs',
  'cjs',
  'ts',
  'mts',
  'cts',
  'rb',
  'pl',
  'php',
  'lua',
  'r',
  'ps1',
  'psm1',
  'bat',
  'cmd',
  'exe',
  'com',
  'jar',
  'swift',
  'go',
]);
/** Folders whose every file is there to be run. */
const PROGRAM_FOLDERS = new Set(['scripts', 'bin']);

/** Whether a file inside a skill folder is a program an agent may run: executable, a script, or in scripts/ or bin/. */
export function isSkillProgram(relativePath: string, executable: boolean): boolean {
  if (executable) return true;
  const segments = relativePath.split('/');
  if (segments.slice(0, -1).some((s) => PROGRAM_FOLDERS.has(s))) return true;
  const name = segments.at(-1) ?? '';
  const dot = name.lastIndexOf('.');
  return dot > 0 && PROGRAM_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** A skill and the programs it ships (paths relative to the skill folder). */
export interface SkillPrograms {
  /** The skill's folder name. */
  skill: string;
  /** The programs it ships, relative to its folder. */
  programs: string[];
}

/**
 * Per skill, the files an agent may run outside any sandbox, for the plan to say so (docs/ui.md "Skills
 * that ship programs say so here too"). Skills without programs
 * are left out. Tools are not skills: their programs run in the sandbox and are not listed here.
 */
export function skillProgramsOf(
  manifest: Pick<Manifest, 'skills' | 'files'>,
  files: readonly Pick<FileEntry, 'path' | 'executable'>[] = manifest.files,
): SkillPrograms[] {
  const out: SkillPrograms[] = [];
  for (const skill of manifest.skills ?? []) {
    const prefix = `${skill.path}/`;
    const programs = files
      .filter((f) => f.path.startsWith(prefix))
      .map((f) => ({ rel: f.path.slice(prefix.length), executable: f.executable === true }))
      .filter((f) => f.rel !== 'SKILL.md' && isSkillProgram(f.rel, f.executable))
      .map((f) => f.rel);
    if (programs.length > 0) out.push({ skill: skill.path.split('/').pop() ?? skill.path, programs });
  }
  return out;
}

/** "brainstorming contains 3 programs your agent may run on your computer with your permissions". */
export function skillProgramsSentence(entry: { skill: string; programs: readonly string[] }): string {
  const n = entry.programs.length;
  return `${entry.skill} contains ${n} program${n === 1 ? '' : 's'} your agent may run on your computer with your permissions`;
}

// ---------------------------------------------------------------- files that should not ship

/** A file of a skills repository that should not be packaged as it is (a Git LFS pointer, a likely secret). */
export interface SourceWarning {
  /** `lfs-pointer`: a Git LFS pointer, not the file's content; `secret`: the file looks like a key or a password. */
  kind: 'lfs-pointer' | 'secret';
  /** Package path of the file. */
  path: string;
  /** What was found and what to do, in a sentence. */
  message: string;
}

const LFS_POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\r?\noid sha256:[0-9a-f]{64}\r?\nsize \d+\r?\n?/;
/** Git LFS pointer files are at most a few hundred bytes. */
const LFS_POINTER_MAX = 1024;

/** File names that usually hold credentials. */
const SECRET_NAMES: Array<[RegExp, string]> = [
  [/^\.env(?!\.(example|sample|template|dist)$)(\..+)?$/, 'an environment file'],
  [/^id_(rsa|dsa|ecdsa|ed25519)$/, 'an SSH private key'],
  [/\.(pem|key|p12|pfx|jks|keystore)$/i, 'a private key or certificate store'],
  [/^(credentials|client_secret[^/]*|service[-_]account[^/]*)\.json$/i, 'a credentials file'],
  [/^\.(npmrc|pypirc|netrc|git-credentials)$/, 'a file that often holds tokens'],
];
/**
 * Contents that are credentials whatever the file is called. Private keys and signing key files
 * are not here: secret-scan.ts refuses those outright.
 */
const SECRET_CONTENTS: Array<[RegExp, string]> = [
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}/, 'a GitHub token'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  // OpenAI and Anthropic style keys; a long kebab-case word is not one (it needs a digit and a capital).
  [/\bsk-(?:proj-|ant-[a-z0-9]+-)?(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}/, 'an API secret key'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/, 'a Google API key'],
];

/**
 * Warnings (not refusals) for one source file: a Git LFS pointer instead of the real
 * content (the repository was cloned without `git lfs pull`), or a file that looks like a secret.
 * `bytes` is the content when the builder read it whole (small files); names are checked always.
 */
export function sourceFileWarnings(path: string, size: number, bytes: Uint8Array | null): SourceWarning[] {
  const warnings: SourceWarning[] = [];
  const name = basename(path);
  let text: string | null = null;
  if (bytes !== null) text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (text !== null && size <= LFS_POINTER_MAX && LFS_POINTER.test(text)) {
    warnings.push({
      kind: 'lfs-pointer',
      path,
      message: `${path} is a Git LFS pointer, not the file itself; run "git lfs pull" in the repository and build again`,
    });
  }
  const named = SECRET_NAMES.find(([pattern]) => pattern.test(name));
  const found = text === null ? undefined : SECRET_CONTENTS.find(([pattern]) => pattern.test(text));
  if (named !== undefined || found !== undefined) {
    const what = found?.[1] ?? named?.[1] ?? 'a secret';
    warnings.push({
      kind: 'secret',
      path,
      message: `${path} looks like ${what}; anyone who installs the package can read it: remove it or list it in ${ADCAPIGNORE_FILE}`,
    });
  }
  return warnings;
}
