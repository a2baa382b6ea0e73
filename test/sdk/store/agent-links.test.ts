/**
 * Skills of installed capabilities linked into agents' folders under a fake HOME, with
 * real packages from a real test registry: links follow update and rollback, uninstall removes
 * them, collisions are reported with a choice and never overwritten, unlink removes only what
 * Arcotheon made, and doctor finds and repairs dangling and stale links.
 */
import { lstat, mkdir, mkdtemp, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AdcapError } from '../../../sdk/src/errors.js';
import { initSkillsRepository } from '../../../sdk/src/format/skill-repo.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { AGENTS, mcpRegistrations } from '../../../sdk/src/store/agent-links/agents.js';
import { LINK_MARKER } from '../../../sdk/src/store/agent-links/link-writer.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { buildSignedPackage } from '../../../sdk/src/trust/package-signature.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { writeSkillsRepo } from '../../helpers/skills-repo.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let reg: LifecycleRegistry;
let work: string;

/** Publishes a skills repository as `id@version` (signed by its publisher), `extra` skills added. */
async function publishSkills(id: string, version: string, extra: Record<string, string> = {}): Promise<void> {
  const dir = await mkdtemp(join(work, 'src-'));
  await writeSkillsRepo(dir, { extraSkills: extra });
  await initSkillsRepository(dir, { id, version });
  const publisher = id.split('/')[0] as string;
  if (!reg.registry.publisherKeys.has(publisher)) await reg.registry.addPublisher(publisher);
  const out = join(work, `${id.replace('/', '-')}-${version}.adcap`);
  await buildSignedPackage(dir, { out, keys: [reg.registry.keyOf(publisher)] });
  await publishPackage(reg.registry.dir, out);
  await reg.registry.build();
}

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  work = await mkdtemp(join(tmpdir(), 'adcap-links-'));
  await publishSkills('obra/superpowers', '1.0.0');
  await publishSkills('acme/docs', '1.0.0');
});
afterAll(async () => {
  await reg.registry.cleanup();
  await rm(work, { recursive: true, force: true });
});

let userHome: string;
let arc: Arcotheon;
beforeEach(async () => {
  userHome = await mkdtemp(join(work, 'user-'));
  arc = reg.arcotheon(await reg.newHome());
});

const approve = { approve: () => true };
const claudeDir = (): string => join(userHome, '.claude', 'skills');

async function linkTarget(path: string): Promise<string> {
  return realpath(path);
}

