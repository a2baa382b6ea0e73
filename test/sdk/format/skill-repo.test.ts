/**
 * A skills repository becomes a capability (init), builds with every problem reported,
 * warns about LFS pointers and secrets, and says which skills ship programs.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, type SkillBuildProblem } from '../../../sdk/src/format/package-build.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import {
  detectLicense,
  findSkills,
  initSkillsRepository,
  isSkillProgram,
  readmeSummary,
  SKILLS_ADCAPIGNORE,
  skillProgramsOf,
  sourceFileWarnings,
} from '../../../sdk/src/format/skill-repo.js';
import { skillProblemFixes } from '../../../sdk/src/format/skills.js';
import { contentsOf } from '../../../sdk/src/registry/builder/publish.js';
import { AdcapError } from '../../../sdk/src/errors.js';
import { rejection } from '../../helpers/errors.js';
import { skillMd, writeSkillsRepo } from '../../helpers/skills-repo.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-skill-repo-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function repo(options: Parameters<typeof writeSkillsRepo>[1] = {}): Promise<string> {
  const dir = await mkdtemp(join(work, 'repo-'));
  await writeSkillsRepo(dir, options);
  return dir;
}

describe('findSkills', () => {
  it('finds skills/<name>/SKILL.md, sorted, with their descriptions', async () => {
    const dir = await repo();
    const found = await findSkills(dir);
    expect(found.map((s) => s.path)).toEqual(['skills/brainstorming', 'skills/pdf', 'skills/writing-plans']);
    expect(found[1]?.description).toContain('PDF files');
  });

  it('finds <name>/SKILL.md at the top when there is no skills/ folder, skipping dot folders', async () => {
    const dir = await repo({ layout: 'top' });
    expect((await findSkills(dir)).map((s) => s.path)).toEqual(['brainstorming', 'pdf', 'writing-plans']);
  });

  it('falls back to SKILL.md files a few folders down for other layouts (skills/.curated/<name>, <category>/<name>)', async () => {
    const dir = await mkdtemp(join(work, 'deep-'));
    for (const path of ['skills/.curated/gh-fix-ci', 'skills/.experimental/create-plan', 'document-skills/docx', 'node_modules/x/skill']) {
      await mkdir(join(dir, ...path.split('/')), { recursive: true });
      await writeFile(join(dir, ...path.split('/'), 'SKILL.md'), skillMd(path.split('/').pop() as string, 'A skill.'));
    }
    expect((await findSkills(dir)).map((s) => s.path)).toEqual([
      'document-skills/docx',
      'skills/.curated/gh-fix-ci',
      'skills/.experimental/create-plan',
    ]);
  });
});

describe('initSkillsRepository (adcap init on a skills folder)', () => {
  it('writes capability.json with every skill, the README name and summary and the LICENSE, and .adcapignore', async () => {
    const dir = await repo();
    const result = await initSkillsRepository(dir, { id: 'obra/superpowers' });
    expect(result.wrote).toEqual(['capability.json', '.adcapignore']);
    const manifest = JSON.parse(await readFile(join(dir, 'capability.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      adcap: '1.0',
      id: 'obra/superpowers',
      version: '0.1.0',
      name: 'Superpowers',
      summary: 'Core skills for coding agents: brainstorming, planning and PDF work.',
      license: 'MIT',
      readme: 'README.md',
      skills: [{ path: 'skills/brainstorming' }, { path: 'skills/pdf' }, { path: 'skills/writing-plans' }],
    });
    expect(await readFile(join(dir, '.adcapignore'), 'utf8')).toBe(SKILLS_ADCAPIGNORE);
    // It builds as written, and the clutter stays out.
    const built = await buildPackage(dir, { out: join(work, 'superpowers.adcap') });
    const entries = (await readPackage(built.file)).entries;
    expect(entries.some((e) => e.startsWith('.git/') || e.startsWith('.github/'))).toBe(false);
    expect(entries).toContain('skills/brainstorming/scripts/start-session.sh');
  });

  it('never overwrites an existing capability.json without force, and keeps an existing .adcapignore', async () => {
    const dir = await repo();
    await writeFile(join(dir, 'capability.json'), '{"mine":true}\n');
    await writeFile(join(dir, '.adcapignore'), 'private/\n');
    const error = await rejection(initSkillsRepository(dir, { id: 'obra/superpowers' }));
    expect(error).toBeInstanceOf(AdcapError);
    expect((error as AdcapError).code).toBe('E_USAGE');
    expect((error as AdcapError).message).toContain('--force');
    expect(await readFile(join(dir, 'capability.json'), 'utf8')).toBe('{"mine":true}\n');
    const forced = await initSkillsRepository(dir, { id: 'obra/superpowers', force: true });
    expect(forced.wrote).toEqual(['capability.json', '.adcapignore']);
    expect(JSON.parse(await readFile(join(dir, 'capability.json'), 'utf8'))).toMatchObject({ id: 'obra/superpowers' });
  });

  it('without a README takes the summary from the first skill and says so; an unknown license is left for the publisher', async () => {
    const dir = await repo({ readme: null, license: 'All rights reserved by the authors.\n' });
    const result = await initSkillsRepository(dir, { id: 'acme/tools' });
    expect(result.manifest).toMatchObject({ name: 'Tools', summary: 'Turns a rough idea into a design through questions.' });
    expect(result.manifest).not.toHaveProperty('license');
    expect(result.manifest).not.toHaveProperty('readme');
    expect(result.notes.join('\n')).toMatch(/summary comes from the skill brainstorming/);
    expect(result.notes.join('\n')).toMatch(/not a license text/);
  });

  it('refuses a folder without skills and a malformed id', async () => {
    const empty = await mkdtemp(join(work, 'empty-'));
    expect(((await rejection(initSkillsRepository(empty, { id: 'acme/x' }))) as AdcapError).code).toBe('E_NOT_FOUND');
    const dir = await repo();
    expect(((await rejection(initSkillsRepository(dir, { id: 'Acme/X' }))) as AdcapError).code).toBe('E_USAGE');
  });

  it('recognises common license texts and README summaries', () => {
    expect(detectLicense('                                 Apache License\n                           Version 2.0, January 2004')).toBe(
      'Apache-2.0',
    );
    expect(detectLicense('Redistribution and use in source and binary forms ... Neither the name of the copyright holder')).toBe(
      'BSD-3-Clause',
    );
    expect(detectLicense('Some custom terms')).toBeUndefined();
    expect(readmeSummary('<!-- hidden -->\n# Title\n\n> a quote\n\nFirst sentence here. Second one.\n')).toEqual({
      title: 'Title',
      summary: 'First sentence here.',
    });
  });
});

describe('build of a skills repository', () => {
  it('init leaves out the skills that break a rule, named with it, in a comment-free .adcapignore; the rest builds', async () => {
    const dir = await repo({ broken: true });
    const init = await initSkillsRepository(dir, { id: 'acme/broken' });
    expect(init.leftOut.map((l) => [l.path, l.rule])).toEqual([
      ['skills/composition-patterns', 'skill-name-matches-dir'],
      ['skills/no-description', 'skill-description'],
    ]);
    expect(init.leftOut[0]?.message).toContain('bring it in with "adcap add", which packages it under its name');
    const ignore = await readFile(join(dir, '.adcapignore'), 'utf8');
    expect(ignore).toBe(`${SKILLS_ADCAPIGNORE}/skills/composition-patterns/\n/skills/no-description/\n`);
    expect(ignore.split('\n').some((line) => line.startsWith('#'))).toBe(false);
    const built = await buildPackage(dir, { out: join(work, 'broken-left-out.adcap') });
    expect(built.manifest.skills?.map((s) => s.path)).toEqual(['skills/brainstorming', 'skills/pdf', 'skills/writing-plans']);
    expect(built.manifest.files.some((f) => f.path.startsWith('skills/no-description/'))).toBe(false);
  });

  it('reports every problem of every skill in one run, with path, rule and fix', async () => {
    const dir = await repo({ broken: true });
    await initSkillsRepository(dir, { id: 'acme/broken' });
    // A capability.json that lists the broken skills too (as a publisher may write it by hand).
    const manifest = JSON.parse(await readFile(join(dir, 'capability.json'), 'utf8')) as { skills: Array<{ path: string }> };
    manifest.skills = [
      'skills/brainstorming',
      'skills/composition-patterns',
      'skills/no-description',
      'skills/pdf',
      'skills/writing-plans',
    ].map((path) => ({ path }));
    await writeFile(join(dir, 'capability.json'), JSON.stringify(manifest));
    await writeFile(join(dir, '.adcapignore'), SKILLS_ADCAPIGNORE);
    const error = (await rejection(buildPackage(dir, { out: join(work, 'broken.adcap') }))) as AdcapError;
    expect(error.code).toBe('E_SEMANTIC');
    const problems = error.details.problems as SkillBuildProblem[];
    expect(problems).toEqual([
      {
        path: 'skills/composition-patterns',
        pointer: '/skills/1',
        rule: 'skill-name-matches-dir',
        message: 'has the skill name "vercel-composition-patterns" in a directory named "composition-patterns"; the two must be equal',
        fix: 'rename the folder to vercel-composition-patterns or the name to composition-patterns',
      },
      {
        path: 'skills/no-description',
        pointer: '/skills/2',
        rule: 'skill-description',
        message:
          'has a SKILL.md without a description in its front matter; say in one or two sentences what the skill does and when to use it',
        fix: 'add "description: <what the skill does and when to use it>" in one or two sentences',
      },
    ]);
    expect(error.message).toMatch(/^2 problems in 2 skills: skills\/composition-patterns\/SKILL.md \[skill-name-matches-dir\]/);
  });

  it('gives a fix for each problem the validator reports, naming the names involved, and nothing for a valid skill', () => {
    expect(skillProblemFixes('pdf', skillMd('pdf', 'Works with PDFs.'))).toEqual([]);
    const bad = skillProblemFixes('my-skill', '---\nname: My Skill\ndescription: ""\ncompatibility: [1]\n---\n');
    expect(bad.map((p) => [p.rule, p.fix])).toEqual([
      ['skill-name', 'change the name to my-skill'],
      ['skill-description', 'add "description: <what the skill does and when to use it>" in one or two sentences'],
      ['skill-compatibility', 'write "compatibility" as text of at most 500 characters, or remove it'],
    ]);
    expect(skillProblemFixes('x', 'no front matter')[0]).toMatchObject({
      rule: 'skill-front-matter',
      fix: expect.stringContaining('name: x'),
    });
    expect(skillProblemFixes('x', '---\nname: [x\n---\n')[0]?.message).toMatch(/not valid YAML at line \d+/);
  });

  it('warns (and still builds) about a Git LFS pointer and a file that looks like a secret', async () => {
    const dir = await repo({ hazards: true });
    await initSkillsRepository(dir, { id: 'acme/hazards' });
    const built = await buildPackage(dir, { out: join(work, 'hazards.adcap') });
    expect(built.warnings.map((w) => [w.kind, w.path])).toEqual([
      ['lfs-pointer', 'skills/pdf/assets/template.pdf'],
      ['secret', 'skills/pdf/notes/deploy.txt'],
    ]);
    expect(built.warnings[0]?.message).toContain('git lfs pull');
    expect(built.warnings[1]?.message).toContain('a GitHub token');
  });
});

describe('sourceFileWarnings', () => {
  const warn = (path: string, text: string): string[] =>
    sourceFileWarnings(path, Buffer.byteLength(text), Buffer.from(text)).map((w) => w.kind);
  it('flags credentials by name and by content, and leaves look-alikes alone', () => {
    expect(warn('.env', 'A=1')).toEqual(['secret']);
    expect(warn('config/.env.production', 'A=1')).toEqual(['secret']);
    expect(warn('.env.example', 'API_KEY=')).toEqual([]);
    expect(warn('notes.md', `token ghp_${'a'.repeat(36)}`)).toEqual(['secret']);
    expect(warn('notes.md', `key sk-proj-${'Ab1'.repeat(16)}`)).toEqual(['secret']);
    expect(warn('notes.md', 'see sk-learn-compatible-preprocessing-pipeline-options here')).toEqual([]);
    expect(warn('.npmrc', '//registry.npmjs.org/:_authToken=x')).toEqual(['secret']);
    expect(warn('big.bin', 'version https://git-lfs.github.com/spec/v1 but not a pointer')).toEqual([]);
  });
});

describe('programs in skills', () => {
  it('counts scripts, executables and files in scripts/ per skill, and registry entries carry them', async () => {
    const dir = await repo();
    await initSkillsRepository(dir, { id: 'acme/progs' });
    const built = await buildPackage(dir, { out: join(work, 'progs.adcap') });
    const programs = skillProgramsOf(built.manifest);
    expect(programs).toEqual([
      { skill: 'brainstorming', programs: ['helpers/render.js', 'scripts/collect.py', 'scripts/start-session.sh'] },
      { skill: 'pdf', programs: ['forms.py'] },
    ]);
    expect(contentsOf(built.manifest).skillPrograms).toEqual(programs);
    expect(isSkillProgram('references/guide.md', false)).toBe(false);
    expect(isSkillProgram('bin/tool', false)).toBe(true);
    expect(isSkillProgram('run', true)).toBe(true);
  });
});
