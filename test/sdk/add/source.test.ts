import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSource, parseSource, suggestedId } from '../../../sdk/src/add/source.js';
import { commitFiles, initRepo } from '../../helpers/skills-git-repos.js';
import { skillMd } from '../../helpers/skills-repo.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-source-'));
  await mkdir(join(work, 'skills-folder'));
  await writeFile(join(work, 'pkg.adcap'), 'x');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('parseSource: every form adcap add takes (docs/skills.md)', () => {
  const parse = (text: string) => parseSource(text, { cwd: work });
  it('reads owner/repo, owner/repo/path, git URLs with #ref, GitHub tree URLs, folders and .adcap files', () => {
    expect(parse('obra/superpowers')).toMatchObject({
      kind: 'git',
      url: 'https://github.com/obra/superpowers.git',
      owner: 'obra',
      repo: 'superpowers',
    });
    expect(parse('anthropics/skills/skills/pdf')).toMatchObject({
      kind: 'git',
      url: 'https://github.com/anthropics/skills.git',
      path: 'skills/pdf',
    });
    expect(parse('https://example.org/team/tools.git#v1.2')).toMatchObject({
      kind: 'git',
      url: 'https://example.org/team/tools.git',
      ref: 'v1.2',
      owner: 'team',
      repo: 'tools',
    });
    expect(parse('git@github.com:vercel-labs/agent-skills.git')).toMatchObject({ kind: 'git', owner: 'vercel-labs', repo: 'agent-skills' });
    expect(parse('ssh://git@example.org/a/b')).toMatchObject({ kind: 'git', owner: 'a', repo: 'b' });
    expect(parse('file:///srv/git/acme/skills')).toMatchObject({
      kind: 'git',
      url: 'file:///srv/git/acme/skills',
      owner: 'acme',
      repo: 'skills',
    });
    expect(parse('https://github.com/anthropics/skills/tree/main/skills/pdf')).toMatchObject({
      kind: 'git',
      url: 'https://github.com/anthropics/skills.git',
      ref: 'main',
      path: 'skills/pdf',
    });
    expect(parse('skills-folder')).toEqual({ kind: 'folder', path: join(work, 'skills-folder'), display: join(work, 'skills-folder') });
    expect(parse('./pkg.adcap')).toMatchObject({ kind: 'adcap', file: join(work, 'pkg.adcap') });
  });

  it('refuses what it cannot read safely, with E_USAGE naming the forms', () => {
    expect(() => parse('http://example.org/a/b.git')).toThrow(
      expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('plain http') }),
    );
    expect(() => parse('git://example.org/a/b.git')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => parse('just-a-word')).toThrow(
      expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('owner/repo') }),
    );
    expect(() => parse('owner/repo/../etc')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => parse('./missing-folder')).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND' }));
  });

  it('names the capability owner/repo, owner/<skill> for one skill, local/<folder> for a folder', () => {
    expect(suggestedId(parse('obra/superpowers'))).toBe('obra/superpowers');
    expect(suggestedId(parse('Vercel-Labs/Agent_Skills'))).toBe('vercel-labs/agent-skills');
    expect(suggestedId(parse('anthropics/skills/skills/pdf'), 'pdf')).toBe('anthropics/pdf');
    expect(suggestedId(parse('skills-folder'))).toBe('local/skills-folder');
  });
});

describe('fetchSource: git run as a program, shallow, at a pinned commit', () => {
  it('fetches the default branch, a pinned earlier commit, and owner/repo through another base', async () => {
    const repo = join(work, 'git', 'acme', 'skills.git');
    const first = await initRepo(repo, { 'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    const second = await commitFiles(repo, { 'skills/docx/SKILL.md': skillMd('docx', 'Word. Use with docx.') }, 'second');
    const spec = parseSource(`file://${repo}`, { cwd: work });
    const head = await fetchSource(spec);
    try {
      expect(head.commit).toBe(second);
    } finally {
      await head.dispose();
    }
    const pinned = await fetchSource(spec, { pin: first });
    try {
      expect(pinned.commit).toBe(first);
    } finally {
      await pinned.dispose();
    }
    const short = await fetchSource(parseSource('acme/skills', { cwd: work, githubBase: `file://${join(work, 'git')}/` }));
    await short.dispose();
    expect(short.commit).toBe(second);
  });

  it('an unreachable repository, a commit no longer there and a missing folder are E_DOWNLOAD / E_NOT_FOUND', async () => {
    await expect(fetchSource(parseSource(`file://${join(work, 'nowhere')}`, { cwd: work }))).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
      message: expect.stringContaining('nothing was added') as unknown,
    });
    const repo = join(work, 'git', 'acme', 'skills.git');
    await expect(fetchSource(parseSource(`file://${repo}`, { cwd: work }), { pin: 'f'.repeat(40) })).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
      message: expect.stringContaining(`has no commit ${'f'.repeat(40)}`) as unknown,
    });
    await expect(fetchSource(parseSource(`file://${repo}`, { cwd: work }), { pin: 'no-such-branch' })).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
    });
    await expect(
      fetchSource(parseSource('acme/skills/skills/xlsx', { cwd: work, githubBase: `file://${join(work, 'git')}/` })),
    ).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });
});
