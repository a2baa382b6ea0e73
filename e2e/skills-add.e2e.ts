import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, writeShapedRepos, type ShapedRepo } from '../test/helpers/skills-git-repos.js';
import { skillMd } from '../test/helpers/skills-repo.js';
import { adcap, assertBuilt, ok } from './helpers/adcap.js';

/**
 * docs/skills.md, evidence: three local git repositories shaped like obra/superpowers,
 * vercel-labs/agent-skills and anthropics/skills, each brought in with one `adcap add` by the BUILT
 * CLI, linked into a fake HOME where two agents are installed (Codex as a program on PATH, Claude
 * Code as its configuration file); update after a new commit, rollback, and uninstall leaving the
 * HOME as it was.
 */

let work: string;
let me: string;
let env: NodeJS.ProcessEnv;
let repos: Awaited<ReturnType<typeof writeShapedRepos>>;

/** Every path under `dir` with its content (files), link target (links) or "dir". */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string, rel: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      const key = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymbolicLink()) out[key] = `-> ${await readlink(full)}`;
      else if (entry.isDirectory()) {
        out[key] = 'dir';
        await walk(full, key);
      } else out[key] = await readFile(full, 'utf8');
    }
  };
  await walk(dir, '');
  return out;
}

beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-add-'));
  me = join(work, 'me');
  // Claude Code "installed": its own configuration file (no skills folder exists yet).
  await mkdir(me, { recursive: true });
  await writeFile(join(me, '.claude.json'), '{"numStartups": 3}\n');
  // Codex "installed": a program named codex on PATH.
  const bin = join(work, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'codex'), '#!/bin/sh\nexit 0\n');
  await chmod(join(bin, 'codex'), 0o755);
  repos = await writeShapedRepos(join(work, 'git'));
  env = {
    ...process.env,
    HOME: me,
    // Only the fake agent, git and node on PATH, so agents installed on the test machine do not count.
    PATH: [bin, '/usr/bin', '/bin', dirname(process.execPath)].join(':'),
    // The user's own publisher key goes to their configuration folder; here outside the fake HOME,
    // so the HOME can be compared before and after (a user's key stays in ~/.config/arcotheon).
    XDG_CONFIG_HOME: join(work, 'config'),
    // A private Arcotheon home per test run instead of the user's data folder.
    ARCOTHEON_HOME: join(work, 'arcotheon'),
  };
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface AddJson {
  id: string;
  version: string;
  origin: { source: string; commit: string };
  skills: Array<{ name: string; from: string; renamed: boolean }>;
  leftOut: Array<{ path: string; rule: string }>;
  links: { present: Array<{ agent: string }>; links: Array<{ dir: string; serves: string[]; linked: Array<{ skill: string }> }> };
}

async function add(repo: ShapedRepo): Promise<AddJson> {
  const run = ok(await adcap(['add', `file://${repo.dir}`, '--yes', '--json'], { cwd: work, env }));
  return JSON.parse(run.stdout) as AddJson;
}

