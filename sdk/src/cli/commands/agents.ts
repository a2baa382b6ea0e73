import type { Command } from 'commander';
import { AdcapError } from '../../errors.js';
import { AGENT_IDS, AGENTS, agentDefinition } from '../../store/agent-links/agents.js';
import { agentNames } from '../../store/agent-links/link-present.js';
import { linkFolders } from '../../store/agent-links/presence.js';
import { storeOf } from '../../store/store-of.js';
import type { AgentStatus } from '../../store/agent-links/agents-status.js';
import type { LinkStatus } from '../../store/agent-links/records.js';
import type { CliContext } from '../context.js';
import { openArcotheon } from '../host.js';
import { presentLines } from './add.js';

/**
 * Skills in every agent: `link <id> --agent <agent>`, `unlink <id>`, and `agents`
 * (which agents are present, what is linked where; `--mcp <id>...` prints, per agent, how to
 * register the granted tools as an MCP server). The agents' folders are found under $HOME.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const userHome = (): string => ctx.io.env.HOME ?? ctx.io.homedir;

  program
    .command('link')
    .description(`link the skills of an installed capability into an agent's skills folder (${AGENT_IDS.join(', ')})`)
    .argument('<id>', 'installed capability id')
    .option('--agent <agent>', `the agent (default: every agent present on this machine): ${AGENT_IDS.join(', ')}`)
    .option('--project <dir>', "link into this project's skills folder (e.g. .claude/skills) instead of your personal one")
    .option('--as <skill=name>', 'link a skill under another folder name, when its name is taken (repeatable)', collect, [] as string[])
    .option('--skip <skill>', 'leave a skill out (repeatable)', collect, [] as string[])
    .option('--copy', 'copy the skill folders (with a marker file) instead of making symbolic links')
    .action(async (id: string, opts: { agent?: string; project?: string; as: string[]; skip: string[]; copy?: boolean }) => {
      if (opts.agent !== undefined) agentDefinition(opts.agent);
      const as: Record<string, string> = {};
      for (const pair of opts.as) {
        const eq = pair.indexOf('=');
        if (eq <= 0 || eq === pair.length - 1)
          throw new AdcapError('E_USAGE', `--as ${JSON.stringify(pair)} is not skill=name; e.g. --as pdf=acme-pdf.`);
        as[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const arc = await openArcotheon(ctx);
      if (opts.agent === undefined) {
        if (opts.project !== undefined)
          throw new AdcapError('E_USAGE', '--project needs --agent: name the agent whose project folder to link into.');
        // docs/skills.md: without --agent, every agent present (its program on PATH or its configuration file).
        const linked = await arc.linkSkillsToPresentAgents(id, {
          userHome: userHome(),
          path: ctx.io.env.PATH ?? '',
          platform: ctx.io.platform,
          as,
          skip: opts.skip,
          mode: opts.copy === true ? 'copy' : 'auto',
        });
        output.result(linked, () => presentLines(linked));
        return;
      }
      const result = await arc.linkSkills(id, {
        agent: opts.agent,
        userHome: userHome(),
        ...(opts.project === undefined ? {} : { project: ctx.resolvePath(opts.project) }),
        as,
        skip: opts.skip,
        mode: opts.copy === true ? 'copy' : 'auto',
      });
      output.result(result, () => [
        `linked ${result.linked.length} skill${result.linked.length === 1 ? '' : 's'} ` +
          `of ${id} into ${agentDefinition(result.agent).name} (${result.dir}):`,
        ...result.linked.map((l) => `  ${l.skill} -> ${l.path}${l.mode === 'copy' ? ' (copy)' : ''}`),
        'they follow updates and rollbacks; "adcap unlink" removes them',
        `restart ${agentDefinition(result.agent).name} (or reload its skills) to see them`,
      ]);
    });

  program
    .command('unlink')
    .description('remove the skill links Arcotheon made for a capability (one agent, or all); your own folders are never touched')
    .argument('<id>', 'capability id')
    .option('--agent <agent>', `only this agent: ${AGENT_IDS.join(', ')}`)
    .option('--project <dir>', 'only the links in this project')
    .action(async (id: string, opts: { agent?: string; project?: string }) => {
      const arc = await openArcotheon(ctx);
      const result = await arc.unlinkSkills(id, {
        ...(opts.agent === undefined ? {} : { agent: opts.agent }),
        ...(opts.project === undefined ? {} : { project: ctx.resolvePath(opts.project) }),
      });
      output.result(result, () => [
        ...result.removed.map((path) => `removed ${path}`),
        ...result.kept.map((path) => `left ${path} alone: it is no longer the link Arcotheon made`),
      ]);
    });

  program
    .command('agents')
    .description('the agents Arcotheon links skills into: which are present and what is linked where')
    .option('--mcp <ids...>', 'print, per agent, how to register the granted tools of these capabilities as an MCP server')
    .action(async (opts: { mcp?: string[] }) => {
      const arc = await openArcotheon(ctx);
      if (opts.mcp !== undefined) {
        const registrations = await arc.agentMcp(opts.mcp, { userHome: userHome() });
        // Loaded on demand, as for `adcap mcp`: the MCP SDK is large. Only granted tools are served.
        const { grantedMcpTools } = await import('../../run/mcp.js');
        const tools = (await grantedMcpTools(storeOf(arc), opts.mcp)).map((t) => t.mcp.name);
        output.result({ tools, registrations }, () => [
          tools.length === 0
            ? `no tool of ${opts.mcp?.join(', ')} is granted yet, so the server would list none; ` +
              'grant them with "adcap grants <id> --grant <permission>"'
            : `the server lists ${tools.length} granted tool${tools.length === 1 ? '' : 's'}: ${tools.join(', ')}`,
          ...registrations.map((r) => `${agentDefinition(r.agent).name} (${r.agent}):\n  ${r.line}`),
          ...unregistered(registrations.map((r) => r.agent)),
        ]);
        return;
      }
      const agents = await arc.agents({ userHome: userHome(), path: ctx.io.env.PATH ?? '', platform: ctx.io.platform });
      output.result(agents, () => [...agents.flatMap((a) => agentLines(a, agents)), ...sharedLines(agents)]);
    });
}

function agentLines(agent: AgentStatus, all: readonly AgentStatus[]): string[] {
  // docs/skills.md "Agents": a folder other agents read too is marked, since one link there serves them all.
  const dirs = agent.skillDirs.map((dir) => {
    const others = all.filter((a) => a.id !== agent.id && a.skillDirs.includes(dir)).map((a) => a.id);
    return others.length === 0 ? dir : `${dir} (also read by ${agentNames(others)})`;
  });
  const head =
    `${agent.name} (${agent.id}): ${agent.present ? `present (${agent.evidence ?? 'found'})` : 'not found'}; personal skills ` +
    `in ${dirs.join(', ')}; project skills in ${agent.projectDirs.join(', ')}`;
  return [head, ...agent.links.map(linkLine)];
}

/** For the folders two or more present agents read: "one link in ~/.agents/skills serves Codex and Gemini CLI". */
function sharedLines(agents: readonly AgentStatus[]): string[] {
  const present = agents.filter((a) => a.present);
  const folders = linkFolders(present.map((a) => agentDefinition(a.id))).filter((f) => f.serves.length > 1);
  return folders.map((f) => {
    const dir = present.find((a) => a.id === f.agent)?.skillDirs[agentDefinition(f.agent).personal.indexOf(f.folder)] ?? f.folder;
    return `add and link put one link in ${dir}, read by ${agentNames(f.serves)}`;
  });
}

/** The agents whose documentation gives no way to register an MCP server are named, so their absence is not a surprise. */
function unregistered(listed: readonly string[]): string[] {
  const missing = AGENTS.filter((a) => !listed.includes(a.id)).map((a) => a.id);
  return missing.length === 0
    ? []
    : [`no line for ${agentNames(missing)}: Arcotheon knows no documented command or settings file that registers an MCP server with them`];
}

function linkLine(link: LinkStatus): string {
  const state = link.state === 'ok' ? '' : ` [${link.state}: run "adcap doctor --fix"]`;
  return `  ${link.id} ${link.skill} ${link.version} -> ${link.path}${link.mode === 'copy' ? ' (copy)' : ''}${state}`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
