/**
 * Whether an agent is on this machine (docs/skills.md): its program is on PATH, its own configuration
 * file exists under the user's home, or (an editor extension) its VS Code extension is installed. A
 * skills folder is never evidence (Arcotheon may have made it with a link). And, for the agents
 * present, which personal skills folders to link into so that each reads every skill once: a folder
 * several agents read (~/.agents/skills) serves them with one link.
 */
import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
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

/** VS Code's per-user extensions folders, relative to the home: the desktop app, Insiders, and the remote server. */
const EXTENSION_ROOTS = ['.vscode/extensions', '.vscode-insiders/extensions', '.vscode-server/extensions'];

/** The installed VS Code extension folders (`publisher.name-version`), each with its path, read once per detection. */
async function extensionFolders(home: string): Promise<Array<{ name: string; path: string }>> {
  const out: Array<{ name: string; path: string }> = [];
  for (const root of EXTENSION_ROOTS) {
    const dir = join(home, ...root.split('/'));
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) out.push({ name: e.name.toLowerCase(), path: join(dir, e.name) });
  }
  return out;
}

export async function agentPresence(
  agent: AgentDefinition,
  options: PresenceOptions = {},
  installedExtensions?: Array<{ name: string; path: string }>,
): Promise<AgentPresence> {
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
  if (agent.extensions !== undefined && agent.extensions.length > 0) {
    const folders = installedExtensions ?? (await extensionFolders(home));
    for (const id of agent.extensions) {
      // A folder `<publisher.name>-<version>`: the id, a hyphen, then a digit.
      const found = folders.find((f) => f.name.startsWith(`${id.toLowerCase()}-`) && /^\d/.test(f.name.slice(id.length + 1)));
      if (found !== undefined) return { agent, present: true, evidence: `its VS Code extension ${found.path}` };
    }
  }
  return { agent, present: false };
}

export async function detectAgents(options: PresenceOptions = {}): Promise<AgentPresence[]> {
  const extensions = await extensionFolders(userHomeOf(options.userHome));
  return Promise.all(AGENTS.map((agent) => agentPresence(agent, options, extensions)));
}

/** A personal skills folder to link into, the agent its link records name, and every present agent that reads it. */
export interface LinkFolder {
  /** Relative to the user's home, e.g. ".agents/skills". */
  folder: string;
  agent: AgentId;
  serves: AgentId[];
}

/**
 * The folders to link into for the agents in `agents` (docs/skills.md "Agents"): each agent reads every
 * linked skill exactly once, and as few folders as that allows. An exact cover is searched first (each
 * agent reads exactly one chosen folder; Copilot with Claude Code and Codex: ~/.claude/skills for Claude
 * Code and Copilot, ~/.codex/skills for Codex, not ~/.agents/skills, which Copilot reads too); ties go
 * to table order and each agent's own folder order. When no exact cover exists, the fewest folders that
 * reach everyone (a greedy set cover), where some agent then finds a skill in two folders.
 */
export function linkFolders(agents: readonly AgentDefinition[]): LinkFolder[] {
  return (exactCover(agents) ?? greedyCover(agents)).map(({ folder, serves }) => {
    // The link record names an agent whose first folder this is when there is one (its own folder).
    const owner = agents.find((a) => serves.includes(a.id) && a.personal[0] === folder) ?? agents.find((a) => serves.includes(a.id));
    return { folder, agent: (owner as AgentDefinition).id, serves };
  });
}

type Choice = { folder: string; serves: AgentId[] };

const readers = (agents: readonly AgentDefinition[], folder: string): AgentId[] =>
  agents.filter((a) => a.personal.includes(folder)).map((a) => a.id);

/** The fewest folders such that every agent reads exactly one of them, or undefined (15 agents, 3 folders each at most: a small search). */
function exactCover(agents: readonly AgentDefinition[]): Choice[] | undefined {
  let best: Choice[] | undefined;
  const search = (covered: ReadonlySet<AgentId>, chosen: Choice[]): void => {
    if (best !== undefined && chosen.length >= best.length) return;
    const next = agents.find((a) => !covered.has(a.id));
    if (next === undefined) {
      best = chosen;
      return;
    }
    for (const folder of next.personal) {
      const serves = readers(agents, folder);
      if (serves.some((id) => covered.has(id))) continue;
      search(new Set([...covered, ...serves]), [...chosen, { folder, serves }]);
    }
  };
  search(new Set(), []);
  return best;
}

/** The fewest folders that reach every agent (greedy, table order on ties), some agent possibly reading two. */
function greedyCover(agents: readonly AgentDefinition[]): Choice[] {
  const left = new Set(agents.map((a) => a.id));
  const out: Choice[] = [];
  while (left.size > 0) {
    let best: Choice | undefined;
    for (const agent of agents) {
      if (!left.has(agent.id)) continue;
      for (const folder of agent.personal) {
        const serves = readers(agents, folder).filter((id) => left.has(id));
        if (best === undefined || serves.length > best.serves.length) best = { folder, serves };
      }
    }
    if (best === undefined) break;
    out.push({ folder: best.folder, serves: readers(agents, best.folder) });
    for (const id of best.serves) left.delete(id);
  }
  return out;
}
