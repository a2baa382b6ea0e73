import { lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkillsRepo } from '../test/helpers/skills-repo.js';
import { adcap, assertBuilt, ok } from './helpers/adcap.js';

/**
 * README "Use your skills in every agent": from a cloned skills repository to its skills
 * in Claude Code's folder with the four commands (init, build, install, link), run with the BUILT
 * `adcap` as real child processes, HOME pointing at a fake home folder.
 */

let work: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-skills-'));
  // Not a user's run: a temporary home instead of the user's own.
  env = { ...process.env, HOME: join(work, 'me'), ARCOTHEON_HOME: join(work, 'arcotheon') };
  // docs/skills.md: Claude Code is present through its own configuration file, not a folder.
  await mkdir(join(work, 'me', '.claude'), { recursive: true });
  await writeFile(join(work, 'me', '.claude', 'settings.json'), '{}\n');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('a skills repository into Claude Code, end to end', () => {
  it('adcap init, build, install, link', async () => {
    const repo = join(work, 'superpowers');
    const skills = await writeSkillsRepo(repo);

    ok(await adcap(['init', '.', '--id', 'obra/superpowers'], { cwd: repo, env }));
    ok(await adcap(['build', '.', '-o', 'superpowers.adcap'], { cwd: repo, env }));
    const install = ok(await adcap(['install', 'superpowers.adcap', '--allow-unsigned', '--yes'], { cwd: repo, env }));
    expect(install.stdout).toContain('installed obra/superpowers@0.1.0');
    const link = ok(await adcap(['link', 'obra/superpowers', '--agent', 'claude-code'], { cwd: repo, env }));
    expect(link.stdout).toContain('linked 3 skills of obra/superpowers into Claude Code');

    const claudeSkills = join(work, 'me', '.claude', 'skills');
    for (const skill of skills) {
      expect((await lstat(join(claudeSkills, skill))).isSymbolicLink()).toBe(true);
      expect(await readFile(join(claudeSkills, skill, 'SKILL.md'), 'utf8')).toContain(`name: ${skill}`);
      // The link points into the verified, read-only install, not at the clone.
      expect(await realpath(join(claudeSkills, skill))).toBe(
        await realpath(join(work, 'arcotheon', 'packages', 'obra', 'superpowers', '0.1.0', 'skills', skill)),
      );
    }
    const agents = JSON.parse(ok(await adcap(['agents', '--json'], { cwd: repo, env })).stdout) as Array<{
      id: string;
      present: boolean;
      links: unknown[];
    }>;
    expect(agents.find((a) => a.id === 'claude-code')).toMatchObject({ present: true });
    expect(agents.find((a) => a.id === 'claude-code')?.links).toHaveLength(3);

    ok(await adcap(['uninstall', 'obra/superpowers'], { cwd: repo, env }));
    expect(await lstat(join(claudeSkills, 'pdf')).catch(() => null)).toBeNull();
  });
});
