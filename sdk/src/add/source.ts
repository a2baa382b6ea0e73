/**
 * Where `adcap add` takes a capability from (docs/skills.md), as a reusable step: `parseSource` reads what
 * the user typed, `fetchSource` brings it onto this machine (a git fetch at one pinned commit, or the
 * local folder or file as it is). Other importers (an MCP Bundle, ...) add a kind here.
 *
 * Accepted: a local folder; a `.adcap` file; a git URL (`https://…`, `ssh://…`, `git@host:path`,
 * `file://…`), optionally `#ref`; a GitHub page URL `https://github.com/<owner>/<repo>/tree/<ref>/<path>`;
 * `owner/repo` (GitHub shorthand) and `owner/repo/path/to/skill`.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { AdcapError } from '../errors.js';
import { toIdPart } from '../util/capability-id.js';
import { removeTree } from '../util/fs-tree.js';
import { fetchCommit } from './git.js';

export type SourceSpec =
  | { kind: 'folder'; path: string; display: string }
  | { kind: 'adcap'; file: string; display: string }
  | {
      kind: 'git';
      url: string;
      /** Branch, tag or commit; absent: the default branch. */
      ref?: string;
      /** A folder inside the repository. */
      path?: string;
      display: string;
      /** The owner and repository names, when the URL has them (for the capability id). */
      owner?: string;
      repo?: string;
    };

export interface ParseSourceOptions {
  cwd: string;
  /** Where `owner/repo` points (default https://github.com/); tests point it at local repositories. */
  githubBase?: string;
}

const DEFAULT_GITHUB = 'https://github.com/';
const NAME = /^[A-Za-z0-9_.-]+$/;