describe('link and unlink', () => {
  it("links every skill into Claude Code's folder as symbolic links to the installed version, and agents() shows them", async () => {
    // docs/skills.md: Claude Code is present through its own configuration file, not a folder.
    await mkdir(join(userHome, '.claude'), { recursive: true });
    await writeFile(join(userHome, '.claude', 'settings.json'), '{}\n');
    // The registry entry carries the skills' programs, so the plan names them before download.
    const plan = await arc.plan('obra/superpowers');
    expect(plan.items[0]?.skillPrograms).toEqual([
      { skill: 'brainstorming', programs: ['helpers/render.js', 'scripts/collect.py', 'scripts/start-session.sh'] },
      { skill: 'pdf', programs: ['forms.py'] },
    ]);
    expect(plan.report.lines).toContain('  brainstorming contains 3 programs your agent may run on your computer with your permissions');
    await arc.install('obra/superpowers', approve);
    const result = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome });
    expect(result.dir).toBe(claudeDir());
    expect(result.linked.map((l) => [l.skill, l.mode])).toEqual([
      ['brainstorming', 'symlink'],
      ['pdf', 'symlink'],
      ['writing-plans', 'symlink'],
    ]);
    const versionDir = storeOf(arc).home.versionDir('obra/superpowers', '1.0.0');
    expect(await linkTarget(join(claudeDir(), 'pdf'))).toBe(await realpath(join(versionDir, 'skills', 'pdf')));
    expect(await readFile(join(claudeDir(), 'brainstorming', 'SKILL.md'), 'utf8')).toContain('name: brainstorming');

    const agents = await arc.agents({ userHome });
    expect(agents.map((a) => a.id)).toEqual([
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
    ]);
    // docs/skills.md "Agents": every row cites the documentation its folders were checked against.
    for (const a of agents) expect(a.docs).toMatch(/^https:\/\/[a-z0-9.-]+\//);
    const claude = agents.find((a) => a.id === 'claude-code');
    expect(claude?.present).toBe(true);
    expect(agents.find((a) => a.id === 'codex')?.present).toBe(false);
    expect(agents.find((a) => a.id === 'codex')?.skillDirs).toEqual([
      join(userHome, '.agents', 'skills'),
      join(userHome, '.codex', 'skills'),
    ]);
    expect(claude?.links.map((l) => [l.skill, l.version, l.state])).toEqual([
      ['brainstorming', '1.0.0', 'ok'],
      ['pdf', '1.0.0', 'ok'],
      ['writing-plans', '1.0.0', 'ok'],
    ]);

    const unlinked = await arc.unlinkSkills('obra/superpowers', { agent: 'claude-code' });
    expect(unlinked.removed).toHaveLength(3);
    expect(await lstat(join(claudeDir(), 'pdf')).catch(() => null)).toBeNull();
    expect((await arc.agents({ userHome })).flatMap((a) => a.links)).toEqual([]);
  });

  it('links into a project folder for --project (Codex .agents/skills, Copilot .github/skills)', async () => {
    await arc.install('obra/superpowers', approve);
    const project = await mkdtemp(join(work, 'project-'));
    const codex = await arc.linkSkills('obra/superpowers', { agent: 'codex', project, userHome });
    expect(codex.dir).toBe(join(project, '.agents', 'skills'));
    const copilot = await arc.linkSkills('obra/superpowers', {
      agent: 'copilot',
      project,
      userHome,
      skip: ['brainstorming', 'writing-plans'],
    });
    expect(copilot.linked.map((l) => l.path)).toEqual([join(project, '.github', 'skills', 'pdf')]);
    expect(await readFile(join(project, '.github', 'skills', 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf');
    // Unlinking one agent's project links leaves the other's.
    await arc.unlinkSkills('obra/superpowers', { agent: 'copilot', project });
    expect(await lstat(join(project, '.agents', 'skills', 'pdf')).then((s) => s.isSymbolicLink())).toBe(true);
  });

  it('copies with a marker file when asked (where symbolic links are impossible), and unlink removes the copies', async () => {
    await arc.install('obra/superpowers', approve);
    const result = await arc.linkSkills('obra/superpowers', { agent: 'gemini', userHome, mode: 'copy' });
    const pdf = join(userHome, '.gemini', 'skills', 'pdf');
    expect(result.linked.every((l) => l.mode === 'copy')).toBe(true);
    expect((await lstat(pdf)).isDirectory()).toBe(true);
    expect(JSON.parse(await readFile(join(pdf, LINK_MARKER), 'utf8'))).toMatchObject({
      id: 'obra/superpowers',
      skill: 'pdf',
      version: '1.0.0',
    });
    await arc.unlinkSkills('obra/superpowers');
    expect(await lstat(pdf).catch(() => null)).toBeNull();
  });

  it('refuses an unknown agent and a capability that is not installed', async () => {
    expect((await rejection(arc.linkSkills('obra/superpowers', { agent: 'vim', userHome }))).code).toBe('E_USAGE');
    expect((await rejection(arc.linkSkills('obra/superpowers', { agent: 'codex', userHome }))).code).toBe('E_NOT_INSTALLED');
    expect((await rejection(arc.unlinkSkills('obra/superpowers'))).code).toBe('E_NOT_FOUND');
  });
});

describe('collisions', () => {
  it("a user's own folder of the same name is reported with a choice, nothing linked or overwritten; --as, --skip resolve it", async () => {
    await arc.install('obra/superpowers', approve);
    await mkdir(join(claudeDir(), 'pdf'), { recursive: true });
    await writeFile(join(claudeDir(), 'pdf', 'SKILL.md'), 'my own pdf skill');
    const error = await rejection(arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome }));
    expect(error).toBeInstanceOf(AdcapError);
    expect(error.code).toBe('E_CONFLICT');
    expect(error.message).toContain('--as pdf=<other-name>');
    expect(error.message).toContain('--skip pdf');
    expect(error.details).toMatchObject({ collisions: [{ skill: 'pdf', owner: 'user' }], options: ['as', 'skip'] });
    expect(await lstat(join(claudeDir(), 'brainstorming')).catch(() => null)).toBeNull();
    expect(await readFile(join(claudeDir(), 'pdf', 'SKILL.md'), 'utf8')).toBe('my own pdf skill');

    const renamed = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome, as: { pdf: 'superpowers-pdf' } });
    expect(renamed.linked.map((l) => l.path)).toContain(join(claudeDir(), 'superpowers-pdf'));
    // Unlink removes only Arcotheon's links: the user's folder stays.
    await arc.unlinkSkills('obra/superpowers', { agent: 'claude-code' });
    expect(await readFile(join(claudeDir(), 'pdf', 'SKILL.md'), 'utf8')).toBe('my own pdf skill');
    const skipped = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome, skip: ['pdf'] });
    expect(skipped.linked.map((l) => l.skill)).toEqual(['brainstorming', 'writing-plans']);
  });

  it('two capabilities with a pdf skill: the second is told to rename, skip, or unlink the first', async () => {
    await arc.install(['obra/superpowers', 'acme/docs'], approve);
    await arc.linkSkills('obra/superpowers', { agent: 'cursor', userHome });
    const error = await rejection(arc.linkSkills('acme/docs', { agent: 'cursor', userHome }));
    expect(error.code).toBe('E_CONFLICT');
    expect(error.message).toContain('adcap unlink obra/superpowers --agent cursor');
    expect(error.details).toMatchObject({ options: ['as', 'skip', 'unlink'] });
    const cursorDir = join(userHome, '.cursor', 'skills');
    expect(await linkTarget(join(cursorDir, 'pdf'))).toContain(join('obra', 'superpowers'));
    // Linking the same capability again is not a collision: it refreshes its own links.
    await arc.linkSkills('obra/superpowers', { agent: 'cursor', userHome });
  });

  it('adopts an unrecorded link to its own skill (made just before a crash) instead of calling it a collision', async () => {
    await arc.install('obra/superpowers', approve);
    await mkdir(claudeDir(), { recursive: true });
    await symlink(join(storeOf(arc).home.versionDir('obra/superpowers', '1.0.0'), 'skills', 'pdf'), join(claudeDir(), 'pdf'));
    const result = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome });
    expect(result.linked).toHaveLength(3);
    expect((await arc.agents({ userHome })).find((a) => a.id === 'claude-code')?.links.map((l) => l.state)).toEqual(['ok', 'ok', 'ok']);
  });

  it('a link the user replaced with their own folder is left alone by unlink', async () => {
    await arc.install('obra/superpowers', approve);
    await arc.linkSkills('obra/superpowers', { agent: 'opencode', userHome });
    const pdf = join(userHome, '.config', 'opencode', 'skills', 'pdf');
    await rm(pdf);
    await mkdir(pdf);
    await writeFile(join(pdf, 'SKILL.md'), 'replaced by the user');
    const result = await arc.unlinkSkills('obra/superpowers');
    expect(result.kept).toEqual([pdf]);
    expect(result.removed).toHaveLength(2);
    expect(await readFile(join(pdf, 'SKILL.md'), 'utf8')).toBe('replaced by the user');
  });
});

