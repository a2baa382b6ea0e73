/**
 * Whether an agent is on this machine (docs/skills.md): its program is on PATH, or its own configuration
 * file exists under the user's home. A skills folder is never evidence (Arcotheon may have made it
 * with a link). And, for the agents present, which personal skills folders to link into so that each
 * reads every skill once: a folder several agents read (~/.agents/skills) serves them with one link.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { AGENTS, userHomeOf, type AgentDefinition, type AgentId } from './agents.js';

export interface AgentPresence {
  agent: AgentDefinition;
  present: boolean;
  /** What showed it: "the program claude on PATH" or "its configuration ~/.claude.json". */
  evidence?: string;
}

/** Where to look for agents: the user's home (their configuration files) and the PATH (their programs). */
export interface PresenceOptions {
  /** The user's home folder (default $HOME). */
  userHome?: string;
  /** The PATH to search (default: this process's). */
  path?: string;
  /** The platform whose PATH rules apply (default this process's). */
  platform?: NodeJS.Platform;
  /** PATHEXT on Windows. */
  pathExt?: string;
}

async function isExecutableFile(path: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    if (platform !== 'win32') await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `program` on PATH, or null. */
export async function findProgram(program: string, options: PresenceOptions = {}): Promise<string | null> {
  const platform = options.platform ?? process.platform;
  const dirs = (options.path ?? process.env.PATH ?? '').split(platform === 'win32' ? ';' : delimiter).filter((d) => d !== '');
  const exts =
    platform === 'win32' ? (options.pathExt ?? process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter((e) => e !== '') : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, program + ext);
      if (await isExecutableFile(candidate, platform)) return candidate;
    }
  }
  return null;
}

export async function agentPresence(agent: AgentDefinition, options: PresenceOptions = {}): Promise<AgentPresence> {
  for (const program of agent.programs) {
    const found = await findProgram(program, options);
    if (found !== null) return { agent, present: true, evidence: `the program ${program} on PATH (${found})` };
  }
  const home = userHomeOf(options.userHome);
  for (const file of agent.configFiles) {
    const path = join(home, ...file.split('/'));
    if (
      await stat(path).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return { agent, present: true, evidence: `its configuration ${path}` };
  }
  return { agent, present: false };
}

export async function detectAgents(options: PresenceOptions = {}): Promise<AgentPresence[]> {
  return Promise.all(AGENTS.map((agent) => agentPresence(agent, options)));
}

/** A personal skills folder to link into, the agent its link records name, and every present agent that reads it. */
export interface LinkFolder {
  /** Relative to the user's home, e.g. ".agents/skills". */
  folder: string;
  agent: AgentId;
  serves: AgentId[];
}

/**
 * The fewest folders that reach every agent in `agents` (a greedy set cover, in table order on ties):
 * each agent then reads each linked skill exactly once, never twice from two folders it reads.
 */
export function linkFolders(agents: readonly AgentDefinition[]): LinkFolder[] {
  const left = new Set(agents.map((a) => a.id));
  const out: LinkFolder[] = [];
  while (left.size > 0) {
    let best: { folder: string; serves: AgentId[] } | undefined;
    for (const agent of agents) {
      if (!left.has(agent.id)) continue;
      for (const folder of agent.personal) {
        const serves = agents.filter((a) => left.has(a.id) && a.personal.includes(folder)).map((a) => a.id);
        if (best === undefined || serves.length > best.serves.length) best = { folder, serves };
      }
    }
    if (best === undefined) break;
    const chosen = best;
    // The link record names an agent whose first folder this is when there is one (its own folder).
    const owner =
      agents.find((a) => chosen.serves.includes(a.id) && a.personal[0] === chosen.folder) ??
      agents.find((a) => chosen.serves.includes(a.id));
    out.push({ folder: chosen.folder, agent: (owner as AgentDefinition).id, serves: chosen.serves });
    for (const id of chosen.serves) left.delete(id);
  }
  return out;
}
