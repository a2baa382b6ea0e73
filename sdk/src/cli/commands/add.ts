import type { Command } from 'commander';
import { addCapability, addedOrigin, updateAdded, type AddPlan, type AddResult } from '../../add/add.js';
import { userConfigDir } from '../../add/own-key.js';
import { addMcpBundle } from './import.js';
import { AdcapError } from '../../errors.js';
import { readPackage } from '../../format/package-read.js';
import { skillProgramsSentence } from '../../format/skill-repo.js';
import type { Arcotheon } from '../../store/arcotheon.js';
import { storeOf } from '../../store/store-of.js';
import type { InstallRequest } from '../../store/planning.js';
import { agentDefinition, AGENT_IDS } from '../../store/agent-links/agents.js';
import { agentNames, type PresentLinkResult } from '../../store/agent-links/link-present.js';
import { detectAgents, linkFolders } from '../../store/agent-links/presence.js';
import type { AddedOrigin } from '../../store/state.js';
import type { CliContext } from '../context.js';
import { openArcotheon } from '../host.js';

/**
 * `adcap add <source>` (docs/skills.md): any skills source in one command. Fetches the source (a folder,
 * a git URL, owner/repo, owner/repo/path, --skill), stages its skills as they are, builds and signs
 * the package with your own key, shows one plan (skills, programs, permissions, agents to link)
 * and asks once (--yes for scripts), installs it and links it into every agent present.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('add')
    .description('bring in the skills of a folder, a git repository or owner/repo in one command (build, sign, install, link)')
    .argument('<source>', 'a folder, a git URL (https://, ssh://, git@host:path, file://, #ref), owner/repo or owner/repo/path/to/skill')
    .option('--skill <name>', 'only this skill of the source (repeatable)', collect, [] as string[])
    .option('--id <publisher/name>', 'the capability id (default: owner/repo, or local/<folder>)')
    .option('--ref <ref>', 'a branch, tag or commit of a git source (default: its default branch)')
    .option('--agent <agent>', `link into this agent only (repeatable): ${AGENT_IDS.join(', ')}`, collect, [] as string[])
    .option('--no-link', 'install without linking into any agent')
    .option('--allow-unsigned', 'for a .adcap file: confirm installing it unsigned or signed by an unknown key')
    .option(
      '--allow-net <host>',
      'for a .mcpb file: a host its server may connect to (repeatable); none: any server',
      collect,
      [] as string[],
    )
    .option('--no-net', 'for a .mcpb file: its server needs no network')
    .option('-y, --yes', 'approve the plan without asking')
    .action(async (source: string, opts: AddFlags) => {
      for (const agent of opts.agent) agentDefinition(agent);
      const arc = await openArcotheon(ctx);
      const userHome = ctx.io.env.HOME ?? ctx.io.homedir;
      const presence = { userHome, path: ctx.io.env.PATH ?? '', platform: ctx.io.platform };
      const present = (await detectAgents(presence)).filter((p) => p.present).map((p) => p.agent);
      const linkLine = (): string => {
        if (!opts.link) return 'links: none (--no-link)';
        if (opts.agent.length > 0) return `links: into ${agentNames(opts.agent.map((a) => agentDefinition(a).id))} (--agent)`;
        if (present.length === 0) return 'links: none, no agent found on this machine (see "adcap agents")';
        return `links: ${linkFolders(present)
          .map((f) => `~/${f.folder} (read by ${agentNames(f.serves)})`)
          .join(', ')}`;
      };
      if (/\.mcpb$/i.test(source) && !/^[a-z]+:\/\//i.test(source)) {
        // An MCP Bundle is imported (docs/spec/mcp-runtime.md), signed with your own key, then added as its package.
        const configDir = userConfigDir(ctx.io.platform, ctx.io.env, userHome);
        await addMcpBundle(ctx, ctx.resolvePath(source), opts, configDir, (request) =>
          addPackageFile(ctx, arc, request.file, { ...opts, id: undefined, link: false }, presence, linkLine, request.added),
        );
        return;
      }
      if (/\.adcap$/i.test(source) && !/^[a-z]+:\/\//i.test(source)) {
        await addPackageFile(ctx, arc, ctx.resolvePath(source), opts, presence, linkLine);
        return;
      }
      const result = await addCapability(arc, source, {
        cwd: ctx.io.cwd,
        configDir: userConfigDir(ctx.io.platform, ctx.io.env, userHome),
        ...(opts.id === undefined ? {} : { id: opts.id }),
        ...(opts.skill.length === 0 ? {} : { skills: opts.skill }),
        ...(opts.ref === undefined ? {} : { ref: opts.ref }),
        // docs/skills.md: owner/repo expands against GitHub, or a GitHub Enterprise server or mirror named here.
        ...(ctx.io.env.ARCOTHEON_GITHUB_URL === undefined ? {} : { githubBase: ctx.io.env.ARCOTHEON_GITHUB_URL }),
        approve: (plan) => ask(ctx, opts.yes === true, [...planLines(plan), linkLine()], 'Add'),
      });
      let linked: PresentLinkResult | null = null;
      if (opts.link) {
        try {
          linked = await linkAdded(arc, result.id, opts.agent, presence);
        } catch (error) {
          // Nothing half-installed: a first add whose links cannot be made is taken out again.
          if (result.changes === undefined) await arc.uninstall(result.id).catch(() => undefined);
          throw error;
        }
      }
      ctx.output.result({ ...resultJson(result), links: linked }, () => [
        `added ${result.id}@${result.version} from ${originText(result.origin)}: ` +
          `${result.skills.length} skill${result.skills.length === 1 ? '' : 's'}`,
        ...leftOutLines(result),
        ...(linked === null ? [] : presentLines(linked)),
      ]);
    });
}

interface AddFlags {
  skill: string[];
  id?: string;
  ref?: string;
  agent: string[];
  link: boolean;
  allowUnsigned?: boolean;
  yes?: boolean;
  allowNet: string[];
  net: boolean;
}

/**
 * `adcap add file.adcap`: a package already built is installed as `adcap install` would (its own
 * signature; unsigned or unknown-signer needs --allow-unsigned), after one plan, then linked.
 */