describe('links follow the active version', () => {
  it('update moves them (adding the new skill), rollback moves them back, uninstall removes them', async () => {
    const home = await reg.newHome();
    const local = reg.arcotheon(home);
    await publishSkills('obra/lifecycle', '1.0.0');
    await local.install('obra/lifecycle', approve);
    await local.linkSkills('obra/lifecycle', { agent: 'claude-code', userHome });
    const copies = join(userHome, 'copies');
    await local.linkSkills('obra/lifecycle', { agent: 'claude-code', userHome, project: copies, mode: 'copy' });

    await publishSkills('obra/lifecycle', '2.0.0', { 'systematic-debugging': 'Finds the root cause of a bug before fixing it.' });
    const updated = await local.update(undefined, approve);
    expect(updated.installed).toEqual([{ id: 'obra/lifecycle', version: '2.0.0' }]);
    const v2 = storeOf(local).home.versionDir('obra/lifecycle', '2.0.0');
    expect(await linkTarget(join(claudeDir(), 'pdf'))).toBe(await realpath(join(v2, 'skills', 'pdf')));
    expect(await linkTarget(join(claudeDir(), 'systematic-debugging'))).toBe(await realpath(join(v2, 'skills', 'systematic-debugging')));
    expect(JSON.parse(await readFile(join(copies, '.claude', 'skills', 'pdf', LINK_MARKER), 'utf8'))).toMatchObject({ version: '2.0.0' });
    expect((await local.agents({ userHome })).flatMap((a) => a.links).every((l) => l.version === '2.0.0' && l.state === 'ok')).toBe(true);

    await local.rollback('obra/lifecycle');
    const v1 = storeOf(local).home.versionDir('obra/lifecycle', '1.0.0');
    expect(await linkTarget(join(claudeDir(), 'pdf'))).toBe(await realpath(join(v1, 'skills', 'pdf')));
    // 1.0.0 has no systematic-debugging: its link goes.
    expect(await lstat(join(claudeDir(), 'systematic-debugging')).catch(() => null)).toBeNull();
    expect(JSON.parse(await readFile(join(copies, '.claude', 'skills', 'pdf', LINK_MARKER), 'utf8'))).toMatchObject({ version: '1.0.0' });

    await mkdir(join(claudeDir(), 'my-own'), { recursive: true });
    await local.uninstall('obra/lifecycle');
    expect(await lstat(join(claudeDir(), 'pdf')).catch(() => null)).toBeNull();
    expect(await lstat(join(copies, '.claude', 'skills', 'pdf')).catch(() => null)).toBeNull();
    expect((await lstat(join(claudeDir(), 'my-own'))).isDirectory()).toBe(true);
    expect((await local.agents({ userHome })).flatMap((a) => a.links)).toEqual([]);
  });
});

