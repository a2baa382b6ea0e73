/**
 * issue 13 through the host service (what the UI's "Use with…" control and MCP Copy button call):
 * agents.link / agents.unlink / agents.mcp with JSON arguments, over a real SDK and real packages.
 * Links go into a temporary project folder, never into the real home.
 */
import { lstat, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, buildPackage, initSkillsRepository, type LinkResult, type McpRegistration, type Plan } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { writeSkillsRepo } from '../../helpers/skills-repo.js';

let reg: LifecycleRegistry;
let skillsFile: string;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/echo', version: '1.0.0', tool: true }]);
  const repo = await mkdtemp(join(tmpdir(), 'adcap-host-skills-'));
  await writeSkillsRepo(repo);
  await initSkillsRepository(repo, { id: 'obra/superpowers' });
  skillsFile = (await buildPackage(repo, { out: join(repo, 'superpowers.adcap') })).file;
});

async function service(): Promise<HostService> {
  const home = await mkdtemp(join(tmpdir(), 'adcap-host-agents-'));
  return createHostService(new Arcotheon(reg.options(home)));
}

/**
 * The page never names files: a sideloaded package crosses the boundary as bytes
 * (sideload.begin/chunk/commit) and comes back as a handle to plan and install with.
 */
async function sideload(host: HostService, file: string): Promise<string> {
  const bytes = await readFile(file);
  const begun = (await host.dispatch('sideload.begin', [{ name: 'superpowers.adcap', size: bytes.length }])) as { ok: true; value: { upload: string } };
  expect(await host.dispatch('sideload.chunk', [begun.value.upload, 0, bytes.toString('base64')])).toMatchObject({ ok: true });
  const committed = (await host.dispatch('sideload.commit', [begun.value.upload])) as { ok: true; value: { file: string } };
  return committed.value.file;
}

describe('host service: agents', () => {
  it('links a capability\'s skills into a project for an agent, and unlinks them', async () => {
    const host = await service();
    const target = { sideload: await sideload(host, skillsFile) };
    const plan = (await host.dispatch('installs.plan', [target])) as { ok: true; value: Plan };
    expect(plan.value.items[0]?.skillPrograms?.map((p) => p.skill)).toEqual(['brainstorming', 'pdf']);
    const started = (await host.dispatch('installs.install', [target, { approvedDigest: plan.value.digest, allowUnsigned: true }])) as { ok: true; value: { operation: string } };
    expect(await host.dispatch('operations.wait', [started.value.operation])).toMatchObject({ ok: true, value: { ok: true } });
    const project = await mkdtemp(join(tmpdir(), 'adcap-host-project-'));
    const linked = (await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { project, skip: ['writing-plans'] }])) as { ok: true; value: LinkResult };
    expect(linked.ok).toBe(true);
    expect(linked.value.linked.map((l) => l.skill)).toEqual(['brainstorming', 'pdf']);
    expect(await readFile(join(project, '.claude', 'skills', 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf');
    expect(await host.dispatch('agents.unlink', ['obra/superpowers', 'claude-code'])).toMatchObject({ ok: true, value: { removed: [join(project, '.claude', 'skills', 'brainstorming'), join(project, '.claude', 'skills', 'pdf')] } });
    expect(await lstat(join(project, '.claude', 'skills', 'pdf')).catch(() => null)).toBeNull();
  });

  it('gives the MCP registration per agent for a capability with tools', async () => {
    const host = await service();
    const plan = (await host.dispatch('installs.plan', ['acme/echo'])) as { ok: true; value: Plan };
    const started = (await host.dispatch('installs.install', ['acme/echo', { approvedDigest: plan.value.digest }])) as { ok: true; value: { operation: string } };
    expect(await host.dispatch('operations.wait', [started.value.operation])).toMatchObject({ ok: true, value: { ok: true } });
    const mcp = (await host.dispatch('agents.mcp', [['acme/echo']])) as { ok: true; value: McpRegistration[] };
    expect(mcp.value.find((r) => r.agent === 'codex')?.line).toMatch(/^codex mcp add arcotheon-acme-echo -- adcap mcp acme\/echo --home /);
  });

  it('refuses options the UI may not choose, and malformed arguments', async () => {
    const host = await service();
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { userHome: '/etc' }])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { skip: [1] }])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('agents.mcp', [[]])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'emacs', {}])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
  });
});
