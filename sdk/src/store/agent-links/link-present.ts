/**
 * `add` and `link` without --agent (docs/skills.md): the skills of a capability linked into every agent
 * present on this machine (presence.ts), one link per shared folder, and a clear answer when there
 * is no agent (nothing is linked then).
 */
import { AGENTS, agentDefinition, type AgentId } from './agents.js';
import type { LinkOptions, LinkResult } from './link-skills.js';
import { detectAgents, linkFolders, type PresenceOptions } from './presence.js';

/** What `linkSkillsToPresentAgents` did: the agents it found and the folders it linked into. */
export interface PresentLinkResult {
  /** The capability linked. */
  id: string;
  /** The agents found, with what showed each. */
  present: Array<{ agent: AgentId; name: string; evidence: string }>;
  /** One entry per folder linked into, with every agent that reads it. */
  links: Array<LinkResult & { serves: AgentId[] }>;
}

type Linker = { linkSkills(id: string, options: LinkOptions): Promise<LinkResult> };

/** Links `id` into every present agent; with none present, links nothing and says so in the result (present: []). */
export async function linkIntoPresentAgents(
  arc: Linker,
  id: string,
  options: Omit<LinkOptions, 'agent' | 'folder' | 'project'> & PresenceOptions,
): Promise<PresentLinkResult> {
  const found = (await detectAgents(options)).filter((p) => p.present);
  const present = found.map((p) => ({ agent: p.agent.id, name: p.agent.name, evidence: p.evidence ?? '' }));
  const links: PresentLinkResult['links'] = [];
  for (const folder of linkFolders(found.map((p) => p.agent))) {
    const { path: _path, platform: _platform, pathExt: _pathExt, ...linkOptions } = options;
    const result = await arc.linkSkills(id, { ...linkOptions, agent: folder.agent, folder: folder.folder });
    links.push({ ...result, serves: folder.serves });
  }
  return { id, present, links };
}

/** "Codex, GitHub Copilot and Gemini CLI". */
export function agentNames(ids: readonly AgentId[]): string {
  const names = ids.map((id) => agentDefinition(id).name);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export const KNOWN_AGENTS = AGENTS.map((a) => a.id);