describe('doctor', () => {
  it('finds stale, dangling and missing links, and --fix moves or forgets them', async () => {
    await publishSkills('obra/doctored', '1.0.0');
    await arc.install('obra/doctored', approve);
    await arc.linkSkills('obra/doctored', { agent: 'claude-code', userHome });
    await publishSkills('obra/doctored', '2.0.0');
    await arc.update(['obra/doctored'], approve);
    const v1 = storeOf(arc).home.versionDir('obra/doctored', '1.0.0');
    // Stale: back at 1.0.0 (still on disk for rollback); dangling: at a version that is gone; missing: deleted.
    await rm(join(claudeDir(), 'pdf'));
    await symlink(join(v1, 'skills', 'pdf'), join(claudeDir(), 'pdf'));
    await rm(join(claudeDir(), 'brainstorming'));
    await symlink(
      join(storeOf(arc).home.packageDir('obra/doctored'), '0.0.1', 'skills', 'brainstorming'),
      join(claudeDir(), 'brainstorming'),
    );
    await rm(join(claudeDir(), 'writing-plans'));

    const report = await arc.doctor({ checkRevocations: false, checkCache: false });
    const links = report.problems.filter((p) => p.kind.endsWith('-link'));
    expect(links.map((p) => p.kind).sort()).toEqual(['dangling-link', 'missing-link', 'stale-link']);
    expect(report.ok).toBe(false);

    const fixed = await arc.doctor({ fix: true, checkRevocations: false, checkCache: false });
    const fixes = fixed.problems.filter((p) => p.kind.endsWith('-link')).map((p) => [p.kind, p.fixed]);
    expect(fixes.sort()).toEqual([
      ['dangling-link', 'moved to 2.0.0'],
      ['missing-link', 'forgotten'],
      ['stale-link', 'moved to 2.0.0'],
    ]);
    expect(await readlink(join(claudeDir(), 'pdf'))).toContain(join('obra', 'doctored', '2.0.0'));
    const again = await arc.doctor({ checkRevocations: false, checkCache: false });
    expect(again.problems.filter((p) => p.kind.endsWith('-link'))).toEqual([]);
  });
});

describe('MCP registration per agent', () => {
  it('gives each agent the command line or config entry that starts adcap mcp for the granted tools', () => {
    const rows = mcpRegistrations(['acme/pdf-tools'], { home: '/data/arcotheon', userHome: '/home/u' });
    // Only the agents whose documentation says how to register a server get a line.
    expect(rows.map((r) => r.agent)).toEqual(AGENTS.filter((a) => a.mcp !== undefined).map((a) => a.id));
    expect(rows.map((r) => r.agent)).not.toContain('cline');
    expect(rows.find((r) => r.agent === 'kiro')).toMatchObject({
      kind: 'config',
      file: '/home/u/.kiro/settings/mcp.json',
      json: {
        mcpServers: { 'arcotheon-acme-pdf-tools': { command: 'adcap', args: ['mcp', 'acme/pdf-tools', '--home', '/data/arcotheon'] } },
      },
    });
    expect(rows.find((r) => r.agent === 'qwen-code')).toMatchObject({ kind: 'config', file: '/home/u/.qwen/settings.json' });
    expect(rows.find((r) => r.agent === 'augment')).toMatchObject({ kind: 'config', file: '/home/u/.augment/settings.json' });
    // Amp keeps its settings under literal dotted keys.
    expect(rows.find((r) => r.agent === 'amp')).toMatchObject({
      file: '/home/u/.config/amp/settings.json',
      json: { 'amp.mcpServers': { 'arcotheon-acme-pdf-tools': { command: 'adcap' } } },
    });
    // droid takes the server's command line as one argument (docs.factory.ai/cli/configuration/mcp).
    expect(rows.find((r) => r.agent === 'droid')).toMatchObject({
      kind: 'command',
      argv: ['droid', 'mcp', 'add', 'arcotheon-acme-pdf-tools', 'adcap mcp acme/pdf-tools --home /data/arcotheon'],
    });
    expect(rows.find((r) => r.agent === 'claude-code')?.line).toBe(
      'claude mcp add --scope user arcotheon-acme-pdf-tools -- adcap mcp acme/pdf-tools --home /data/arcotheon',
    );
    expect(rows.find((r) => r.agent === 'codex')?.line).toBe(
      'codex mcp add arcotheon-acme-pdf-tools -- adcap mcp acme/pdf-tools --home /data/arcotheon',
    );
    expect(rows.find((r) => r.agent === 'cursor')).toMatchObject({
      kind: 'config',
      file: '/home/u/.cursor/mcp.json',
      json: {
        mcpServers: { 'arcotheon-acme-pdf-tools': { command: 'adcap', args: ['mcp', 'acme/pdf-tools', '--home', '/data/arcotheon'] } },
      },
    });
    expect(rows.find((r) => r.agent === 'opencode')).toMatchObject({
      json: {
        mcp: { 'arcotheon-acme-pdf-tools': { type: 'local', command: ['adcap', 'mcp', 'acme/pdf-tools', '--home', '/data/arcotheon'] } },
      },
    });
    expect(mcpRegistrations(['a/b', 'c/d'], { home: "/it's here", userHome: '/h' })[0]?.line).toBe(
      "claude mcp add --scope user arcotheon -- adcap mcp a/b c/d --home '/it'\\''s here'",
    );
  });
});

