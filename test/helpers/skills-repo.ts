/**
 * Real-shaped Agent Skills repositories for the skills tests: the layout of public skills
 * repositories (skills/<name>/SKILL.md with scripts/, references/ and assets/, a README, a LICENSE,
 * a .git folder), written to disk so init, build, install and link work on real files.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const MIT_LICENSE = `MIT License

Copyright (c) 2026 Skill Authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software.
`;

export const LFS_POINTER =
  'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';

export interface SkillsRepoOptions {
  /** "skills": skills/<name>/SKILL.md (default); "top": <name>/SKILL.md at the top. */
  layout?: 'skills' | 'top';
  /** Adds two broken skills: a name that differs from its folder, and a missing description. */
  broken?: boolean;
  /** Adds a Git LFS pointer file and a file holding an access token. */
  hazards?: boolean;
  /** Extra skills (name -> description), e.g. a second version's new skill. */
  extraSkills?: Record<string, string>;
  readme?: string | null;
  license?: string | null;
}

export function skillMd(name: string, description: string, body = 'Follow these steps.'): string {
  return `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n\n# ${name}\n\n${body}\n`;
}

/** Writes the repository into `root` and returns the skill folder names it holds (valid ones). */
export async function writeSkillsRepo(root: string, options: SkillsRepoOptions = {}): Promise<string[]> {
  const base = options.layout === 'top' ? '' : 'skills/';
  const files: Record<string, string | { text: string; executable: true }> = {
    [`${base}brainstorming/SKILL.md`]: skillMd(
      'brainstorming',
      'Turns a rough idea into a design through questions. Use before writing code for a new feature.',
    ),
    [`${base}brainstorming/scripts/start-session.sh`]: { text: '#!/bin/sh\necho "session started"\n', executable: true },
    [`${base}brainstorming/scripts/collect.py`]: 'print("collecting ideas")\n',
    [`${base}brainstorming/helpers/render.js`]: 'console.log("rendered");\n',
    [`${base}brainstorming/references/questions.md`]: '# Questions to ask\n\n- What problem does this solve?\n',
    [`${base}writing-plans/SKILL.md`]: skillMd(
      'writing-plans',
      'Writes an implementation plan with small, testable steps. Use after brainstorming.',
    ),
    [`${base}writing-plans/references/template.md`]: '# Plan template\n',
    [`${base}pdf/SKILL.md`]: skillMd('pdf', 'Extracts text and tables from PDF files and fills PDF forms. Use when working with PDFs.'),
    [`${base}pdf/forms.py`]: 'import sys\nprint(sys.argv)\n',
    '.git/config': '[core]\n\trepositoryformatversion = 0\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.github/workflows/ci.yml': 'name: ci\n',
  };
  if (options.readme !== null) {
    files['README.md'] =
      options.readme ??
      '# Superpowers\n\n[![CI](https://example.com/badge.svg)](https://example.com)\n' +
        '\nCore skills for coding agents: brainstorming, planning and PDF work. ' +
        'Install them in any agent.\n\n## Skills\n\n- brainstorming\n';
  }
  if (options.license !== null) files['LICENSE'] = options.license ?? MIT_LICENSE;
  if (options.broken === true) {
    // The name differs from the folder (a common mistake), and a description is missing.
    files[`${base}composition-patterns/SKILL.md`] = skillMd('vercel-composition-patterns', 'React composition patterns.');
    files[`${base}no-description/SKILL.md`] = '---\nname: no-description\n---\n\n# Nothing\n';
  }
  if (options.hazards === true) {
    files[`${base}pdf/assets/template.pdf`] = LFS_POINTER;
    // A token is warned about (a private key would be refused outright).
    files[`${base}pdf/notes/deploy.txt`] = `GITHUB_TOKEN=ghp_${'x1Y2z3'.repeat(6)}\n`;
  }
  for (const [name, description] of Object.entries(options.extraSkills ?? {}))
    files[`${base}${name}/SKILL.md`] = skillMd(name, description);
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    if (typeof content === 'string') await writeFile(target, content);
    else {
      await writeFile(target, content.text);
      await chmod(target, 0o755);
    }
  }
  return ['brainstorming', 'pdf', 'writing-plans', ...Object.keys(options.extraSkills ?? {})].sort();
}
