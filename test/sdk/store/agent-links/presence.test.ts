import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS, agentDefinition, type AgentId } from '../../../../sdk/src/store/agent-links/agents.js';
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

describe('an editor extension agent is present when its VS Code extension is installed', () => {
  it('a folder <publisher.name>-<version> in ~/.vscode/extensions (any case) shows Cline, Roo Code, Augment', async () => {
    const ext = join(home, '.vscode', 'extensions');
    await mkdir(join(ext, 'saoudrizwan.claude-dev-3.38.1'), { recursive: true });
    await mkdir(join(ext, 'RooVeterinaryInc.roo-cline-3.40.0'), { recursive: true });
    const remote = join(home, '.vscode-server', 'extensions');
    await mkdir(join(remote, 'augment.vscode-augment-0.600.0'), { recursive: true });
    const found = await detectAgents({ userHome: home, path: bin, platform: 'linux' });
    expect(found.filter((p) => p.present).map((p) => [p.agent.id, p.evidence])).toEqual([
      ['cline', `its VS Code extension ${join(ext, 'saoudrizwan.claude-dev-3.38.1')}`],
      ['roo-code', `its VS Code extension ${join(ext, 'RooVeterinaryInc.roo-cline-3.40.0')}`],
      ['augment', `its VS Code extension ${join(remote, 'augment.vscode-augment-0.600.0')}`],
    ]);
  });
  it('another extension whose id only begins the same, a file, or a skills folder is not', async () => {
    const ext = join(home, '.vscode', 'extensions');
    await mkdir(join(ext, 'saoudrizwan.claude-dev-nightly-1.0.0'), { recursive: true });
    await mkdir(join(ext, 'rooveterinaryinc.roo-cline-fork-2.0.0'), { recursive: true });
    await writeFile(join(ext, 'augment.vscode-augment-0.1.0'), '');
    for (const dir of ['.cline/skills', '.roo/skills', '.augment/skills', '.kiro/skills', '.qwen/skills', '.factory/skills'])
      await mkdir(join(home, ...dir.split('/')), { recursive: true });
    expect(await present()).toEqual([]);
  });
  it('the programs and configuration files of the CLI agents: kiro-cli, qwen, droid, auggie, amp', async () => {
    for (const program of ['kiro-cli', 'qwen', 'droid']) {
      await writeFile(join(bin, program), '#!/bin/sh\n');
      await chmod(join(bin, program), 0o755);
    }
    await mkdir(join(home, '.augment'));
    await writeFile(join(home, '.augment', 'settings.json'), '{}');
    await mkdir(join(home, '.config', 'amp'), { recursive: true });
    await writeFile(join(home, '.config', 'amp', 'settings.json'), '{}');
    expect(await present()).toEqual(['amp', 'kiro', 'qwen-code', 'droid', 'augment']);
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
  it('Amp and goose share ~/.config/agents/skills: one link serves both', () => {
    expect(folders(['goose', 'amp'])).toEqual([{ folder: '.config/agents/skills', agent: 'amp', serves: ['goose', 'amp'] }]);
  });
  it('Roo Code reads ~/.agents/skills too: one link there serves Codex, Gemini CLI and Roo Code; Kiro has its own', () => {
    expect(folders(['codex', 'gemini', 'roo-code', 'kiro'])).toEqual([
      { folder: '.agents/skills', agent: 'codex', serves: ['codex', 'gemini', 'roo-code'] },
      { folder: '.kiro/skills', agent: 'kiro', serves: ['kiro'] },
    ]);
  });
  it('Claude Code, Amp, goose and Augment all read ~/.claude/skills: one link serves the four', () => {
    expect(folders(['claude-code', 'goose', 'amp', 'augment'])).toEqual([
      { folder: '.claude/skills', agent: 'claude-code', serves: ['claude-code', 'goose', 'amp', 'augment'] },
    ]);
  });
  it('Claude Code, Codex and Copilot: Copilot reads ~/.claude/skills and ~/.agents/skills, so Codex gets ~/.codex/skills', () => {
    // Each agent reads every linked skill exactly once: a link in ~/.agents/skills would reach Copilot a second time.
    expect(folders(['claude-code', 'codex', 'copilot'])).toEqual([
      { folder: '.claude/skills', agent: 'claude-code', serves: ['claude-code', 'copilot'] },
      { folder: '.codex/skills', agent: 'codex', serves: ['codex'] },
    ]);
  });
  it('every agent present: each reads exactly one of the folders linked into', () => {
    const all = linkFolders(AGENTS);
    for (const agent of AGENTS)
      expect(
        all.filter((f) => f.serves.includes(agent.id)),
        agent.id,
      ).toHaveLength(1);
    for (const f of all) expect(f.serves).toEqual(AGENTS.filter((a) => a.personal.includes(f.folder)).map((a) => a.id));
  });
  it('when no choice reaches each agent once, the fewest folders that reach all, naming every agent that reads each', () => {
    // Made-up folders: A reads only x, B only y, C both: C then reads a skill twice, whatever is chosen.
    const as = (id: AgentId, personal: string[]) => ({ ...agentDefinition(id), personal });
    expect(linkFolders([as('claude-code', ['x']), as('cursor', ['y']), as('copilot', ['x', 'y'])])).toEqual([
      { folder: 'x', agent: 'claude-code', serves: ['claude-code', 'copilot'] },
      { folder: 'y', agent: 'cursor', serves: ['cursor', 'copilot'] },
    ]);
  });
  it('Gemini CLI alone links into its own first folder', () => {
    expect(folders(['gemini'])).toEqual([{ folder: '.gemini/skills', agent: 'gemini', serves: ['gemini'] }]);
  });
});