describe('disable and enable', () => {
  it('takes the skills out of the agents while disabled and puts the same links back on enable, at the version active then', async () => {
    await publishSkills('obra/switchable', '1.0.0');
    await arc.install('obra/switchable', approve);
    const linked = await arc.linkSkills('obra/switchable', { agent: 'claude-code', userHome });
    const paths = linked.linked.map((l) => l.path);
    expect(paths.length).toBeGreaterThan(0);
    await arc.disable('obra/switchable');
    for (const path of paths)
      expect(
        await lstat(path).then(
          () => 'present',
          () => 'gone',
        ),
        path,
      ).toBe('gone');
    const agents = await arc.agents({ userHome });
    expect(agents.find((a) => a.id === 'claude-code')?.links.map((l) => l.state)).toEqual(paths.map(() => 'suspended'));
    // Suspended links are not a doctor problem, and linking again waits for enable.
    expect((await arc.doctor()).problems.filter((p) => p.kind.endsWith('-link'))).toEqual([]);
    expect(await rejection(arc.linkSkills('obra/switchable', { agent: 'codex', userHome }))).toMatchObject({
      code: 'E_DISABLED',
      message: expect.stringMatching(/arc\.enable\("obra\/switchable"\)/),
    });

    // An update while disabled keeps the links out; enabling brings them back at the new version.
    await publishSkills('obra/switchable', '1.1.0');
    await arc.update(undefined, approve);
    expect((await storeOf(arc).state('obra/switchable')).active).toBe('1.1.0');
    for (const path of paths)
      expect(
        await lstat(path).then(
          () => 'present',
          () => 'gone',
        ),
        path,
      ).toBe('gone');
    await arc.enable('obra/switchable');
    for (const path of paths) expect(await linkTarget(path), path).toContain(join('obra', 'switchable', '1.1.0'));
    expect(
      (await arc.agents({ userHome })).find((a) => a.id === 'claude-code')?.links.every((l) => l.state === 'ok' && l.version === '1.1.0'),
    ).toBe(true);
  });

  it('leaves a place the user took while it was disabled alone, reports it, and forgets uninstalled suspended links', async () => {
    await arc.install('obra/superpowers', approve);
    const linked = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome });
    const taken = linked.linked[0]?.path as string;
    await arc.disable('obra/superpowers');
    await mkdir(taken, { recursive: true });
    await writeFile(join(taken, 'SKILL.md'), "the user's own skill\n");
    await arc.enable('obra/superpowers');
    expect(await readFile(join(taken, 'SKILL.md'), 'utf8')).toBe("the user's own skill\n");
    const links = (await arc.agents({ userHome })).flatMap((a) => a.links);
    expect(links.some((l) => l.path === taken)).toBe(false);
    expect(links.length).toBe(linked.linked.length - 1);

    await arc.disable('obra/superpowers');
    await arc.uninstall('obra/superpowers');
    expect((await arc.agents({ userHome })).flatMap((a) => a.links)).toEqual([]);
  });
});
