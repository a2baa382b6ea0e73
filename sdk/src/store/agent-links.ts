/**
 * Skills linked into the agents a user has (issue 13). The table below says where each agent reads
 * personal and project skills; `linkSkills` puts each skill of an installed capability there as a
 * symbolic link to the skill folder of the active installed version (a copy with a marker file
 * where symbolic links cannot be made), and home/links.json records what Arcotheon made, so that
 * update and rollback move the links with the active version, uninstall removes them, unlink
 * removes only what Arcotheon made, and doctor finds links that point nowhere or at an old version.
 *
 * Nothing that Arcotheon did not make is ever changed: a folder of the same name (the user's own
 * skill, or another capability's link) is a collision, reported with a choice (E_CONFLICT).
 */
import { cp, lstat, mkdir, readFile, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AdcapError, asAdcapError, isAdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { parseStrictJson } from '../format/strict-json.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs-atomic.js';
import { removeTree } from '../util/fs-tree.js';
import type { InstalledView } from './store-view.js';
import type { Problem } from './doctor.js';
import { readState } from './state.js';
import { isIdPart } from '../util/capability-id.js';

/** What the links read of a home: its layout and installed manifests (store-view.ts). */
export type LinkStore = Pick<InstalledView, 'home' | 'readInstalledManifest'>;

export const AGENT_IDS = ['claude-code', 'codex', 'copilot', 'cursor', 'gemini', 'opencode'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** How an MCP server for the granted tools is started: `adcap mcp <id>... --home <home>`. */
export interface McpServerCommand {
  name: string;
  command: string;
  args: string[];
}

/** What to run (a command line) or what to add to a config file, to register the server with an agent. */
export type McpRegistration =
  | { agent: AgentId; kind: 'command'; argv: string[]; line: string }
  | { agent: AgentId; kind: 'config'; file: string; json: Record<string, unknown>; line: string };

export interface AgentDefinition {
  id: AgentId;
  name: string;
  /** Folders under the user's home where the agent reads personal skills; links go into the first. */
  personal: string[];
  /** Folders inside a project where it reads project skills; links go into the first. */
  project: string[];
  /** Folders under the user's home whose presence means the agent is set up there. */
  markers: string[];
  /** The documentation the folders were checked against. */
  docs: string;
  mcp(server: McpServerCommand, userHome: string): McpRegistration;
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
    markers: ['.claude'],
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
    markers: ['.codex', '.agents'],
    docs: 'https://developers.openai.com/codex/skills',
    mcp: (s) => command('codex', ['codex', 'mcp', 'add', s.name, '--', s.command, ...s.args]),
  },
  {
    // https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/create-skills: personal
    // ~/.copilot/skills (also ~/.agents/skills, ~/.claude/skills), project .github/skills.
    // Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json ("mcpServers", type "local").
    id: 'copilot',
    name: 'GitHub Copilot',
    personal: ['.copilot/skills'],
    project: ['.github/skills'],
    markers: ['.copilot'],
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
    markers: ['.cursor'],
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
    personal: ['.gemini/skills'],
    project: ['.gemini/skills'],
    markers: ['.gemini'],
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
    markers: ['.config/opencode'],
    docs: 'https://opencode.ai/docs/skills',
    mcp: (s, home) =>
      config('opencode', join(home, '.config', 'opencode', 'opencode.json'), {
        mcp: { [s.name]: { type: 'local', command: [s.command, ...s.args], enabled: true } },
      }),
  },
];

export function agentDefinition(id: string): AgentDefinition {
  const found = AGENTS.find((a) => a.id === id);
  if (found === undefined) throw new AdcapError('E_USAGE', `"${id}" is not an agent Arcotheon knows; use one of ${AGENT_IDS.join(', ')}.`);
  return found;
}

/** One link Arcotheon made, as recorded in home/links.json. */
export interface LinkRecord {
  id: string;
  /** The skill's name (its folder name in the package). */
  skill: string;
  /** The folder name in the agent's skills folder (the skill's name unless linked with --as). */
  as: string;
  agent: AgentId;
  scope: 'user' | 'project';
  /** The project folder, for project scope. */
  project?: string;
  /** Absolute path of the link in the agent's skills folder. */
  path: string;
  mode: 'symlink' | 'copy';
  /** The installed version the link points at. */
  version: string;
  linkedAt: string;
  /**
   * Issue 17: the capability is disabled, so the link is taken off the agent's folder and kept
   * here to be put back, as it was, when the capability is enabled again.
   */
  suspended?: true;
}

export type LinkState = 'ok' | 'stale' | 'dangling' | 'missing' | 'replaced' | 'suspended';

export interface LinkStatus extends LinkRecord {
  /**
   * ok; stale: points at a version that is no longer active; dangling: points nowhere (the
   * capability or version is gone); missing: removed by someone else; replaced: something that is
   * not Arcotheon's is there now (left alone).
   */
  state: LinkState;
}

export interface LinkOptions {
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
}

export interface LinkResult {
  id: string;
  agent: AgentId;
  dir: string;
  linked: Array<{ skill: string; path: string; mode: 'symlink' | 'copy' }>;
}

export interface UnlinkResult {
  id: string;
  removed: string[];
  /** Recorded links that are no longer Arcotheon's (the user replaced them): left alone, forgotten. */
  kept: string[];
}

/** The marker inside a copied skill folder: only a folder carrying it for the same capability is Arcotheon's. */
export const LINK_MARKER = '.arcotheon-link.json';

function userHomeOf(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const env = process.env.HOME ?? process.env.USERPROFILE;
  if (env !== undefined && env !== '') return resolve(env);
  throw new AdcapError('E_USAGE', "The home folder is unknown: set HOME, or pass userHome, so the agents' skill folders can be found.");
}

/** The folder links for `agent` go into: the first personal folder under home, or the first project folder. */
function agentSkillDir(agent: AgentDefinition, options: { userHome?: string; project?: string }): string {
  if (options.project !== undefined) return join(resolve(options.project), ...(agent.project[0] ?? '.agents/skills').split('/'));
  return join(userHomeOf(options.userHome), ...(agent.personal[0] ?? '.agents/skills').split('/'));
}

// ---------------------------------------------------------------- the record

function linksFile(arc: LinkStore): string {
  return arc.home.linksFile;
}

async function readLinks(arc: LinkStore): Promise<LinkRecord[]> {
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

async function writeLinks(arc: LinkStore, links: readonly LinkRecord[]): Promise<void> {
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

// ---------------------------------------------------------------- what is on disk

/** The skill folder of `skill` in the installed `version` of `id`, or null when that version has no such skill. */
function skillTarget(arc: LinkStore, id: string, version: string, manifest: Manifest, skill: string): string | null {
  const entry = (manifest.skills ?? []).find((s) => lastSegment(s.path) === skill);
  return entry === undefined ? null : join(arc.home.versionDir(id, version), ...entry.path.split('/'));
}

function lastSegment(path: string): string {
  return (
    path
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? path
  );
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Whether what is at `record.path` is the link Arcotheon made, and where it points. */
async function onDisk(
  arc: LinkStore,
  record: LinkRecord,
): Promise<{ ours: false; present: boolean } | { ours: true; target: string | null; version: string | null }> {
  let info;
  try {
    info = await lstat(record.path);
  } catch {
    return { ours: false, present: false };
  }
  if (info.isSymbolicLink()) {
    const raw = await readlink(record.path);
    const target = resolve(dirname(record.path), raw);
    if (!inside(arc.home.packageDir(record.id), target)) return { ours: false, present: true };
    const version = relative(arc.home.packageDir(record.id), target).split(sep)[0] ?? null;
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    return { ours: true, target: exists ? target : null, version };
  }
  if (info.isDirectory()) {
    const marker = await readFile(join(record.path, LINK_MARKER), 'utf8').then(
      (text) => JSON.parse(text) as { id?: unknown; skill?: unknown; version?: unknown },
      () => null,
    );
    if (marker === null || marker.id !== record.id || marker.skill !== record.skill) return { ours: false, present: true };
    return { ours: true, target: record.path, version: typeof marker.version === 'string' ? marker.version : null };
  }
  return { ours: false, present: true };
}

async function statusOf(arc: LinkStore, record: LinkRecord, active: string | null): Promise<LinkState> {
  if (record.suspended === true) return active === null ? 'dangling' : 'suspended';
  const disk = await onDisk(arc, record);
  if (!disk.ours) return disk.present ? 'replaced' : 'missing';
  if (disk.target === null || active === null) return 'dangling';
  return disk.version === active ? 'ok' : 'stale';
}

async function activeVersion(arc: LinkStore, id: string): Promise<string | null> {
  const state = await readState(arc.home, id).catch(() => null);
  return state?.active ?? null;
}

// ---------------------------------------------------------------- making and removing links

async function removeOurs(record: LinkRecord): Promise<void> {
  const info = await lstat(record.path).catch(() => null);
  if (info === null) return;
  if (info.isSymbolicLink()) await rm(record.path, { force: true });
  else await removeTree(record.path);
}

/**
 * Puts a link to `target` at `path` (replacing Arcotheon's own link there, never anything else:
 * the caller checked). A symbolic link is made beside it and renamed over it, so an agent never
 * sees the folder missing; where symbolic links are refused (Windows without developer mode,
 * some file systems), the skill folder is copied with a marker file.
 */
async function placeLink(
  path: string,
  target: string,
  meta: { id: string; skill: string; version: string },
  mode: 'auto' | 'copy',
): Promise<'symlink' | 'copy'> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${lastSegment(path)}.arcotheon-${process.pid}-${Date.now().toString(36)}`);
  if (mode === 'auto') {
    try {
      await symlink(target, temp, process.platform === 'win32' ? 'junction' : 'dir');
      const existing = await lstat(path).catch(() => null);
      if (existing !== null && !existing.isSymbolicLink()) await removeTree(path);
      await rename(temp, path);
      return 'symlink';
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EINVAL')
        throw asAdcapError(error, `Cannot link ${path}`);
    }
  }
  try {
    await cp(target, temp, { recursive: true, dereference: true });
    await writeFileAtomic(
      join(temp, LINK_MARKER),
      `${JSON.stringify({ ...meta, note: 'Made by Arcotheon; "adcap unlink" removes it.' }, null, 2)}\n`,
    );
    const existing = await lstat(path).catch(() => null);
    if (existing !== null) {
      if (existing.isSymbolicLink()) await rm(path, { force: true });
      else await removeTree(path);
    }
    await rename(temp, path);
    return 'copy';
  } catch (error) {
    await removeTree(temp).catch(() => undefined);
    throw asAdcapError(error, `Cannot copy the skill into ${path}`);
  }
}

/** `arc.linkSkills`: the caller holds the home lock. */
export async function linkSkillsLocked(arc: InstalledView, id: string, options: LinkOptions): Promise<LinkResult> {
  const agent = agentDefinition(options.agent);
  const state = await arc.state(id);
  // Issue 17: a disabled capability's skills stay out of the agents until it is enabled again.
  if (state.disabled !== undefined) {
    throw new AdcapError(
      'E_DISABLED',
      `${id} is disabled, so its skills are not linked into agents; enable it with "adcap enable ${id}" first (its earlier links come back then).`,
      { details: { id } },
    );
  }
  const manifest = await arc.readInstalledManifest(id, state.active);
  const skills = (manifest.skills ?? []).map((s) => lastSegment(s.path));
  if (skills.length === 0)
    throw new AdcapError(
      'E_NOT_FOUND',
      `${id} has no skills to link; it brings ${(manifest.tools ?? []).length > 0 ? 'tools (register them with "adcap agents --mcp ' + id + '")' : 'no skills'}.`,
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
    mode: options.mode === 'copy' ? 'copy' : 'symlink',
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
      const mode = await placeLink(record.path, target, { id, skill: record.skill, version: state.active }, options.mode ?? 'auto');
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
    `Cannot link ${id} into ${agent.name} (${dir}): ${collisions.length === 1 ? 'this skill is' : 'these skills are'} already there: ${what}. Nothing was linked or overwritten; choose ${options.join(', or ')}.`,
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
      `${id} has no skills linked${agent === undefined ? '' : ` into ${agentDefinition(agent).name}`}${project === undefined ? '' : ` in ${project}`}; "adcap agents" lists what is linked where.`,
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
  return { id, removed, kept };
}

/**
 * Moves the links of `ids` to their active versions after an install, update or rollback, and
 * removes those of uninstalled capabilities (the caller holds the home lock). Skills that a new
 * version added are linked too where their place is free; skills it dropped lose their link.
 * Links someone else replaced are forgotten, never touched. Returns what it could not do, for
 * doctor to find again; it never throws, because the operation before it has already happened.
 */
export async function syncLinks(arc: LinkStore, ids: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  let links: LinkRecord[];
  try {
    links = await readLinks(arc);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  const touched = new Set(ids);
  if (!links.some((l) => touched.has(l.id))) return [];
  const next = links.filter((l) => !touched.has(l.id));
  const now = new Date().toISOString();
  for (const id of touched) {
    // A disabled capability's links stay off the agents' folders (issue 17); they are put back by
    // resumeLinks against whatever version is active then, and forgotten when it is uninstalled.
    const suspended = links.filter((l) => l.id === id && l.suspended === true);
    if (suspended.length > 0 && (await activeVersion(arc, id)) !== null) next.push(...suspended);
    const mine = links.filter((l) => l.id === id && l.suspended !== true);
    if (mine.length === 0) continue;
    const active = await activeVersion(arc, id);
    const manifest = active === null ? null : await arc.readInstalledManifest(id, active).catch(() => null);
    for (const record of mine) {
      try {
        const disk = await onDisk(arc, record);
        if (!disk.ours) continue; // replaced or removed by someone else: forget it
        const target = active === null || manifest === null ? null : skillTarget(arc, id, active, manifest, record.skill);
        if (target === null) {
          await removeOurs(record);
          continue;
        }
        if (disk.version === active && disk.target !== null) {
          next.push(record);
          continue;
        }
        const mode = await placeLink(
          record.path,
          target,
          { id, skill: record.skill, version: active as string },
          record.mode === 'copy' ? 'copy' : 'auto',
        );
        next.push({ ...record, mode, version: active as string, linkedAt: now });
      } catch (error) {
        problems.push(`${record.path}: ${error instanceof Error ? error.message : String(error)}`);
        next.push(record);
      }
    }
    // Skills the active version added (not in the versions the links were made for), into every
    // place this capability is linked; a skill left out with --skip stays out.
    if (active === null || manifest === null) continue;
    const known = new Set<string>();
    for (const version of new Set(mine.map((l) => l.version))) {
      const old = await arc.readInstalledManifest(id, version).catch(() => null);
      if (old === null) known.add('*');
      for (const s of old?.skills ?? []) known.add(lastSegment(s.path));
    }
    if (known.has('*')) continue;
    const places = new Map<string, LinkRecord>();
    for (const record of mine) places.set(dirname(record.path), record);
    for (const [dir, sample] of places) {
      for (const skill of (manifest.skills ?? []).map((s) => lastSegment(s.path)).filter((name) => !known.has(name))) {
        if (next.some((l) => l.id === id && l.skill === skill && dirname(l.path) === dir)) continue;
        if (mine.some((l) => l.skill === skill && dirname(l.path) === dir)) continue; // dropped on purpose above
        const path = join(dir, skill);
        if (
          await lstat(path).then(
            () => true,
            () => false,
          )
        ) {
          problems.push(
            `${id}@${active} brings the skill ${skill}, but ${path} is taken; link it with "adcap link ${id} --agent ${sample.agent} --as ${skill}=<other-name>"`,
          );
          continue;
        }
        try {
          const target = skillTarget(arc, id, active, manifest, skill) as string;
          const mode = await placeLink(path, target, { id, skill, version: active }, sample.mode === 'copy' ? 'copy' : 'auto');
          const { project } = sample;
          next.push({
            id,
            skill,
            as: skill,
            agent: sample.agent,
            scope: sample.scope,
            ...(project === undefined ? {} : { project }),
            path,
            mode,
            version: active,
            linkedAt: now,
          });
        } catch (error) {
          problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }
  try {
    await writeLinks(arc, next);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}

// ---------------------------------------------------------------- disable and enable (issue 17)

/**
 * Takes the links of `id` off the agents' folders while it is disabled (the caller holds the home
 * lock). Only what Arcotheon made is removed; the records stay, marked suspended, so enabling puts
 * the same links back. Returns what it could not do; never throws (the disable has happened).
 */
export async function suspendLinks(arc: LinkStore, id: string): Promise<string[]> {
  const problems: string[] = [];
  try {
    const links = await readLinks(arc);
    if (!links.some((l) => l.id === id && l.suspended !== true)) return [];
    const next: LinkRecord[] = [];
    for (const record of links) {
      if (record.id !== id || record.suspended === true) {
        next.push(record);
        continue;
      }
      const disk = await onDisk(arc, record);
      if (!disk.ours) continue; // replaced or removed by someone else: forget it, touch nothing
      await removeOurs(record);
      next.push({ ...record, suspended: true });
    }
    await writeLinks(arc, next);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}

/**
 * Puts the suspended links of `id` back when it is enabled, pointing at its active version. A
 * place someone else took in the meantime is left alone and reported (the link is forgotten).
 */
export async function resumeLinks(arc: LinkStore, id: string): Promise<string[]> {
  const problems: string[] = [];
  try {
    const links = await readLinks(arc);
    if (!links.some((l) => l.id === id && l.suspended === true)) return [];
    const active = await activeVersion(arc, id);
    const manifest = active === null ? null : await arc.readInstalledManifest(id, active).catch(() => null);
    const now = new Date().toISOString();
    const next: LinkRecord[] = [];
    for (const record of links) {
      if (record.id !== id || record.suspended !== true) {
        next.push(record);
        continue;
      }
      const { suspended: _suspended, ...plain } = record;
      const target = active === null || manifest === null ? null : skillTarget(arc, id, active, manifest, record.skill);
      if (target === null) continue; // the active version no longer has this skill
      if (
        await lstat(record.path).then(
          () => true,
          () => false,
        )
      ) {
        problems.push(
          `${record.path} is taken by something Arcotheon did not make, so ${id}'s skill ${record.skill} was not linked again; link it with "adcap link ${id} --agent ${record.agent} --as ${record.skill}=<other-name>"`,
        );
        continue;
      }
      try {
        const mode = await placeLink(
          record.path,
          target,
          { id, skill: record.skill, version: active as string },
          record.mode === 'copy' ? 'copy' : 'auto',
        );
        next.push({ ...plain, mode, version: active as string, linkedAt: now });
      } catch (error) {
        problems.push(`${record.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await writeLinks(arc, next);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}

// ---------------------------------------------------------------- reporting and repair

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

async function linkStatuses(arc: LinkStore): Promise<LinkStatus[]> {
  const out: LinkStatus[] = [];
  const actives = new Map<string, string | null>();
  for (const record of await readLinks(arc)) {
    if (!actives.has(record.id)) actives.set(record.id, await activeVersion(arc, record.id));
    out.push({ ...record, state: await statusOf(arc, record, actives.get(record.id) ?? null) });
  }
  return out;
}

/**
 * doctor (issue 13): links that point nowhere (dangling), at a version that is no longer active
 * (stale), or that someone removed or replaced (the record is dropped; their folder is left
 * alone). With `fix`, links are moved to the active version or removed (the fix run holds the lock).
 */
export async function checkLinks(arc: LinkStore, fix: boolean): Promise<Problem[]> {
  let statuses: LinkStatus[];
  try {
    statuses = await linkStatuses(arc);
  } catch (error) {
    if (!isAdcapError(error)) throw error;
    return [{ kind: 'dangling-link', message: error.message, fixable: false }];
  }
  const problems: Problem[] = [];
  const bad = statuses.filter((s) => s.state !== 'ok' && s.state !== 'suspended');
  for (const s of bad) {
    const where = `${s.path} (${agentDefinition(s.agent).name})`;
    const message =
      s.state === 'stale'
        ? `The skill link ${where} points at ${s.id} ${s.version}, which is no longer the active version.`
        : s.state === 'dangling'
          ? `The skill link ${where} of ${s.id} points nowhere (${s.id}@${s.version} is not installed any more).`
          : s.state === 'missing'
            ? `The skill link ${where} of ${s.id} was removed outside Arcotheon.`
            : `${where} was replaced by something Arcotheon did not make; it is left alone and no longer counted as ${s.id}'s link.`;
    problems.push({
      kind: s.state === 'stale' ? 'stale-link' : s.state === 'dangling' ? 'dangling-link' : 'missing-link',
      id: s.id,
      version: s.version,
      message,
      fixable: true,
    });
  }
  if (fix && bad.length > 0) {
    const left = await syncLinks(arc, [...new Set(bad.map((s) => s.id))]);
    const after = await linkStatuses(arc).catch(() => [] as LinkStatus[]);
    for (const [i, s] of bad.entries()) {
      const now = after.find((a) => a.path === s.path && a.id === s.id);
      const problem = problems[i] as Problem;
      if (now === undefined) problem.fixed = s.state === 'missing' || s.state === 'replaced' ? 'forgotten' : 'removed';
      else if (now.state === 'ok') problem.fixed = `moved to ${now.version}`;
    }
    for (const message of left) problems.push({ kind: 'dangling-link', message, fixable: false });
  }
  return problems;
}

// ---------------------------------------------------------------- MCP registration

/**
 * For each agent, how to register the granted tools of `ids` as an MCP server: the command line
 * to run, or the entry to add to the agent's config file. The server is `adcap mcp <ids>... --home
 * <home>`; only granted tools exist on it (host contract "Tools").
 */
export function mcpRegistrations(
  ids: readonly string[],
  options: { home: string; userHome?: string; command?: string },
): McpRegistration[] {
  if (ids.length === 0) throw new AdcapError('E_USAGE', 'Name at least one installed capability whose tools to register.');
  const name = ids.length === 1 ? `arcotheon-${(ids[0] as string).replace('/', '-')}` : 'arcotheon';
  const server: McpServerCommand = { name, command: options.command ?? 'adcap', args: ['mcp', ...ids, '--home', options.home] };
  const home = userHomeOf(options.userHome);
  return AGENTS.map((agent) => agent.mcp(server, home));
}

/** POSIX shell quoting for a command line a person copies. */
function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
