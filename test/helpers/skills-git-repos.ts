/**
 * Three local git repositories shaped like the public skills repositories docs/skills.md names (written
 * here, no text copied): "superpowers" (skills/<name>/ with scripts, a CLAUDE.md and an AGENTS.md
 * symbolic link to it at the top), "agent-skills" (three skills whose folder differs from their
 * name, CLAUDE.md a link to AGENTS.md) and "skills" (one more mismatched folder, one description
 * over 1,024 characters, a template skill outside skills/). Made with the real git program.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MIT_LICENSE, skillMd } from './skills-repo.js';

type Files = Record<string, string | { text: string; executable: true } | { link: string }>;

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Skill Author',
  GIT_AUTHOR_EMAIL: 'author@example.invalid',
  GIT_COMMITTER_NAME: 'Skill Author',
  GIT_COMMITTER_EMAIL: 'author@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export function git(repo: string, args: string[]): string {
  return execFileSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

export async function writeFiles(root: string, files: Files): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, ...path.split('/'));
    await mkdir(dirname(file), { recursive: true });
    await rm(file, { force: true });
    if (typeof content === 'string') await writeFile(file, content);
    else if ('link' in content) await symlink(content.link, file);
    else {
      await writeFile(file, content.text);
      await chmod(file, 0o755);
    }
  }
}

/** Writes `files` and commits them; returns the commit. */
export async function commitFiles(repo: string, files: Files, message: string): Promise<string> {
  await writeFiles(repo, files);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']);
}

export async function initRepo(repo: string, files: Files): Promise<string> {
  await mkdir(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  return commitFiles(repo, files, 'first');
}

export interface ShapedRepo {
  /** owner/repo, as `adcap add` names it from the URL. */
  id: string;
  dir: string;
  /** The skill names that go in. */
  skills: string[];
  /** Skill folders left out, with the rule. */
  leftOut: Array<{ path: string; rule: string }>;
  /** Folder -> name for the skills whose folder differs from their name. */
  renamed: Record<string, string>;
}

const long = (n: number): string =>
  `Reviews a change for problems. ${'It reads every file and checks each rule in turn. '.repeat(Math.ceil(n / 50))}`.slice(0, n);

/** Writes the three repositories under `root/<owner>/<repo>` and commits each. */
export async function writeShapedRepos(root: string): Promise<{ superpowers: ShapedRepo; agentSkills: ShapedRepo; skills: ShapedRepo }> {
  const superpowers = join(root, 'obra', 'superpowers');
  await initRepo(superpowers, {
    'README.md': '# Superpowers\n\nA library of skills for coding agents.\n',
    LICENSE: MIT_LICENSE,
    'CLAUDE.md': '# Working here\n\nRun the tests before each commit.\n',
    'AGENTS.md': { link: 'CLAUDE.md' },
    'skills/brainstorming/SKILL.md': skillMd('brainstorming', 'Turns an idea into a design through questions. Use before coding.'),
    'skills/brainstorming/scripts/start.sh': { text: '#!/bin/sh\necho started\n', executable: true },
    'skills/writing-plans/SKILL.md': skillMd('writing-plans', 'Writes a plan of small, tested steps. Use after brainstorming.'),
    'skills/test-driven-development/SKILL.md': skillMd('test-driven-development', 'Writes the failing test first. Use for every change.'),
    'skills/test-driven-development/LICENSE': { link: '../../LICENSE' },
    'skills/systematic-debugging/SKILL.md': skillMd('systematic-debugging', 'Finds the root cause before fixing. Use on any bug.'),
  });
  const agentSkills = join(root, 'vercel-labs', 'agent-skills');
  await initRepo(agentSkills, {
    'README.md': '# Agent Skills\n\nSkills for building on the web platform.\n',
    LICENSE: MIT_LICENSE,
    'AGENTS.md': '# Agents\n\nEach skill lives in skills/.\n',
    'CLAUDE.md': { link: 'AGENTS.md' },
    'skills/react-best-practices/SKILL.md': skillMd(
      'web-react-best-practices',
      'Performance rules for React apps. Use when writing React.',
    ),
    'skills/react-best-practices/rules/bundle.md': '# Keep bundles small\n',
    'skills/web-design-guidelines/SKILL.md': skillMd('web-interface-guidelines', 'Checks a UI against design rules. Use on review.'),
    'skills/deploy-to-host/SKILL.md': skillMd('host-deploy', 'Deploys a project. Use when asked to ship.'),
    'skills/deploy-to-host/scripts/deploy.sh': { text: '#!/bin/sh\necho deploying\n', executable: true },
    'skills/composition-patterns/SKILL.md': skillMd(
      'composition-patterns',
      'Component composition patterns. Use when designing components.',
    ),
  });
  const skills = join(root, 'anthropics', 'skills');
  await initRepo(skills, {
    'README.md': '# Skills\n\nExample skills for agents.\n',
    'template/SKILL.md': skillMd('template-skill', 'A template to copy. Replace this description.'),
    'spec/agent-skills-spec.md': '# The format\n\nSee the specification.\n',
    'skills/pdf/SKILL.md': skillMd('pdf', 'Reads and fills PDF files. Use with PDFs.'),
    'skills/pdf/scripts/fill.py': 'print("filling")\n',
    'skills/docx/SKILL.md': skillMd('docx', 'Creates and edits Word documents. Use with .docx files.'),
    'skills/code-review/SKILL.md': skillMd('code-review', long(1077)),
    'skills/brand-guidelines/SKILL.md': skillMd('brand-identity', 'Applies brand colours and type. Use on any artefact.'),
  });
  return {
    superpowers: {
      id: 'obra/superpowers',
      dir: superpowers,
      skills: ['brainstorming', 'systematic-debugging', 'test-driven-development', 'writing-plans'],
      leftOut: [],
      renamed: {},
    },
    agentSkills: {
      id: 'vercel-labs/agent-skills',
      dir: agentSkills,
      skills: ['composition-patterns', 'host-deploy', 'web-interface-guidelines', 'web-react-best-practices'],
      leftOut: [],
      renamed: {
        'skills/react-best-practices': 'web-react-best-practices',
        'skills/web-design-guidelines': 'web-interface-guidelines',
        'skills/deploy-to-host': 'host-deploy',
      },
    },
    skills: {
      id: 'anthropics/skills',
      dir: skills,
      skills: ['brand-identity', 'docx', 'pdf'],
      leftOut: [{ path: 'skills/code-review', rule: 'skill-description' }],
      renamed: { 'skills/brand-guidelines': 'brand-identity' },
    },
  };
}
