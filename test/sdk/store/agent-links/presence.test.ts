import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentDefinition } from '../../../../sdk/src/store/agent-links/agents.js';
import { detectAgents, linkFolders } from '../../../../sdk/src/store/agent-links/presence.js';

let work: string;
let home: string;
let bin: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-presence-'));
  home = join(work, 'home');
  bin = join(work, 'bin');
  await mkdir(home);
  await mkdir(bin);
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

const present = async (): Promise<string[]> =>
  (await detectAgents({ userHome: home, path: bin, platform: 'linux' })).filter((p) => p.present).map((p) => p.agent.id);

describe('an agent is present only when the agent itself is (docs/skills.md)', () => {
  it('skills folders, even every agent folder, are no sign of an agent', async () => {
    for (const dir of [
      '.claude/skills',
      '.agents/skills',
      '.codex/skills',
      '.copilot/skills',
      '.cursor/skills',
      '.gemini/skills',
      '.config/opencode/skills',
    ])
      await mkdir(join(home, ...dir.split('/')), { recursive: true });
    expect(await present()).toEqual([]);
  });

  it('a program on PATH (executable) or its own configuration file is', async () => {
    await writeFile(join(bin, 'gemini'), '#!/bin/sh\n');
    await writeFile(join(bin, 'claude'), 'not executable');
    expect(await present()).toEqual([]);
    await chmod(join(bin, 'gemini'), 0o755);
    await mkdir(join(home, '.cursor'));
    await writeFile(join(home, '.cursor', 'cli-config.json'), '{}');
    const found = await detectAgents({ userHome: home, path: bin, platform: 'linux' });
    expect(found.filter((p) => p.present).map((p) => [p.agent.id, p.evidence])).toEqual([
      ['cursor', `its configuration ${join(home, '.cursor', 'cli-config.json')}`],
      ['gemini', `the program gemini on PATH (${join(bin, 'gemini')})`],
    ]);
  });
});

describe('one link per folder several present agents read', () => {
  const folders = (ids: string[]) => linkFolders(ids.map(agentDefinition));
  it('Codex, Copilot and Gemini CLI all read ~/.agents/skills: one folder serves the three', () => {
    expect(folders(['codex', 'copilot', 'gemini'])).toEqual([
      { folder: '.agents/skills', agent: 'codex', serves: ['codex', 'copilot', 'gemini'] },
    ]);
  });
  it('Claude Code and Copilot share ~/.claude/skills; Cursor keeps its own folder', () => {
    expect(folders(['claude-code', 'copilot', 'cursor'])).toEqual([
      { folder: '.claude/skills', agent: 'claude-code', serves: ['claude-code', 'copilot'] },
      { folder: '.cursor/skills', agent: 'cursor', serves: ['cursor'] },
    ]);
  });
  it('goose reads ~/.claude/skills too: one link serves Claude Code and goose; Windsurf has its own folder', () => {
    expect(folders(['claude-code', 'goose', 'windsurf'])).toEqual([
      { folder: '.claude/skills', agent: 'claude-code', serves: ['claude-code', 'goose'] },
      { folder: '.codeium/windsurf/skills', agent: 'windsurf', serves: ['windsurf'] },
    ]);
  });
  it('Gemini CLI alone links into its own first folder', () => {
    expect(folders(['gemini'])).toEqual([{ folder: '.gemini/skills', agent: 'gemini', serves: ['gemini'] }]);
  });
});
