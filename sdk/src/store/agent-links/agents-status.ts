/** What `arc.agents()` reports (issue 13): each agent of the table, whether it is present, and its links. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENTS, agentSkillDir, userHomeOf, type AgentId } from './agents.js';
import { linkStatuses } from './on-disk.js';
import type { LinkStatus, LinkStore } from './records.js';

export interface AgentStatus {
  id: AgentId;
  name: string;
  /** Whether the agent looks set up for this user (its folder exists under home). */
  present: boolean;
  /** Where the agent reads personal skills (absolute). */
  skillDirs: string[];
  /** Where `link` puts personal links. */
  linkDir: string;
  /** Project skills folders, relative to a project. */
  projectDirs: string[];
  docs: string;
  links: LinkStatus[];
}

/** `arc.agents()`: the agents of the table, whether each is present, and every link Arcotheon made. */
export async function agentsStatus(arc: LinkStore, options: { userHome?: string } = {}): Promise<AgentStatus[]> {
  const home = userHomeOf(options.userHome);
  const links = await linkStatuses(arc);
  const out: AgentStatus[] = [];
  for (const agent of AGENTS) {
    const dirs = [...agent.markers, ...agent.personal].map((d) => join(home, ...d.split('/')));
    let present = false;
    for (const dir of dirs)
      if (
        await stat(dir).then(
          (s) => s.isDirectory(),
          () => false,
        )
      )
        present = true;
    out.push({
      id: agent.id,
      name: agent.name,
      present,
      skillDirs: agent.personal.map((d) => join(home, ...d.split('/'))),
      linkDir: agentSkillDir(agent, { userHome: home }),
      projectDirs: [...agent.project],
      docs: agent.docs,
      links: links.filter((l) => l.agent === agent.id),
    });
  }
  return out;
}
