/**
 * Skills linked into the agents a user has. The table in agents.ts says where each agent reads
 * personal and project skills; `linkSkills` puts each skill of an installed capability there as a
 * symbolic link to the skill folder of the active installed version (a copy with a marker file
 * where symbolic links cannot be made), and home/links.json records what Arcotheon made, so that
 * update and rollback move the links with the active version, uninstall removes them, unlink
 * removes only what Arcotheon made, and doctor finds links that point nowhere or at an old version.
 *
 * Nothing that Arcotheon did not make is ever changed: a folder of the same name (the user's own
 * skill, or another capability's link) is a collision, reported with a choice (E_CONFLICT).
 *
 * This module links and unlinks on request. Beside it: agents.ts (the agents, their skill folders and
 * MCP registrations), records.ts (home/links.json), link-writer.ts (making and removing a link),
 * on-disk.ts (whether a link is still Arcotheon's, and its state), sync-links.ts (moving links with
 * the active version), suspend-links.ts (disable and enable), agents-status.ts and check-links.ts
 * (what `arc.agents()` and doctor report).
 */
import { lstat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { reasonError } from '../../surface-text.js';
import { AdcapError } from '../../errors.js';
import { isIdPart } from '../../util/capability-id.js';
import type { InstalledView } from '../store-view.js';
import { agentDefinition, agentSkillDir, shellQuote, type AgentDefinition, type AgentId } from './agents.js';
import { lastSegment, placeLink, removeOurs } from './link-writer.js';
import { onDisk, skillTarget } from './on-disk.js';
import { missingFolders, pruneMadeFolders, recordMadeFolders } from './made-folders.js';
import { readLinks, writeLinks, type LinkRecord, type LinkStore } from './records.js';

/** Options of `Arcotheon.linkSkills()`: the agent, and a project folder instead of the personal one. */
export interface LinkOptions {
  /** The id of the agent to link into (one of AGENT_IDS); E_USAGE for another. */
  agent: string;
  /** Link into this project's skills folder instead of the personal one. */
  project?: string;
  /** The user's home folder (default $HOME, else the OS's idea of it). */
  userHome?: string;
  /** skill name -> folder name to link it as (to resolve a collision). */
  as?: Record<string, string>;
  /** Skills to leave out. */
  skip?: string[];
  /** "copy" forces copies with a marker file; "auto" (default) makes symbolic links and copies only where that fails. */
  mode?: 'auto' | 'copy';
  /** docs/skills.md: another personal folder the agent reads (e.g. ".agents/skills"), to serve several agents with one link. */
  folder?: string;
}

/** What `Arcotheon.linkSkills()` linked, and where. */
export interface LinkResult {
  /** The capability whose skills were linked. */
  id: string;
  /** The agent linked into. */
  agent: AgentId;
  /** The skills folder the links were made in. */
  dir: string;
  /** Each skill linked: its name, the link's path, and whether it is a symbolic link or a marked copy. */
  linked: Array<{ skill: string; path: string; mode: 'symlink' | 'copy' }>;
}

/** What `Arcotheon.unlinkSkills()` removed. */
export interface UnlinkResult {
  /** The capability whose links were removed. */
  id: string;
  /** The paths of the links removed. */
  removed: string[];
  /** Recorded links that are no longer Arcotheon's (the user replaced them): left alone, forgotten. */
  kept: string[];
}

/** `arc.linkSkills`: the caller holds the home lock. */
export async function linkSkillsLocked(arc: InstalledView, id: string, options: LinkOptions): Promise<LinkResult> {
  const agent = agentDefinition(options.agent);
  const state = await arc.state(id);
  // A disabled capability's skills stay out of the agents until it is enabled again.
  if (state.disabled !== undefined) {
    throw reasonError('disabled-not-linked', { id });
  }
  const manifest = await arc.readInstalledManifest(id, state.active);
  const skills = (manifest.skills ?? []).map((s) => lastSegment(s.path));
  if (skills.length === 0)
    throw new AdcapError(
      'E_NOT_FOUND',
      `${id} has no skills to link; it brings ` +
        `${(manifest.tools ?? []).length > 0 ? 'tools (register them with "adcap agents --mcp ' + id + '")' : 'no skills'}.`,
    );
  for (const name of [...Object.keys(options.as ?? {}), ...(options.skip ?? [])]) {
    if (!skills.includes(name))
      throw new AdcapError('E_USAGE', `${id} has no skill named ${JSON.stringify(name)}; its skills are ${skills.join(', ')}.`);
  }
  const dir = agentSkillDir(agent, options);
  const scope: LinkRecord['scope'] = options.project === undefined ? 'user' : 'project';
  const links = await readLinks(arc);
  const wanted = skills
    .filter((s) => !(options.skip ?? []).includes(s))
    .map((skill) => {
      const as = options.as?.[skill] ?? skill;
      if (!isIdPart(as))
        throw new AdcapError(
          'E_USAGE',
          `--as ${skill}=${as}: a skill folder name is lowercase letters, digits and single hyphens, at most 64 characters.`,
        );
      return { skill, as, path: join(dir, as) };
    });
  const paths = new Set<string>();
  for (const w of wanted) {
    if (paths.has(w.path))
      throw new AdcapError('E_USAGE', `Two skills of ${id} would be linked as ${w.as}; give them different names with --as.`);
    paths.add(w.path);
  }

  // Collisions first: nothing is linked unless every skill has a free (or its own) place.
  const collisions: Array<{ skill: string; path: string; owner: string }> = [];
  for (const w of wanted) {
    const recorded = links.find((l) => l.path === w.path);
    if (recorded !== undefined && (await onDisk(arc, recorded)).ours) {
      if (recorded.id === id && recorded.skill === w.skill) continue;
      collisions.push({ skill: w.skill, path: w.path, owner: recorded.id });
      continue;
    }
    if (
      !(await lstat(w.path).then(
        () => true,
        () => false,
      ))
    )
      continue;
    // An unrecorded link of this very skill (made just before a crash) is Arcotheon's: adopt it.
    const probe: LinkRecord = {
      id,
      skill: w.skill,
      as: w.as,
      agent: agent.id,
      scope,
      path: w.path,
      mode: 'symlink',
      version: state.active,
      linkedAt: '',
    };
    if ((await onDisk(arc, probe)).ours) continue;
    collisions.push({ skill: w.skill, path: w.path, owner: 'user' });
  }
  if (collisions.length > 0) throw conflictError(id, agent, dir, collisions, options.project);

  // docs/skills.md: the folders this link makes are recorded, so unlink removes them again when empty.
  await recordMadeFolders(arc, await missingFolders(dir));
  const now = new Date().toISOString();
  const kept = links.filter((l) => !paths.has(l.path));
  const intended: LinkRecord[] = wanted.map((w) => ({
    id,
    skill: w.skill,
    as: w.as,
    agent: agent.id,
    scope,
    ...(options.project === undefined ? {} : { project: resolve(options.project) }),
    path: w.path,
    // spec §3.1 (name = folder) holds in the agent's folder too: a skill linked under another
    // name is a copy whose SKILL.md carries that name (docs/skills.md "Agents").
    mode: options.mode === 'copy' || w.as !== w.skill ? 'copy' : 'symlink',
    version: state.active,
    linkedAt: now,
  }));
  // Recorded before the links are made: a crash in between leaves records of missing links
  // (doctor forgets them), never a link nobody knows Arcotheon made.
  await writeLinks(arc, [...kept, ...intended]);
  const made: LinkRecord[] = [];
  try {
    for (const record of intended) {
      const target = skillTarget(arc, id, state.active, manifest, record.skill) as string;
      const mode = await placeLink(
        record.path,
        target,
        { id, skill: record.skill, as: record.as, version: state.active },
        record.mode === 'copy' ? 'copy' : (options.mode ?? 'auto'),
      );
      made.push({ ...record, mode });
    }
  } catch (error) {
    await writeLinks(arc, [...kept, ...made]).catch(() => undefined);
    throw error;
  }
  if (made.some((r, i) => r.mode !== intended[i]?.mode)) await writeLinks(arc, [...kept, ...made]);
  const linked: LinkResult['linked'] = made.map((r) => ({ skill: r.skill, path: r.path, mode: r.mode }));
  return { id, agent: agent.id, dir, linked };
}

function conflictError(
  id: string,
  agent: AgentDefinition,
  dir: string,
  collisions: Array<{ skill: string; path: string; owner: string }>,
  project: string | undefined,
): AdcapError {
  const projectFlag = project === undefined ? '' : ` --project ${shellQuote(project)}`;
  const what = collisions
    .map((c) => `${c.skill} (${c.owner === 'user' ? `${c.path} is a folder Arcotheon did not make` : `${c.path} is ${c.owner}'s skill`})`)
    .join(', ');
  const others = [...new Set(collisions.filter((c) => c.owner !== 'user').map((c) => c.owner))];
  const first = collisions[0]?.skill ?? 'skill';
  const options = [
    `--as ${first}=<other-name> to link it under another folder name`,
    `--skip ${first} to leave it out`,
    ...others.map((other) => `"adcap unlink ${other} --agent ${agent.id}${projectFlag}" to remove the other capability's link first`),
  ];
  return new AdcapError(
    'E_CONFLICT',
    `Cannot link ${id} into ${agent.name} (${dir}): ` +
      `${collisions.length === 1 ? 'this skill is' : 'these skills are'} already there: ${what}. ` +
      `Nothing was linked or overwritten; choose ${options.join(', or ')}.`,
    {
      details: { collisions, options: ['as', 'skip', ...(others.length > 0 ? ['unlink'] : [])] },
    },
  );
}

/** `arc.unlinkSkills`: removes the links Arcotheon made for `id` (for one agent, or all), nothing else. */
export async function unlinkSkillsLocked(
  arc: LinkStore,
  id: string,
  options: { agent?: string; project?: string } = {},
): Promise<UnlinkResult> {
  const agent = options.agent === undefined ? undefined : agentDefinition(options.agent).id;
  const project = options.project === undefined ? undefined : resolve(options.project);
  const links = await readLinks(arc);
  const matches = (l: LinkRecord): boolean =>
    l.id === id && (agent === undefined || l.agent === agent) && (project === undefined || l.project === project);
  const mine = links.filter(matches);
  if (mine.length === 0) {
    throw new AdcapError(
      'E_NOT_FOUND',
      `${id} has no skills linked${agent === undefined ? '' : ` into ${agentDefinition(agent).name}`}` +
        `${project === undefined ? '' : ` in ${project}`}; ` +
        '"adcap agents" lists what is linked where.',
    );
  }
  const removed: string[] = [];
  const kept: string[] = [];
  for (const record of mine) {
    if ((await onDisk(arc, record)).ours) {
      await removeOurs(record);
      removed.push(record.path);
    } else {
      kept.push(record.path);
    }
  }
  await writeLinks(
    arc,
    links.filter((l) => !matches(l)),
  );
  await pruneMadeFolders(arc);
  return { id, removed, kept };
}
