/** What `arc.agents()` reports: each agent of the table, whether it is present, and its links. */
import { join } from 'node:path';
import { agentSkillDir, userHomeOf, type AgentId } from './agents.js';
import { detectAgents, type PresenceOptions } from './presence.js';
import { linkStatuses } from './on-disk.js';
import type { LinkStatus, LinkStore } from './records.js';

/** One agent as `Arcotheon.agents()` reports it: whether it is present, its skills folders and what is linked there. */
export interface AgentStatus {
  /** The agent's id, as `linkSkills({ agent })` takes it. */
  id: AgentId;
  /** The agent's display name, e.g. `Claude Code`. */
  name: string;
  /** Whether the agent is installed: its program on PATH or its own configuration file (docs/skills.md). */
  present: boolean;
  /** What showed it present. */
  evidence?: string;
  /** Where the agent reads personal skills (absolute). */
  skillDirs: string[];
  /** Where `link` puts personal links. */
  linkDir: string;
  /** Project skills folders, relative to a project. */
  projectDirs: string[];
  /** The agent's documentation its skills folders were checked against (a URL). */
  docs: string;
  /** The links Arcotheon made into this agent's folders, with their state. */
  links: LinkStatus[];
}

/**
 * `arc.agents()`: the agents of the table, whether each is present (the agent itself, not a skills
 * folder: docs/skills.md "Agents"), and every link Arcotheon made.
 */
export async function agentsStatus(arc: LinkStore, options: PresenceOptions = {}): Promise<AgentStatus[]> {
  const home = userHomeOf(options.userHome);
  const links = await linkStatuses(arc);
  const presence = await detectAgents({ ...options, userHome: home });
  return presence.map(({ agent, present, evidence }) => ({
    id: agent.id,
    name: agent.name,
    present,
    ...(evidence === undefined ? {} : { evidence }),
    skillDirs: agent.personal.map((d) => join(home, ...d.split('/'))),
    linkDir: agentSkillDir(agent, { userHome: home }),
    projectDirs: [...agent.project],
    docs: agent.docs,
    links: links.filter((l) => l.agent === agent.id),
  }));
}
