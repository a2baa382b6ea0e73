/**
 * `adcap add` through the CLI in-process (docs/skills.md): one plan asked once (refused with no
 * terminal and no --yes), no agent present means nothing linked and said so, and a link that
 * cannot be made takes the first add out again: nothing half-installed.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { initSkillsRepository } from '../../../sdk/src/format/skill-repo.js';
import { initRepo, writeFiles } from '../../helpers/skills-git-repos.js';
import { skillMd } from '../../helpers/skills-repo.js';
import { adcap } from './run-cli.js';

let work: string;
let repo: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-add-cli-'));
  repo = join(work, 'git', 'obra', 'superpowers');
  await initRepo(repo, {
    'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
    'skills/pdf/scripts/fill.py': 'print(1)\n',
    'skills/planning/SKILL.md': skillMd('writing-plans', 'Plans. Use after a design.'),
  });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A fresh user: their own home, Arcotheon home and configuration folder, no agent program on PATH. */
async function user(name: string) {
  const me = join(work, name);
  await mkdir(me, { recursive: true });
  const env = { HOME: me, PATH: join(work, 'no-bin'), XDG_CONFIG_HOME: join(me, '.config') };
  const run = (args: string[]) => adcap([...args, '--home', join(me, 'arcotheon')], { cwd: work, env, homedir: me });
  return { me, run };
}

describe('adcap add on the command line', () => {
  it('prints one plan (skills, renamed folder, programs, links) and refuses without a terminal or --yes', async () => {
    const { run } = await user('asks');
    const result = await run(['add', `file://${repo}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`add obra/superpowers@0.1.0 from file://${repo} at `);
    expect(result.stderr).toContain('skills (2): pdf, writing-plans');
    expect(result.stderr).toContain('  writing-plans: its folder is skills/planning; packaged as skills/writing-plans');
    expect(result.stderr).toContain('programs: pdf contains 1 program your agent may run on your computer with your permissions');
    expect(result.stderr).toContain('links: none, no agent found on this machine');
    expect(result.stderr).toMatch(/^error E_DENIED: Add needs your approval/m);
    expect((await run(['list', '--json'])).stdout.trim()).toBe('[]');
  });

  it('with no agent present, installs, links nothing and says so', async () => {
    const { me, run } = await user('alone');
    const result = await run(['add', `file://${repo}`, '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('added obra/superpowers@0.1.0 from file://');
    expect(result.stdout).toContain('no agent found on this machine, so nothing was linked');
    expect(await readdir(me)).toEqual(['.config', 'arcotheon']);
    // The user's own key is in their configuration folder, not in the repository.
    expect(await readdir(join(me, '.config', 'arcotheon'))).toEqual(['own-publisher-key.json']);
    expect((await readdir(repo)).sort()).toEqual(['.git', 'skills']);
    expect((await run(['show', 'obra/superpowers'])).stdout).toMatch(
      /installed: 0\.1\.0 \(sideloaded, added by you from file:\/\/.* at [0-9a-f]{12}\)/,
    );
  });

  it('a .adcap file is installed with its own signature (unsigned: --allow-unsigned) and linked', async () => {
    const { me, run } = await user('file');
    const src = join(work, 'pkg-src');
    await writeFiles(src, { 'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    await initSkillsRepository(src, { id: 'acme/pdf-pack' });
    await buildPackage(src, { out: join(work, 'pdf-pack.adcap') });
    await writeFile(join(me, '.claude.json'), '{}');
    const refused = await run(['add', 'pdf-pack.adcap', '--yes']);
    expect(refused.stderr).toMatch(/^error E_DENIED: .*not signed.*--allow-unsigned/m);
    const added = await run(['add', 'pdf-pack.adcap', '--yes', '--allow-unsigned']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added acme/pdf-pack@0.1.0 from ${join(work, 'pdf-pack.adcap')}`);
    expect(added.stdout).toContain(`linked 1 skill into ${join(me, '.claude', 'skills')} (Claude Code)`);
    expect((await run(['add', 'pdf-pack.adcap', '--skill', 'pdf'])).stderr).toMatch(/^error E_USAGE: .*is a package/m);
  });

  it('update of a folder source applies a text change without asking, and asks again when a program is added', async () => {
    const { run } = await user('updates');
    const folder = join(work, 'my-skills');
    await writeFiles(folder, { 'pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    expect((await run(['add', folder, '--yes'])).code).toBe(0);
    expect((await run(['update', 'local/my-skills'])).stdout).toContain('local/my-skills: up to date with');
    await writeFiles(folder, { 'pdf/SKILL.md': skillMd('pdf', 'PDF work, forms too. Use with PDFs.') });
    const text = await run(['update', 'local/my-skills']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('  skills changed: pdf');
    expect(text.stdout).toContain('updated local/my-skills 0.1.0 -> 0.1.1');
    await writeFiles(folder, { 'pdf/scripts/fill.sh': { text: '#!/bin/sh\n', executable: true } });
    const program = await run(['update', 'local/my-skills']);
    expect(program.code).toBe(1);
    expect(program.stderr).toContain('  programs added: pdf/scripts/fill.sh');
    expect(program.stderr).toMatch(/^error E_DENIED: Update needs your approval/m);
    expect(JSON.parse((await run(['list', '--json'])).stdout)).toMatchObject([{ id: 'local/my-skills', version: '0.1.1' }]);
  });

  it("a link onto the user's own skill folder is E_CONFLICT, and the first add is taken out again", async () => {
    const { me, run } = await user('clash');
    await mkdir(join(me, '.claude', 'skills', 'pdf'), { recursive: true });
    await writeFile(join(me, '.claude', 'skills', 'pdf', 'SKILL.md'), 'my own pdf skill');
    await writeFile(join(me, '.claude.json'), '{}');
    const result = await run(['add', `file://${repo}`, '--yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error E_CONFLICT: Cannot link obra\/superpowers into Claude Code/m);
    expect((await run(['list', '--json'])).stdout.trim()).toBe('[]');
    expect(await readFile(join(me, '.claude', 'skills', 'pdf', 'SKILL.md'), 'utf8')).toBe('my own pdf skill');
    expect(await readdir(join(me, '.claude', 'skills'))).toEqual(['pdf']);
  });
});