describe('adcap add: three repositories as they are, in one command each', () => {
  let before: Record<string, string>;

  it('finds the two installed agents, not the others', async () => {
    before = await snapshot(me);
    const agents = JSON.parse(ok(await adcap(['agents', '--json'], { env })).stdout) as Array<{ id: string; present: boolean }>;
    expect(agents.filter((a) => a.present).map((a) => a.id)).toEqual(['claude-code', 'codex']);
  });

  it('adds each repository with the right skills, left-out skills named with their rule, links in both agents', async () => {
    for (const repo of [repos.superpowers, repos.agentSkills, repos.skills]) {
      const result = await add(repo);
      expect(result.id).toBe(repo.id);
      expect(result.version).toBe('0.1.0');
      expect(result.origin.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(result.skills.map((s) => s.name).sort()).toEqual(repo.skills);
      expect(result.leftOut.map((l) => ({ path: l.path, rule: l.rule }))).toEqual(repo.leftOut);
      for (const [from, name] of Object.entries(repo.renamed)) expect(result.skills).toContainEqual({ name, from, renamed: true });
      expect(result.links.present.map((p) => p.agent)).toEqual(['claude-code', 'codex']);
      expect(result.links.links.map((l) => l.dir).sort()).toEqual([join(me, '.agents', 'skills'), join(me, '.claude', 'skills')]);
      for (const skill of repo.skills) {
        for (const dir of ['.claude/skills', '.agents/skills']) {
          const link = join(me, dir, skill);
          expect((await lstat(link)).isSymbolicLink()).toBe(true);
          // spec §3.1 holds in the linked copy: the folder is the skill's name.
          expect(await readFile(join(link, 'SKILL.md'), 'utf8')).toContain(`name: ${skill}\n`);
        }
      }
    }
    // The symbolic link at the top of the repository was followed and stored as a file.
    const installed = join(work, 'arcotheon', 'packages', 'obra', 'superpowers', '0.1.0');
    expect((await lstat(join(installed, 'AGENTS.md'))).isFile()).toBe(true);
    expect(await readFile(join(installed, 'AGENTS.md'), 'utf8')).toContain('Run the tests before each commit.');
    const list = ok(await adcap(['list'], { env })).stdout;
    expect(list).toContain(`obra/superpowers@0.1.0 [added by you from file://${repos.superpowers.dir} at `);
    // The installs and their links check out like any other (signed files, links at the active version).
    expect(ok(await adcap(['doctor'], { env })).stdout).toContain('no problems found');
  });

  it('update after a new commit shows the change and applies it; rollback returns', async () => {
    const commit = await commitFiles(
      repos.superpowers.dir,
      {
        'skills/writing-plans/SKILL.md': skillMd('writing-plans', 'Writes a plan of small, tested steps. Use after a design.'),
        'skills/finishing-a-branch/SKILL.md': skillMd('finishing-a-branch', 'Merges or opens a pull request. Use when work is done.'),
        'skills/finishing-a-branch/scripts/merge.sh': { text: '#!/bin/sh\necho merged\n', executable: true },
      },
      'second',
    );
    // Programs grew, so without --yes (and no terminal) the update asks and is refused.
    const refused = await adcap(['update', 'obra/superpowers'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('programs added: finishing-a-branch/scripts/merge.sh');
    expect(refused.stderr).toContain('E_DENIED');
    const updated = ok(await adcap(['update', 'obra/superpowers', '--yes'], { env })).stdout;
    expect(updated).toContain('skills added: finishing-a-branch');
    expect(updated).toContain('skills changed: writing-plans');
    expect(updated).toContain(`at ${commit.slice(0, 12)}`);
    expect(updated).toContain('updated obra/superpowers 0.1.0 -> 0.1.1');
    expect(await readFile(join(me, '.claude', 'skills', 'writing-plans', 'SKILL.md'), 'utf8')).toContain('after a design');
    expect((await lstat(join(me, '.agents', 'skills', 'finishing-a-branch'))).isSymbolicLink()).toBe(true);
    const again = ok(await adcap(['update', 'obra/superpowers', '--yes'], { env })).stdout;
    expect(again).toContain('up to date');

    ok(await adcap(['rollback', 'obra/superpowers'], { env }));
    expect(await readFile(join(me, '.claude', 'skills', 'writing-plans', 'SKILL.md'), 'utf8')).toContain('after brainstorming');
    expect(await lstat(join(me, '.claude', 'skills', 'finishing-a-branch')).catch(() => null)).toBeNull();
    expect(ok(await adcap(['list'], { env })).stdout).toContain('obra/superpowers@0.1.0 [added by you from');
  });

  it('bad input is a coded error and installs nothing', async () => {
    const empty = join(work, 'git', 'someone', 'empty');
    await mkdir(empty, { recursive: true });
    await writeFile(join(empty, 'README.md'), '# Nothing here\n');
    const none = await adcap(['add', empty, '--yes'], { env });
    expect(none.stderr).toMatch(/^error E_NOT_FOUND: .*holds no skill/m);
    const gone = await adcap(['add', `file://${join(work, 'git', 'nobody', 'nothing')}`, '--yes'], { env });
    expect(gone.stderr).toMatch(/^error E_DOWNLOAD: Cannot fetch file:\/\//m);
    const ids = (JSON.parse(ok(await adcap(['list', '--json'], { env })).stdout) as Array<{ id: string }>).map((c) => c.id);
    expect(ids.sort()).toEqual(['anthropics/skills', 'obra/superpowers', 'vercel-labs/agent-skills']);
  });

  it('uninstall leaves the HOME as it was', async () => {
    for (const id of ['obra/superpowers', 'vercel-labs/agent-skills', 'anthropics/skills']) ok(await adcap(['uninstall', id], { env }));
    expect(await snapshot(me)).toEqual(before);
    const agents = JSON.parse(ok(await adcap(['agents', '--json'], { env })).stdout) as Array<{ id: string; present: boolean }>;
    expect(agents.filter((a) => a.present).map((a) => a.id)).toEqual(['claude-code', 'codex']);
  });
});
