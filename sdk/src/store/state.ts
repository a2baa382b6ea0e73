import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { writeJsonAtomic } from '../util/fs-atomic.js';
import { isIdPart } from '../registry/layout.js';
import type { HomeLayout } from './home.js';

/**
 * Where a capability brought in with `adcap add` came from (docs/skills.md): the source as the user named
 * it, the git URL and the commit it was built from (pinned: update fetches again, rollback returns
 * to an earlier commit's package), the folder or skills chosen, and the user's own key that signed it.
 */
export interface AddedOrigin {
  /** The source as the user named it: "obra/superpowers", a git URL, a folder. */
  source: string;
  /**
   * git: fetched with the git program at a commit; folder: a local folder read as it is; mcpb: an
   * MCP Bundle file imported (docs/spec/mcp-runtime.md "MCP Bundles"), `source` naming the file.
   */
  kind: 'git' | 'folder' | 'mcpb';
  /** The git URL fetched (kind git). */
  url?: string;
  /** The branch, tag or commit asked for; absent: the repository's default branch. */
  ref?: string;
  /** The commit the package was built from (kind git). */
  commit?: string;
  /** The folder inside the repository the skills were taken from. */
  path?: string;
  /** Only these skills of the repository (--skill). */
  skills?: string[];
  /** keyId of the user's own publisher key that signed the package. */
  keyId: string;
}

/** Where an installed version came from: a registry remote, or a local file (sideload). */
export type InstallSource =
  | { kind: 'registry'; remote: string; signedBy: string[] }
  | { kind: 'file'; file: string; signedBy: string[]; unsigned: boolean; unknownSigner: boolean; added?: AddedOrigin };

/** One installed version in a capability's state.json: its digests, where it came from and when. */
export interface VersionRecord {
  /** The SHA-256 (hex) of the version's canonical manifest, checked before each run. */
  manifestSha256: string;
  /** The SHA-256 (hex) of the archive it was installed from (kept in the cache for rollback). */
  archiveSha256: string;
  /** That archive's size in bytes. */
  archiveSize: number;
  /** When it was installed (ISO 8601, UTC). */
  installedAt: string;
  /** Where it came from: a registry, or a file. */
  source: InstallSource;
  /** The grants this version ran with, so a rollback restores them. */
  grants: string[];
}

/**
 * packages/<pub>/<name>/state.json (DESIGN §6): `{ active, history, grants, ... }`.
 * `history` lists earlier versions still on disk, oldest first; `grants` are the grants of the
 * active version as `id[:scope]` strings.
 */
export interface PackageState {
  /** The capability id. */
  id: string;
  /** The active version. */
  active: string;
  /** The versions kept, oldest first. */
  history: string[];
  /** The permissions granted, as `id[:scope]` strings. */
  grants: string[];
  /** Each kept version's record. */
  versions: Record<string, VersionRecord>;
  /** Installed because the user asked for it (true) or only as a dependency (false). */
  explicit: boolean;
  /** The range the user asked for (explicit installs); updates stay within it, like npm. */
  range?: string;
  /**
   * Grants the user revoked and has not granted again since: a rollback
   * restores the old version's grants minus these, so a revocation survives going back.
   */
  revoked?: string[];
  /**
   * Set while the capability is switched off: its files, versions, grants and tool data
   * stay; its tools do not run. `by: 'policy'` when the organisation's `blocked` rule did it.
   * Older state files have no such field and read as enabled.
   */
  disabled?: DisabledMark;
  /** When the state last changed (UTC). */
  updatedAt: string;
}

/** Why and since when an installed capability is switched off, and by whom (the user or the policy). */
export interface DisabledMark {
  /** When it was switched off (ISO 8601, UTC). */
  at: string;
  /** Who switched it off: the user, or the organisation policy's `blocked` rule. */
  by: 'user' | 'policy';
  /** With by: 'policy', the policy entry that blocked it (e.g. "acme/tool@<2"). */
  rule?: string;
}

export async function readState(home: HomeLayout, id: string): Promise<PackageState | null> {
  let bytes: Buffer;
  try {
    // A synchronous read: a state file is a few KiB, read before every run (a promise would cost a
    // thread-pool round trip, which on a busy machine is a wait for two threads to be scheduled).
    bytes = readFileSync(home.stateFile(id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AdcapError('E_IO', `Could not read the state of ${id}: ${(error as Error).message}`, { cause: error });
  }
  const value = parseStrictJson(bytes, `The state file of ${id}`);
  if (!isPackageState(value) || value.id !== id) {
    throw new AdcapError('E_JSON', `The state file of ${id} is damaged; run "adcap doctor --fix" to repair it.`, {
      details: { file: home.stateFile(id) },
    });
  }
  return value;
}

export async function writeState(home: HomeLayout, state: PackageState): Promise<void> {
  await writeJsonAtomic(home.stateFile(state.id), { ...state, updatedAt: new Date().toISOString() });
}

function isPackageState(value: unknown): value is PackageState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['id'] === 'string' &&
    typeof v['active'] === 'string' &&
    Array.isArray(v['history']) &&
    v['history'].every((h) => typeof h === 'string') &&
    Array.isArray(v['grants']) &&
    v['grants'].every((g) => typeof g === 'string') &&
    (v['revoked'] === undefined || (Array.isArray(v['revoked']) && v['revoked'].every((g) => typeof g === 'string'))) &&
    typeof v['versions'] === 'object' &&
    v['versions'] !== null &&
    typeof v['explicit'] === 'boolean' &&
    (v['disabled'] === undefined || isDisabledMark(v['disabled']))
  );
}

function isDisabledMark(value: unknown): value is DisabledMark {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['at'] === 'string' &&
    (v['by'] === 'user' || v['by'] === 'policy') &&
    (v['rule'] === undefined || typeof v['rule'] === 'string')
  );
}

/**
 * Ids of the package directories under home/packages (`<pub>/<name>`), sorted; staging and temp
 * entries (dot names) and anything that is not an id are skipped. `withState` keeps only those
 * that have a state.json (installed); doctor wants them all, damaged ones included.
 */
export async function packageIdsOnDisk(home: HomeLayout, options: { withState?: boolean } = {}): Promise<string[]> {
  const ids: string[] = [];
  const list = (dir: string): Promise<string[]> =>
    readdir(dir).then(
      (names) => names.filter(isIdPart).sort(),
      () => [],
    );
  for (const publisher of await list(home.packagesDir)) {
    for (const name of await list(join(home.packagesDir, publisher))) {
      const id = `${publisher}/${name}`;
      if (
        options.withState === true &&
        !(await stat(home.stateFile(id)).then(
          (s) => s.isFile(),
          () => false,
        ))
      )
        continue;
      ids.push(id);
    }
  }
  return ids;
}
