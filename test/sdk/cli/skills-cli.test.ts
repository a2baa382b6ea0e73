/**
 * Skills through the `adcap` command (in-process): init on a cloned skills repository, build with
 * every problem and warning printed, the install plan naming the skills that ship programs, link,
 * agents (with --mcp), unlink, under a fake HOME.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkillsRepo } from '../../helpers/skills-repo.js';
import { adcap } from './run-cli.js';

let work: string;
let home: string;
let userHome: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-skills-cli-'));
  home = join(work, 'arcotheon-home');
  userHome = join(work, 'user');
  // docs/skills.md: Claude Code is present through its own configuration file, not a folder.
  await mkdir(join(userHome, '.claude'), { recursive: true });
  await writeFile(join(userHome, '.claude', 'settings.json'), '{}\n');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const run = (args: string[]) =>
  adcap([...args, '--home', home], { cwd: work, env: { PATH: process.env.PATH, HOME: userHome }, homedir: userHome });

describe('adcap with a skills repository', () => {
  it('init -> build -> install (plan names the programs) -> link -> agents -> unlink', async () => {
    await writeSkillsRepo(join(work, 'superpowers'), { hazards: true });
    const init = await run(['init', 'superpowers', '--id', 'obra/superpowers']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote capability.json and .adcapignore for obra/superpowers');
    expect(init.stdout).toContain('  skills/brainstorming');
    expect((await run(['init', 'superpowers', '--id', 'obra/superpowers'])).stderr).toMatch(
      /^error E_USAGE: .*already exists; pass --force/m,
    );

    const build = await run(['build', 'superpowers', '-o', 'superpowers.adcap']);
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain('warning: skills/pdf/assets/template.pdf is a Git LFS pointer');
    expect(build.stderr).toContain('warning: skills/pdf/notes/deploy.txt looks like a GitHub token');

    // Without --yes and without a terminal: the plan is printed, then refused.
    const asked = await run(['install', 'superpowers.adcap', '--allow-unsigned']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('  brainstorming contains 3 programs your agent may run on your computer with your permissions');
    expect(asked.stderr).toContain('  pdf contains 1 program your agent may run on your computer with your permissions');
    expect((await run(['install', 'superpowers.adcap', '--allow-unsigned', '--yes'])).code).toBe(0);

    const link = await run(['link', 'obra/superpowers', '--agent', 'claude-code']);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout).toContain(`linked 3 skills of obra/superpowers into Claude Code (${join(userHome, '.claude', 'skills')})`);
    expect(await readFile(join(userHome, '.claude', 'skills', 'writing-plans', 'SKILL.md'), 'utf8')).toContain('name: writing-plans');

    const agents = await run(['agents', '--json']);
    const rows = JSON.parse(agents.stdout) as Array<{ id: string; present: boolean; links: Array<{ skill: string; state: string }> }>;
    expect(rows.find((r) => r.id === 'claude-code')).toMatchObject({
      present: true,
      links: [
        { skill: 'brainstorming', state: 'ok' },
        { skill: 'pdf', state: 'ok' },
        { skill: 'writing-plans', state: 'ok' },
      ],
    });
    const listing = (await run(['agents'])).stdout;
    expect(listing).toMatch(
      /^Claude Code \(claude-code\): present \(its configuration .*settings\.json\); personal skills in .*\.claude\/skills/m,
    );
    // docs/skills.md "Agents": a folder other agents read too says so.
    expect(listing).toContain(`${join(userHome, '.claude', 'skills')} (also read by GitHub Copilot, goose, Amp and Augment)`);
    expect(listing).not.toContain('add and link put one link');
    // With Amp present too (its settings file), one link in ~/.claude/skills serves both, and the listing says so.
    await mkdir(join(userHome, '.config', 'amp'), { recursive: true });
    await writeFile(join(userHome, '.config', 'amp', 'settings.json'), '{}\n');
    const both = (await run(['agents'])).stdout;
    expect(both).toMatch(/^Amp \(amp\): present \(its configuration .*amp\/settings\.json\)/m);
    expect(both).toContain(`add and link put one link in ${join(userHome, '.claude', 'skills')}, read by Claude Code and Amp`);
    await rm(join(userHome, '.config'), { recursive: true });

    // A collision with the user's own folder in another agent: a coded error with the choices.
    await mkdir(join(userHome, '.cursor', 'skills', 'pdf'), { recursive: true });
    const clash = await run(['link', 'obra/superpowers', '--agent', 'cursor']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/^error E_CONFLICT: Cannot link obra\/superpowers into Cursor .*--as pdf=<other-name>.*--skip pdf/m);
    expect((await run(['link', 'obra/superpowers', '--agent', 'cursor', '--as', 'pdf=superpowers-pdf'])).code).toBe(0);
    // spec §3.1: the renamed link is a copy whose SKILL.md carries the new name (docs/skills.md "Agents").
    expect((await lstat(join(userHome, '.cursor', 'skills', 'superpowers-pdf'))).isDirectory()).toBe(true);
    expect(await readFile(join(userHome, '.cursor', 'skills', 'superpowers-pdf', 'SKILL.md'), 'utf8')).toContain('name: superpowers-pdf\n');

    const unlink = await run(['unlink', 'obra/superpowers', '--agent', 'claude-code']);
    expect(unlink.code, unlink.stderr).toBe(0);
    expect(unlink.stdout.split('\n').filter((l) => l.startsWith('removed '))).toHaveLength(3);
    expect(await lstat(join(userHome, '.claude', 'skills', 'pdf')).catch(() => null)).toBeNull();
    expect((await lstat(join(userHome, '.cursor', 'skills', 'pdf'))).isDirectory()).toBe(true);
  });

  it('link without --agent links into every agent present, one link per shared folder, and says which; with none, nothing', async () => {
    // A HOME of its own: Claude Code by its configuration file, Codex and Gemini CLI as programs on PATH.
    const me = join(work, 'present-home');
    const bin = join(work, 'present-bin');
    await mkdir(join(me, '.claude'), { recursive: true });
    await writeFile(join(me, '.claude', 'settings.json'), '{}\n');
    await mkdir(bin, { recursive: true });
    for (const program of ['codex', 'gemini']) await writeFile(join(bin, program), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const as = (env: NodeJS.ProcessEnv) => (args: string[]) =>
      adcap([...args, '--home', home], { cwd: work, env, homedir: env.HOME ?? me });
    const there = as({ PATH: bin, HOME: me });
    await writeSkillsRepo(join(work, 'linkme'));
    expect((await there(['init', 'linkme', '--id', 'acme/linkme'])).code).toBe(0);
    expect((await there(['build', 'linkme', '-o', 'linkme.adcap'])).code).toBe(0);
    expect((await there(['install', 'linkme.adcap', '--allow-unsigned', '--yes'])).code).toBe(0);

    const link = await there(['link', 'acme/linkme']);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout.split('\n').filter((l) => l.startsWith('linked '))).toEqual([
      `linked 3 skills into ${join(me, '.claude', 'skills')} (Claude Code)`,
      `linked 3 skills into ${join(me, '.agents', 'skills')}, one link read by Codex and Gemini CLI`,
    ]);
    expect(await readFile(join(me, '.agents', 'skills', 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf');
    expect(await lstat(join(me, '.gemini')).catch(() => null)).toBeNull();
    expect((await there(['unlink', 'acme/linkme'])).code).toBe(0);
    expect(await lstat(join(me, '.agents')).catch(() => null)).toBeNull();

    // No agent at all: nothing is linked, and the command says so.
    const nobody = join(work, 'nobody-home');
    await mkdir(nobody);
    const none = await as({ PATH: join(work, 'no-bin'), HOME: nobody })(['link', 'acme/linkme']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('no agent found on this machine, so nothing was linked');
    expect(await readdir(nobody)).toEqual([]);
  });

  it('init leaves out broken skills with their rules; build of a manifest that lists them prints every problem with its fix', async () => {
    await writeSkillsRepo(join(work, 'broken'), { broken: true });
    const init = await run(['init', 'broken', '--id', 'acme/broken']);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('left out skills/composition-patterns [skill-name-matches-dir]: ');
    expect(init.stdout).toContain('left out skills/no-description [skill-description]: ');
    const manifestFile = join(work, 'broken', 'capability.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { skills: Array<{ path: string }> };
    manifest.skills.splice(1, 0, { path: 'skills/composition-patterns' }, { path: 'skills/no-description' });
    await writeFile(manifestFile, JSON.stringify(manifest));
    await writeFile(join(work, 'broken', '.adcapignore'), '.git/\n');
    const build = await run(['build', 'broken', '-o', 'broken.adcap']);
    expect(build.code).toBe(1);
    expect(build.stderr).toContain('2 problems to fix before this builds:');
    expect(build.stderr).toContain(
      '  skills/composition-patterns/SKILL.md [skill-name-matches-dir] ' +
        'has the skill name "vercel-composition-patterns" in a ' +
        'directory named "composition-patterns"; the two must be equal\n' +
        '    fix: rename the folder to vercel-composition-patterns or the name to composition-patterns',
    );
    expect(build.stderr).toContain(
      '  skills/no-description/SKILL.md [skill-description] has a SKILL.md without a description in its front matter',
    );
    expect(build.stderr).toMatch(/^error E_SEMANTIC: 2 problems in 2 skills/m);
  });

  it('agents --mcp prints, per agent, how to register the granted tools', async () => {
    expect((await run(['init', 'greeter', '--id', 'acme/greeter'])).code).toBe(0);
    expect((await run(['build', 'greeter', '-o', 'greeter.adcap'])).code).toBe(0);
    expect((await run(['install', 'greeter.adcap', '--allow-unsigned', '--yes'])).code).toBe(0);
    const mcp = await run(['agents', '--mcp', 'acme/greeter']);
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(mcp.stdout).toContain('the server lists 1 granted tool: acme__greeter__greet');
    expect(mcp.stdout).toContain(
      `Claude Code (claude-code):\n  claude mcp add --scope user arcotheon-acme-greeter -- adcap mcp acme/greeter --home ${home}`,
    );
    expect(mcp.stdout).toContain(
      `  add to ${join(userHome, '.cursor', 'mcp.json')}: ` +
        `{"mcpServers":{"arcotheon-acme-greeter":{"command":"adcap","args":["mcp","acme/greeter","--home","${home}"]}}}`,
    );
    // Agents whose documentation gives no MCP registration are named rather than silently missing.
    expect(mcp.stdout).toContain('no line for Cline and Roo Code: ');
    const noTools = await run(['agents', '--mcp', 'obra/superpowers']);
    expect(noTools.stderr).toMatch(/^error E_NOT_FOUND: obra\/superpowers has no tools/m);
  });
});

it('init in an empty folder still scaffolds a new capability', async () => {
  const dir = join(work, 'fresh');
  await mkdir(dir);
  await writeFile(join(dir, '.keep'), '');
  const init = await run(['init', 'fresh', '--id', 'acme/fresh']);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('created acme/fresh');
});