/** What the user typed, read as a source; E_USAGE naming the accepted forms when it is none of them. */
export function parseSource(text: string, options: ParseSourceOptions): SourceSpec {
  const raw = text.trim();
  if (raw === '') throw usage(text);
  const github = options.githubBase ?? DEFAULT_GITHUB;
  const local = resolve(options.cwd, raw);
  if (/\.adcap$/i.test(raw) && !/^[a-z]+:\/\//i.test(raw)) return { kind: 'adcap', file: local, display: local };
  const hash = raw.lastIndexOf('#');
  const [body, ref] = hash > 0 && /^[a-z]+:\/\/|^git@/i.test(raw) ? [raw.slice(0, hash), raw.slice(hash + 1)] : [raw, undefined];
  if (ref !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(ref)) throw usage(text);
  const tree = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/tree\/([^/]+)(?:\/(.+?))?\/?$/.exec(body);
  if (tree !== null) {
    const [, owner, repo, treeRef, path] = tree as unknown as [string, string, string, string, string | undefined];
    return gitSpec(`${DEFAULT_GITHUB}${owner}/${repo}.git`, raw, owner, repo, treeRef, path);
  }
  if (/^(https|ssh|file|git):\/\//i.test(body) || /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/.test(body)) {
    if (/^git:\/\//i.test(body)) throw new AdcapError('E_USAGE', `${raw}: the git:// protocol is not encrypted; use the https:// address.`);
    const parts = body
      .replace(/^[a-z]+:\/\/[^/]*\/?|^[^@]+@[^:]+:/i, '')
      .replace(/\.git\/?$/, '')
      .split('/')
      .filter((p) => p !== '');
    return gitSpec(body, raw, parts.at(-2), parts.at(-1), ref, undefined);
  }
  if (/^http:\/\//i.test(body)) throw new AdcapError('E_USAGE', `${raw}: plain http is not accepted; use the https:// address.`);
  const looksLocal = raw.startsWith('.') || raw.startsWith('/') || raw.startsWith('~') || isAbsolute(raw);
  if (looksLocal || existsSync(local)) {
    if (!existsSync(local))
      throw new AdcapError('E_NOT_FOUND', `${local} does not exist; name a folder of skills, a .adcap file or a repository.`);
    if (!statSync(local).isDirectory()) throw new AdcapError('E_USAGE', `${local} is a file; name a folder of skills or a .adcap file.`);
    return { kind: 'folder', path: local, display: local };
  }
  const segments = raw.split('/');
  if (segments.length >= 2 && segments.every((s) => NAME.test(s) && s !== '.' && s !== '..')) {
    const [owner, repo, ...rest] = segments as [string, string, ...string[]];
    const base = github.endsWith('/') ? github : `${github}/`;
    return gitSpec(`${base}${owner}/${repo}.git`, raw, owner, repo, undefined, rest.length === 0 ? undefined : rest.join('/'));
  }
  throw usage(text);
}

function gitSpec(
  url: string,
  display: string,
  owner: string | undefined,
  repo: string | undefined,
  ref: string | undefined,
  path: string | undefined,
): SourceSpec {
  if (path !== undefined && path.split('/').some((s) => s === '..' || s === '.' || s === ''))
    throw new AdcapError('E_USAGE', `${display}: the folder inside the repository may not contain "." or ".." segments.`);
  return {
    kind: 'git',
    url,
    display,
    ...(ref === undefined ? {} : { ref }),
    ...(path === undefined ? {} : { path }),
    ...(owner === undefined ? {} : { owner }),
    ...(repo === undefined ? {} : { repo }),
  };
}

function usage(text: string): AdcapError {
  return new AdcapError(
    'E_USAGE',
    `${JSON.stringify(text)} is not a source adcap add knows: name a folder, a .adcap file, a git URL (https://, ssh://, ` +
      'git@host:path, file://, optionally #ref), or a GitHub repository as owner/repo or owner/repo/path/to/skill.',
  );
}

/** A source brought onto this machine: the folder to read (`root`, and `path` inside it) and, for git, the commit. */
export interface FetchedSource {
  spec: SourceSpec;
  /** The repository or folder root (for an .adcap file: its folder). */
  root: string;
  /** The folder inside root to take skills from ('' for root). */
  path: string;
  commit?: string;
  /** Removes what the fetch made (the clone); the user's folder is never touched. */
  dispose(): Promise<void>;
}

/**
 * Brings `spec` here: a git source is fetched at depth 1 (at `ref`, or `pin` when given: the
 * commit an earlier add recorded) into a new temporary folder; a folder or file is used in place.
 */
export async function fetchSource(spec: SourceSpec, options: { pin?: string; tempDir?: string } = {}): Promise<FetchedSource> {
  if (spec.kind === 'adcap') {
    if (!existsSync(spec.file)) throw new AdcapError('E_NOT_FOUND', `${spec.file} does not exist.`);
    return { spec, root: resolve(spec.file, '..'), path: '', dispose: async () => undefined };
  }
  if (spec.kind === 'folder') return { spec, root: spec.path, path: '', dispose: async () => undefined };
  const work = await mkdtemp(join(options.tempDir ?? tmpdir(), 'adcap-add-'));
  const dispose = (): Promise<void> => removeTree(work);
  try {
    const { commit } = await fetchCommit(spec.url, options.pin ?? spec.ref, join(work, 'repo'));
    const root = join(work, 'repo');
    if (spec.path !== undefined && !existsSync(join(root, ...spec.path.split('/'))))
      throw new AdcapError('E_NOT_FOUND', `${spec.url} has no folder ${spec.path} at commit ${commit}; nothing was added.`);
    return { spec, root, path: spec.path ?? '', commit, dispose };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw error;
  }
}

/** The capability id `adcap add` gives a source: `owner/repo` for a repository, `local/<folder>` for a folder. */
export function suggestedId(spec: SourceSpec, onlySkill?: string): string {
  const part = (text: string | undefined, fallback: string): string => (text === undefined ? fallback : toIdPart(text, fallback));
  if (spec.kind === 'git') {
    const owner = part(spec.owner, 'git');
    const repo = part(spec.repo, 'skills');
    if (onlySkill !== undefined) return `${owner}/${part(onlySkill, repo)}`;
    return `${owner}/${repo}`;
  }
  const name = spec.kind === 'folder' ? basename(spec.path) : basename(spec.file).replace(/\.adcap$/i, '');
  return `local/${onlySkill === undefined ? part(name, 'skills') : part(onlySkill, 'skills')}`;
}
