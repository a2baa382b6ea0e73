import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SKILL_MD_BYTES, stageSkillsRepository } from '../../../sdk/src/add/stage.js';
import { writeFiles } from '../../helpers/skills-git-repos.js';
import { skillMd } from '../../helpers/skills-repo.js';

let work: string;
let repo: string;
let stage: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-stage-'));
  repo = join(work, 'repo');
  stage = join(work, 'stage');
  await mkdir(repo);
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('staging a skills repository as it is (docs/skills.md)', () => {
  it('packages a skill whose folder differs from its name under skills/<name>/ and keeps executables', async () => {
    await writeFiles(repo, {
      'skills/react-best-practices/SKILL.md': skillMd('web-react', 'React rules. Use with React.'),
      'skills/react-best-practices/scripts/check.sh': { text: '#!/bin/sh\n', executable: true },
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
    });
    const result = await stageSkillsRepository(repo, stage);
    expect(result.skills).toEqual([
      { name: 'pdf', from: 'skills/pdf', renamed: false },
      { name: 'web-react', from: 'skills/react-best-practices', renamed: true },
    ]);
    expect(result.leftOut).toEqual([]);
    expect(await readdir(join(stage, 'skills'))).toEqual(['pdf', 'web-react']);
    expect((await stat(join(stage, 'skills', 'web-react', 'scripts', 'check.sh'))).mode & 0o111).not.toBe(0);
  });

  it('leaves out a description over 1,024 characters, a bad name, a second skill of a name, each with its rule', async () => {
    await writeFiles(repo, {
      'skills/a-long/SKILL.md': skillMd('a-long', 'x'.repeat(1025)),
      'skills/b-bad/SKILL.md': skillMd('Bad_Name', 'Bad name. Use never.'),
      'skills/c-one/SKILL.md': skillMd('same', 'First. Use first.'),
      'skills/d-two/SKILL.md': skillMd('same', 'Second. Use second.'),
      'skills/e-none/SKILL.md': '# No front matter\n',
    });
    const result = await stageSkillsRepository(repo, stage);
    expect(result.skills.map((s) => s.name)).toEqual(['same']);
    expect(result.leftOut.map((l) => [l.path, l.rule])).toEqual([
      ['skills/a-long', 'skill-description'],
      ['skills/b-bad', 'skill-name'],
      ['skills/d-two', 'skill-name-unique'],
      ['skills/e-none', 'skill-front-matter'],
    ]);
  });

  it('follows symbolic links inside the repository and stores them as files', async () => {
    await writeFiles(repo, {
      'CLAUDE.md': '# Rules\n',
      'AGENTS.md': { link: 'CLAUDE.md' },
      'shared/refs.md': '# Shared\n',
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
      'skills/pdf/refs': { link: '../../shared' },
    });
    const result = await stageSkillsRepository(repo, stage);
    expect(result.files).toEqual(['AGENTS.md', 'CLAUDE.md']);
    expect((await lstat(join(stage, 'AGENTS.md'))).isFile()).toBe(true);
    expect(await readFile(join(stage, 'AGENTS.md'), 'utf8')).toBe('# Rules\n');
    expect((await lstat(join(stage, 'skills', 'pdf', 'refs'))).isDirectory()).toBe(true);
    expect(await readFile(join(stage, 'skills', 'pdf', 'refs', 'refs.md'), 'utf8')).toBe('# Shared\n');
  });

  it('takes one skill with only, and names the skills when the one asked for is missing', async () => {
    await writeFiles(repo, {
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
      'skills/docx/SKILL.md': skillMd('docx', 'Word work. Use with docx.'),
    });
    expect((await stageSkillsRepository(repo, stage, { only: ['docx'] })).skills.map((s) => s.name)).toEqual(['docx']);
    await expect(stageSkillsRepository(repo, join(work, 'other'), { only: ['xlsx'] })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
      message: expect.stringContaining('the skills are docx, pdf') as unknown,
    });
  });

  it('a repository without SKILL.md is E_NOT_FOUND', async () => {
    await writeFiles(repo, { 'README.md': '# Nothing\n' });
    await expect(stageSkillsRepository(repo, stage)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('prefers skills/ over a template skill elsewhere, and finds top-level <name>/SKILL.md without skills/', async () => {
    await writeFiles(repo, {
      'template/SKILL.md': skillMd('template-skill', 'A template. Use to copy.'),
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
    });
    expect((await stageSkillsRepository(repo, stage)).skills.map((s) => s.name)).toEqual(['pdf']);
    const flat = join(work, 'flat');
    await writeFiles(flat, { 'pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    expect((await stageSkillsRepository(flat, join(work, 'stage2'))).skills).toEqual([{ name: 'pdf', from: 'pdf', renamed: false }]);
  });
});

describe('attacks on staging (SECURITY.md "Skills repositories")', () => {
  it('add-refuses-link-leaving-repository: a SKILL.md or file linked outside is refused with its path, nothing read', async () => {
    const secret = join(work, 'secret.txt');
    await writeFile(secret, 'the user private notes\n');
    await writeFiles(repo, {
      'skills/leak/SKILL.md': skillMd('leak', 'Leaks. Use never.'),
      'skills/leak/notes.txt': { link: secret },
      'skills/steal/SKILL.md': { link: '/etc/hostname' },
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
      'AGENTS.md': { link: secret },
    });
    const result = await stageSkillsRepository(repo, stage);
    expect(result.skills.map((s) => s.name)).toEqual(['pdf']);
    expect(result.leftOut).toEqual([
      expect.objectContaining({
        path: 'skills/leak',
        rule: 'link-outside-repository',
        message: expect.stringContaining('skills/leak/notes.txt'),
      }),
      expect.objectContaining({
        path: 'skills/steal',
        rule: 'link-outside-repository',
        message: expect.stringContaining('skills/steal/SKILL.md'),
      }),
      expect.objectContaining({ path: 'AGENTS.md', rule: 'link-outside-repository' }),
    ]);
    const staged = JSON.stringify(await readTree(stage));
    expect(staged).not.toContain('private notes');
  });

  it('add-refuses-fifo-and-oversized-skill-md: a FIFO never blocks the read, a SKILL.md over the limit is left out', async () => {
    await writeFiles(repo, {
      'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.'),
      'skills/big/SKILL.md': skillMd('big', 'Big. Use never.', 'x'.repeat(MAX_SKILL_MD_BYTES)),
      'skills/pipe/placeholder': '',
    });
    execFileSync('mkfifo', [join(repo, 'skills', 'pipe', 'SKILL.md')]);
    await mkdir(join(repo, 'skills', 'fifo-inside'));
    await writeFile(join(repo, 'skills', 'fifo-inside', 'SKILL.md'), skillMd('fifo-inside', 'Has a pipe. Use never.'));
    execFileSync('mkfifo', [join(repo, 'skills', 'fifo-inside', 'pipe')]);
    const result = await stageSkillsRepository(repo, stage);
    expect(result.skills.map((s) => s.name)).toEqual(['pdf']);
    expect(result.leftOut.map((l) => [l.path, l.rule])).toEqual([
      ['skills/big', 'size-limit'],
      ['skills/fifo-inside', 'regular-files'],
    ]);
    // A folder whose SKILL.md is a FIFO is no skill at all: the FIFO is never opened.
  });

  it('add-refuses-link-loop: a folder linked into itself is left out, not copied forever', async () => {
    await writeFiles(repo, { 'skills/loop/SKILL.md': skillMd('loop', 'Loops. Use never.') });
    await symlink('..', join(repo, 'skills', 'loop', 'again'));
    const result = await stageSkillsRepository(repo, stage);
    expect(result.leftOut.map((l) => [l.path, l.rule])).toEqual([['skills/loop', 'regular-files']]);
  });
});

async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}