async function addPackageFile(
  ctx: CliContext,
  arc: Arcotheon,
  file: string,
  opts: AddFlags,
  presence: { userHome: string; path: string; platform: NodeJS.Platform },
  linkLine: () => string,
  /** Set for a package this command built and signed with the user's own key (an imported MCP Bundle). */
  added?: InstallRequest['added'],
): Promise<void> {
  if (opts.skill.length > 0 || opts.id !== undefined || opts.ref !== undefined)
    throw new AdcapError(
      'E_USAGE',
      `${file} is a package: --skill, --id and --ref apply to folders and repositories, not to a .adcap file.`,
    );
  const before = await storeOf(arc)
    .state(await packageId(file))
    .catch(() => null);
  const result = await arc.install(
    { file, ...(added === undefined ? {} : { added }) },
    {
      approve: (plan) => ask(ctx, opts.yes === true, [...plan.report.lines, linkLine()], 'Add'),
      ...(opts.allowUnsigned === true ? { allowUnsigned: true } : {}),
    },
  );
  const installed = result.installed.at(-1) ?? result.plan.items.at(-1);
  const id = installed?.id ?? (await packageId(file));
  let linked: PresentLinkResult | null = null;
  if (opts.link) {
    try {
      linked = await linkAdded(arc, id, opts.agent, presence);
    } catch (error) {
      if (before === null && result.applied) await arc.uninstall(id).catch(() => undefined);
      throw error;
    }
  }
  const from = added === undefined ? file : added.origin.source;
  ctx.output.result({ id, version: installed?.version ?? null, applied: result.applied, file: from, links: linked }, () => [
    result.applied ? `added ${id}@${installed?.version ?? ''} from ${from}` : `${id} from ${from} is installed already`,
    ...(linked === null ? [] : presentLines(linked)),
  ]);
}

async function packageId(file: string): Promise<string> {
  return (await readPackage(file)).manifest.id;
}

async function linkAdded(
  arc: Arcotheon,
  id: string,
  agents: readonly string[],
  presence: { userHome: string; path: string; platform: NodeJS.Platform },
): Promise<PresentLinkResult> {
  if (agents.length === 0) return arc.linkSkillsToPresentAgents(id, presence);
  const links: PresentLinkResult['links'] = [];
  for (const agent of agents) {
    const result = await arc.linkSkills(id, { agent, userHome: presence.userHome });
    links.push({ ...result, serves: [result.agent] });
  }
  return { id, present: [], links };
}

/** The lines after a link into present agents: which agents, which folder serves which, or none. */
export function presentLines(linked: PresentLinkResult): string[] {
  if (linked.links.length === 0)
    return ['no agent found on this machine, so nothing was linked; "adcap agents" lists the agents adcap knows and how it finds them'];
  return linked.links.map(
    (l) =>
      `linked ${l.linked.length} skill${l.linked.length === 1 ? '' : 's'} into ${l.dir}` +
      (l.serves.length > 1 ? `, one link read by ${agentNames(l.serves)}` : ` (${agentNames(l.serves)})`),
  );
}

/** "obra/superpowers at 1a2b3c4d5e6f" or "/home/me/skills". */
export function originText(origin: AddedOrigin): string {
  return `${origin.source}${origin.commit === undefined ? '' : ` at ${origin.commit.slice(0, 12)}`}`;
}

