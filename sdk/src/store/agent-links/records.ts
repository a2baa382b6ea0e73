/**
 * home/links.json: the record of every link Arcotheon made, read and written whole.
 * Only what is recorded here is ever moved or removed; anything else in an agent's folder is left alone.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { AdcapError, asAdcapError } from '../../errors.js';
import { parseStrictJson } from '../../format/strict-json.js';
import { writeJsonAtomic } from '../../util/fs-atomic.js';
import type { InstalledView } from '../store-view.js';
import { AGENT_IDS, type AgentId } from './agents.js';

/** What the links read of a home: its layout and installed manifests (store-view.ts). */
export type LinkStore = Pick<InstalledView, 'home' | 'readInstalledManifest'>;

/** One link Arcotheon made, as recorded in home/links.json. */
export interface LinkRecord {
  /** The capability the skill belongs to. */
  id: string;
  /** The skill's name (its folder name in the package). */
  skill: string;
  /** The folder name in the agent's skills folder (the skill's name unless linked with --as). */
  as: string;
  /** The agent whose folder holds the link. */
  agent: AgentId;
  /** `user`: the agent's personal skills folder; `project`: a project's. */
  scope: 'user' | 'project';
  /** The project folder, for project scope. */
  project?: string;
  /** Absolute path of the link in the agent's skills folder. */
  path: string;
  /** A symbolic link, or a copy with a marker file where links cannot be made. */
  mode: 'symlink' | 'copy';
  /** The installed version the link points at. */
  version: string;
  /** When the link was made (ISO 8601, UTC). */
  linkedAt: string;
  /**
   * The capability is disabled, so the link is taken off the agent's folder and kept
   * here to be put back, as it was, when the capability is enabled again.
   */
  suspended?: true;
}

/** The state of one skill link: ok, stale, dangling, missing, replaced by someone else, or suspended. */
export type LinkState = 'ok' | 'stale' | 'dangling' | 'missing' | 'replaced' | 'suspended';

/** One skill link Arcotheon made, with its state now. */
export interface LinkStatus extends LinkRecord {
  /**
   * ok; stale: points at a version that is no longer active; dangling: points nowhere (the
   * capability or version is gone); missing: removed by someone else; replaced: something that is
   * not Arcotheon's is there now (left alone).
   */
  state: LinkState;
}

function linksFile(arc: LinkStore): string {
  return arc.home.linksFile;
}

export async function readLinks(arc: LinkStore): Promise<LinkRecord[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(linksFile(arc));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw asAdcapError(error, `Cannot read ${linksFile(arc)}`);
  }
  const value = parseStrictJson(bytes, linksFile(arc)) as { links?: unknown };
  if (!Array.isArray(value?.links) || !value.links.every(isLinkRecord)) {
    throw new AdcapError(
      'E_JSON',
      `${linksFile(arc)} is damaged; remove it and link the skills again ("adcap link <id> --agent <agent>").`,
    );
  }
  return value.links;
}

export async function writeLinks(arc: LinkStore, links: readonly LinkRecord[]): Promise<void> {
  const sorted = [...links].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await writeJsonAtomic(linksFile(arc), { links: sorted });
}

function isLinkRecord(value: unknown): value is LinkRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === 'string' &&
    typeof v.skill === 'string' &&
    typeof v.as === 'string' &&
    typeof v.agent === 'string' &&
    (AGENT_IDS as readonly string[]).includes(v.agent) &&
    (v.scope === 'user' || v.scope === 'project') &&
    typeof v.path === 'string' &&
    isAbsolute(v.path) &&
    (v.mode === 'symlink' || v.mode === 'copy') &&
    typeof v.version === 'string' &&
    (v.suspended === undefined || v.suspended === true)
  );
}
