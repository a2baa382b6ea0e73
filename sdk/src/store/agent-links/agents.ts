/**
 * The agents Arcotheon links skills into: where each reads personal and project skills,
 * where `link` puts its links, and how each registers an MCP server for granted tools.
 */
import { join, resolve } from 'node:path';
import { AdcapError } from '../../errors.js';

/** The ids of the agents whose skills folders and MCP settings Arcotheon knows (linkSkills, agentMcp). */
export const AGENT_IDS = [
  'claude-code',
  'codex',
  'copilot',
  'cursor',
  'gemini',
  'opencode',
  'goose',
  'windsurf',
  'amp',
  'cline',
  'roo-code',
  'kiro',
  'qwen-code',
  'droid',
  'augment',
] as const;
/** The id of an agent Arcotheon knows (one of AGENT_IDS). */
export type AgentId = (typeof AGENT_IDS)[number];

/** How an MCP server for the granted tools is started: `adcap mcp <id>... --home <home>`. */
export interface McpServerCommand {
  /** The server's name in the agent's configuration: `arcotheon-<pub>-<name>` for one capability, else `arcotheon`. */
  name: string;
  /** The program the agent starts (`adcap`, or the host's own server). */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** What to run (a command line) or what to add to a config file, to register the server with an agent. */
export type McpRegistration =
  | { agent: AgentId; kind: 'command'; argv: string[]; line: string }
  | { agent: AgentId; kind: 'config'; file: string; json: Record<string, unknown>; line: string };

/** One agent Arcotheon links skills into: where its personal and project skills folders are, and how it registers an MCP server. */
export interface AgentDefinition {
  /** The agent's id (one of AGENT_IDS). */
  id: AgentId;
  /** The agent's display name. */
  name: string;
  /**
   * Folders under the user's home where the agent reads personal skills; links go into the first,
   * or into a later one that another present agent reads too (a shared folder, docs/skills.md "Agents").
   */
  personal: string[];
  /** Folders inside a project where it reads project skills; links go into the first. */
  project: string[];
  /**
   * docs/skills.md "Agents": the agent is present only when the agent itself is: one of these programs is on PATH,
   * or one of these configuration files (under the user's home) exists. A skills folder is no sign:
   * Arcotheon may have made it.
   */
  programs: string[];
  /** Configuration files the agent itself writes, relative to the user's home (see `programs`). */
  configFiles: string[];
  /**
   * For an agent that is an editor extension: its VS Code extension id (`publisher.name`). The
   * agent is present when the extension is installed, i.e. a folder `<id>-<version>` exists in
   * `~/.vscode/extensions` (or the Insiders or remote-server one): VS Code's documented per-user
   * extensions folder (https://code.visualstudio.com/docs/configure/extensions/extension-marketplace).
   */
  extensions?: string[];
  /** The documentation the folders were checked against. */
  docs: string;
  /** How it registers an MCP server, when its documentation says (the others are left out of `mcpRegistrations`). */
  mcp?(server: McpServerCommand, userHome: string): McpRegistration;
}

const command = (agent: AgentId, argv: string[]): McpRegistration => ({
  agent,
  kind: 'command',
  argv,
  line: argv.map(shellQuote).join(' '),
});
const config = (agent: AgentId, file: string, json: Record<string, unknown>): McpRegistration => ({
  agent,
  kind: 'config',
  file,
  json,
  line: `add to ${file}: ${JSON.stringify(json)}`,
});

/**
 * The agents and their skill folders, each checked against the agent's own documentation
 * (November 2026). The home folder comes from $HOME (or the caller), so tests can point it elsewhere.
 */
export const AGENTS: readonly AgentDefinition[] = [
  {
    // https://code.claude.com/docs/en/skills: personal ~/.claude/skills/<name>/SKILL.md, project .claude/skills/.
    // https://code.claude.com/docs/en/mcp: `claude mcp add --scope user <name> -- <command> [args...]`.
    id: 'claude-code',
    name: 'Claude Code',
    personal: ['.claude/skills'],
    project: ['.claude/skills'],
    programs: ['claude'],
    configFiles: ['.claude.json', '.claude/settings.json'],
    docs: 'https://code.claude.com/docs/en/skills',
    mcp: (s) => command('claude-code', ['claude', 'mcp', 'add', '--scope', 'user', s.name, '--', s.command, ...s.args]),
  },
  {
    // https://developers.openai.com/codex/skills: user skills in $HOME/.agents/skills (and the older
    // ~/.codex/skills), project skills in .agents/skills.
    // https://developers.openai.com/codex/mcp: `codex mcp add <name> -- <command>...` (~/.codex/config.toml).
    id: 'codex',
    name: 'Codex',
    personal: ['.agents/skills', '.codex/skills'],
    project: ['.agents/skills'],
    programs: ['codex'],
    configFiles: ['.codex/config.toml', '.codex/auth.json'],
    docs: 'https://developers.openai.com/codex/skills',
    mcp: (s) => command('codex', ['codex', 'mcp', 'add', s.name, '--', s.command, ...s.args]),
  },
  {
    // https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/create-skills: personal
    // ~/.copilot/skills (also ~/.agents/skills, ~/.claude/skills), project .github/skills.
    // Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json ("mcpServers", type "local").
    id: 'copilot',
    name: 'GitHub Copilot',
    personal: ['.copilot/skills', '.agents/skills', '.claude/skills'],
    project: ['.github/skills'],
    programs: ['copilot'],
    configFiles: ['.copilot/config.json'],
    docs: 'https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/create-skills',
    mcp: (s, home) =>
      config('copilot', join(home, '.copilot', 'mcp-config.json'), {
        mcpServers: { [s.name]: { type: 'local', command: s.command, args: s.args, tools: ['*'] } },
      }),
  },
  {
    // https://cursor.com/docs/context/skills: personal ~/.cursor/skills, project .cursor/skills.
    // https://cursor.com/docs/context/mcp: ~/.cursor/mcp.json ("mcpServers": { command, args }).
    id: 'cursor',
    name: 'Cursor',
    personal: ['.cursor/skills'],
    project: ['.cursor/skills'],
    programs: ['cursor', 'cursor-agent'],
    configFiles: ['.cursor/cli-config.json', '.cursor/argv.json', '.cursor/mcp.json'],
    docs: 'https://cursor.com/docs/context/skills',
    mcp: (s, home) =>
      config('cursor', join(home, '.cursor', 'mcp.json'), { mcpServers: { [s.name]: { command: s.command, args: s.args } } }),
  },
  {
    // https://geminicli.com/docs/cli/using-agent-skills/: user skills ~/.gemini/skills (or the
    // ~/.agents/skills alias), workspace skills .gemini/skills.
    // https://geminicli.com/docs/tools/mcp-server/: ~/.gemini/settings.json ("mcpServers": { command, args }).
    id: 'gemini',
    name: 'Gemini CLI',
    personal: ['.gemini/skills', '.agents/skills'],
    project: ['.gemini/skills'],
    programs: ['gemini'],
    configFiles: ['.gemini/settings.json'],
    docs: 'https://geminicli.com/docs/cli/using-agent-skills/',
    mcp: (s, home) =>
      config('gemini', join(home, '.gemini', 'settings.json'), { mcpServers: { [s.name]: { command: s.command, args: s.args } } }),
  },
  {
    // https://opencode.ai/docs/skills: global ~/.config/opencode/skills/<name>/SKILL.md, project .opencode/skills.
    // https://opencode.ai/docs/mcp-servers: opencode.json "mcp": { type "local", command [...] }.
    id: 'opencode',
    name: 'opencode',
    personal: ['.config/opencode/skills'],
    project: ['.opencode/skills'],
    programs: ['opencode'],
    configFiles: ['.config/opencode/opencode.json', '.config/opencode/opencode.jsonc'],
    docs: 'https://opencode.ai/docs/skills',
    mcp: (s, home) =>
      config('opencode', join(home, '.config', 'opencode', 'opencode.json'), {
        mcp: { [s.name]: { type: 'local', command: [s.command, ...s.args], enabled: true } },
      }),
  },
  {
    // https://block.github.io/goose/docs/guides/context-engineering/using-skills: global skills in
    // ~/.claude/skills, ~/.config/agents/skills (portable) and ~/.config/goose/skills; project .agents/skills
    // (https://block.github.io/goose/docs/mcp/skills-mcp). MCP servers are "extensions" in ~/.config/goose/config.yaml.
    id: 'goose',
    name: 'goose',
    personal: ['.config/goose/skills', '.config/agents/skills', '.claude/skills'],
    project: ['.agents/skills'],
    programs: ['goose'],
    configFiles: ['.config/goose/config.yaml'],
    docs: 'https://block.github.io/goose/docs/guides/context-engineering/using-skills',
    mcp: (s, home) =>
      config('goose', join(home, '.config', 'goose', 'config.yaml'), {
        extensions: { [s.name]: { type: 'stdio', cmd: s.command, args: s.args, enabled: true } },
      }),
  },
  {
    // https://docs.windsurf.com/windsurf/cascade/skills: global skills ~/.codeium/windsurf/skills/<name>/,
    // workspace skills .windsurf/skills/. https://docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json.
    id: 'windsurf',
    name: 'Windsurf',
    personal: ['.codeium/windsurf/skills'],
    project: ['.windsurf/skills'],
    programs: ['windsurf'],
    configFiles: ['.codeium/windsurf/mcp_config.json'],
    docs: 'https://docs.windsurf.com/windsurf/cascade/skills',
    mcp: (s, home) =>
      config('windsurf', join(home, '.codeium', 'windsurf', 'mcp_config.json'), {
        mcpServers: { [s.name]: { command: s.command, args: s.args } },
      }),
  },
  {
    // https://ampcode.com/manual#agent-skills: user skills in ~/.config/agents/skills (shared with
    // goose), ~/.config/amp/skills and ~/.claude/skills; project skills in .agents/skills. Settings
    // in ~/.config/amp/settings.json, where MCP servers are "amp.mcpServers" (https://ampcode.com/manual#mcp);
    // the editor extension is sourcegraph.amp.
    id: 'amp',
    name: 'Amp',
    personal: ['.config/agents/skills', '.config/amp/skills', '.claude/skills'],
    project: ['.agents/skills'],
    programs: ['amp'],
    configFiles: ['.config/amp/settings.json'],
    extensions: ['sourcegraph.amp'],
    docs: 'https://ampcode.com/manual#agent-skills',
    mcp: (s, home) =>
      config('amp', join(home, '.config', 'amp', 'settings.json'), {
        'amp.mcpServers': { [s.name]: { command: s.command, args: s.args } },
      }),
  },
  {
    // https://docs.cline.bot/customization/skills: global skills ~/.cline/skills, project .cline/skills.
    // Cline is the VS Code extension saoudrizwan.claude-dev, or the `cline` CLI.
    id: 'cline',
    name: 'Cline',
    personal: ['.cline/skills'],
    project: ['.cline/skills'],
    programs: ['cline'],
    configFiles: [],
    extensions: ['saoudrizwan.claude-dev'],
    docs: 'https://docs.cline.bot/customization/skills',
  },
  {
    // https://docs.roocode.com/features/skills: global skills ~/.roo/skills (or ~/.agents/skills),
    // project .roo/skills. Roo Code is the VS Code extension RooVeterinaryInc.roo-cline.
    id: 'roo-code',
    name: 'Roo Code',
    personal: ['.roo/skills', '.agents/skills'],
    project: ['.roo/skills'],
    programs: [],
    configFiles: [],
    extensions: ['rooveterinaryinc.roo-cline'],
    docs: 'https://docs.roocode.com/features/skills',
  },
  {
    // https://kiro.dev/docs/skills: global skills ~/.kiro/skills, workspace skills .kiro/skills.
    // https://kiro.dev/docs/mcp/configuration: user-level ~/.kiro/settings/mcp.json ("mcpServers": { command, args }).
    id: 'kiro',
    name: 'Kiro',
    personal: ['.kiro/skills'],
    project: ['.kiro/skills'],
    programs: ['kiro', 'kiro-cli'],
    configFiles: ['.kiro/settings/mcp.json', '.kiro/settings/cli.json'],
    docs: 'https://kiro.dev/docs/skills',
    mcp: (s, home) =>
      config('kiro', join(home, '.kiro', 'settings', 'mcp.json'), { mcpServers: { [s.name]: { command: s.command, args: s.args } } }),
  },
  {
    // https://qwenlm.github.io/qwen-code-docs/en/users/features/skills: personal skills ~/.qwen/skills,
    // project skills .qwen/skills. https://qwenlm.github.io/qwen-code-docs/en/users/features/mcp: user
    // scope ~/.qwen/settings.json ("mcpServers": { command, args }).
    id: 'qwen-code',
    name: 'Qwen Code',
    personal: ['.qwen/skills'],
    project: ['.qwen/skills'],
    programs: ['qwen'],
    configFiles: ['.qwen/settings.json'],
    docs: 'https://qwenlm.github.io/qwen-code-docs/en/users/features/skills',
    mcp: (s, home) =>
      config('qwen-code', join(home, '.qwen', 'settings.json'), { mcpServers: { [s.name]: { command: s.command, args: s.args } } }),
  },
  {
    // https://docs.factory.ai/cli/configuration/skills: personal skills ~/.factory/skills, workspace
    // .factory/skills. https://docs.factory.ai/cli/configuration/mcp: `droid mcp add <name> "<command>"` (stdio).
    id: 'droid',
    name: 'Factory Droid',
    personal: ['.factory/skills'],
    project: ['.factory/skills'],
    programs: ['droid'],
    configFiles: ['.factory/settings.json'],
    docs: 'https://docs.factory.ai/cli/configuration/skills',
    mcp: (s) => command('droid', ['droid', 'mcp', 'add', s.name, [s.command, ...s.args].map(shellQuote).join(' ')]),
  },
  {
    // https://docs.augmentcode.com/cli/skills: .augment/skills or .claude/skills in the workspace or the
    // home folder. Auggie is the `auggie` CLI or the editor extension augment.vscode-augment; its settings,
    // MCP servers included ("mcpServers": { command, args }), are ~/.augment/settings.json (https://docs.augmentcode.com/cli/config).
    id: 'augment',
    name: 'Augment',
    personal: ['.augment/skills', '.claude/skills'],
    project: ['.augment/skills'],
    programs: ['auggie'],
    configFiles: ['.augment/settings.json'],
    extensions: ['augment.vscode-augment'],
    docs: 'https://docs.augmentcode.com/cli/skills',
    mcp: (s, home) =>
      config('augment', join(home, '.augment', 'settings.json'), { mcpServers: { [s.name]: { command: s.command, args: s.args } } }),
  },
];

export function agentDefinition(id: string): AgentDefinition {
  const found = AGENTS.find((a) => a.id === id);
  if (found === undefined) throw new AdcapError('E_USAGE', `"${id}" is not an agent Arcotheon knows; use one of ${AGENT_IDS.join(', ')}.`);
  return found;
}

export function userHomeOf(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const env = process.env.HOME ?? process.env.USERPROFILE;
  if (env !== undefined && env !== '') return resolve(env);
  throw new AdcapError('E_USAGE', "The home folder is unknown: set HOME, or pass userHome, so the agents' skill folders can be found.");
}

/** The folder links for `agent` go into: the first personal folder under home, or the first project folder. */
export function agentSkillDir(agent: AgentDefinition, options: { userHome?: string; project?: string; folder?: string }): string {
  if (options.project !== undefined) return join(resolve(options.project), ...(agent.project[0] ?? '.agents/skills').split('/'));
  // docs/skills.md: a shared folder the agent also reads (e.g. ~/.agents/skills), chosen so one link serves several agents.
  const folder = options.folder !== undefined && agent.personal.includes(options.folder) ? options.folder : agent.personal[0];
  return join(userHomeOf(options.userHome), ...(folder ?? '.agents/skills').split('/'));
}

/**
 * For each agent whose documentation says how, how to register the granted tools of `ids` as an MCP server: the command line
 * to run, or the entry to add to the agent's config file. The server is `adcap mcp <ids>... --home
 * <home>`; only granted tools exist on it (host contract "Tools"), and no Pro or entitled ones (it
 * has no sign-in to check a plan with). A host that sells such tools registers a server of its own,
 * which calls mcpServe with its checkTier, authorize and sandbox: `server` is its command line.
 */
export function mcpRegistrations(
  ids: readonly string[],
  options: { home: string; userHome?: string; command?: string; server?: { command: string; args: string[] } },
): McpRegistration[] {
  if (ids.length === 0) throw new AdcapError('E_USAGE', 'Name at least one installed capability whose tools to register.');
  const name = ids.length === 1 ? `arcotheon-${(ids[0] as string).replace('/', '-')}` : 'arcotheon';
  const server: McpServerCommand =
    options.server === undefined
      ? { name, command: options.command ?? 'adcap', args: ['mcp', ...ids, '--home', options.home] }
      : { name, command: options.server.command, args: [...options.server.args] };
  const home = userHomeOf(options.userHome);
  return AGENTS.flatMap((agent) => (agent.mcp === undefined ? [] : [agent.mcp(server, home)]));
}

/** POSIX shell quoting for a command line a person copies. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