function planLines(plan: AddPlan): string[] {
  const renamed = plan.skills.filter((s) => s.renamed);
  const lines = [
    `${plan.changes === undefined ? 'add' : 'update'} ${plan.id}@${plan.version} from ${originText(plan.origin)}`,
    `skills (${plan.skills.length}): ${plan.skills.map((s) => s.name).join(', ')}`,
    ...renamed.map((s) => `  ${s.name}: its folder is ${s.from}; packaged as skills/${s.name} (spec: a skill's folder is its name)`),
    ...plan.leftOut.map((l) => `left out ${l.path} [${l.rule}]: ${l.message}`),
    ...(plan.programs.length === 0 ? ['programs: none'] : plan.programs.map((p) => `programs: ${skillProgramsSentence(p)}`)),
    ...changeLines(plan),
    ...plan.plan.report.lines.filter((l) => /permission/i.test(l)),
    `signed with your own publisher key ${plan.origin.keyId.slice(0, 12)}` +
      (plan.keyCreated ? ' (made now, kept in your configuration folder)' : ''),
    ...plan.warnings.map((w) => `warning: ${w}`),
  ];
  return lines;
}

function changeLines(plan: { changes?: AddResult['changes'] }): string[] {
  const c = plan.changes;
  if (c === undefined) return [];
  const list = (label: string, items: string[]): string[] => (items.length === 0 ? [] : [`  ${label}: ${items.join(', ')}`]);
  return [
    `changes since ${c.from.version}${c.from.commit === undefined ? '' : ` (${c.from.commit.slice(0, 12)})`}:`,
    ...list('skills added', c.skillsAdded),
    ...list('skills removed', c.skillsRemoved),
    ...list('skills changed', c.skillsChanged),
    ...list('programs added', c.programsAdded),
    ...list('permissions added', c.permissionsAdded),
  ];
}

function leftOutLines(result: AddResult): string[] {
  if (result.leftOut.length === 0) return [];
  return [`left out ${result.leftOut.length}: ` + result.leftOut.map((l) => `${l.path} [${l.rule}]`).join(', ')];
}

function resultJson(result: AddResult): Record<string, unknown> {
  return {
    id: result.id,
    version: result.version,
    applied: result.applied,
    upToDate: result.upToDate === true,
    origin: result.origin,
    skills: result.skills,
    leftOut: result.leftOut,
    changes: result.changes ?? null,
  };
}

async function ask(ctx: CliContext, yes: boolean, lines: string[], verb: string): Promise<boolean> {
  if (yes) return true;
  ctx.io.stderr(`${lines.join('\n')}\n`);
  if (!ctx.io.stdinIsTTY || ctx.io.ask === undefined)
    throw new AdcapError(
      'E_DENIED',
      `${verb} needs your approval and there is no terminal to ask on; review the plan above and run again with --yes.`,
    );
  const answer = await ctx.io.ask(`${verb}? [y/N] `);
  return /^y(es)?$/i.test(answer.trim());
}

/**
 * `adcap update` of capabilities brought in with `adcap add`: fetch again, show what changed, and ask
 * again (without --yes) only when programs or permissions grew.
 */
export async function updateAddedCommand(ctx: CliContext, arc: Arcotheon, id: string, yes: boolean): Promise<AddResult> {
  const userHome = ctx.io.env.HOME ?? ctx.io.homedir;
  return updateAdded(arc, id, {
    configDir: userConfigDir(ctx.io.platform, ctx.io.env, userHome),
    approve: (plan) => {
      const grew = (plan.changes?.programsAdded.length ?? 0) + (plan.changes?.permissionsAdded.length ?? 0) > 0;
      if (!grew) return true;
      return ask(ctx, yes, planLines(plan), 'Update');
    },
  });
}

/** The added capabilities among `ids` (all installed ones when `ids` is empty). */
export async function addedIds(arc: Arcotheon, ids: readonly string[]): Promise<string[]> {
  const states = ids.length === 0 ? (await arc.list()).map((c) => c.id) : ids;
  const out: string[] = [];
  for (const id of states) {
    const state = await storeOf(arc)
      .state(id)
      .catch(() => null);
    // An imported MCP Bundle is updated by adding its new file (updateAdded says so when named).
    const origin = state === null ? undefined : addedOrigin(state);
    if (origin !== undefined && (ids.length > 0 || origin.kind !== 'mcpb')) out.push(id);
  }
  return out;
}

/** The lines `adcap update` prints for an added capability. */
export function updateAddedLines(result: AddResult): string[] {
  if (result.upToDate === true) return [`${result.id}: up to date with ${originText(result.origin)}`];
  return [
    `${result.id}: ${result.changes?.from.commit?.slice(0, 12) ?? result.changes?.from.version ?? ''} -> ${originText(result.origin)}`,
    ...changeLines(result),
    `updated ${result.id} ${result.changes?.from.version ?? ''} -> ${result.version}`,
  ];
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
