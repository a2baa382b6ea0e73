/**
 * Skills in agents through the host service (what the UI's "Use with…" control and MCP Copy button call):
 * agents.link / agents.unlink / agents.mcp checked against the method table, over a real SDK and
 * real packages. A project folder is a confirmed workspace handle; links go into a temporary
 * project folder, never into the real home.
 */
import { lstat, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, buildPackage, initSkillsRepository } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  LinkResultData,
  McpRegistrationData,
  PlanData,
  Result,
  SideloadFile,
  SideloadUpload,
  WorkspaceHandle,
} from '../../../electron/common/types.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { writeSkillsRepo } from '../../helpers/skills-repo.js';

let reg: LifecycleRegistry;
let skillsBytes: Buffer;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/echo', version: '1.0.0', tool: true }]);
  const repo = await mkdtemp(join(tmpdir(), 'adcap-host-skills-'));
  await writeSkillsRepo(repo);
  await initSkillsRepository(repo, { id: 'obra/superpowers' });
  skillsBytes = await readFile((await buildPackage(repo, { out: join(repo, 'superpowers.adcap') })).file);
});

function value<T>(result: Result<unknown>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

async function service(): Promise<HostService> {
  const home = await mkdtemp(join(tmpdir(), 'adcap-host-agents-'));
  return createHostService(new Arcotheon(reg.options(home)));
}

/** Sideloads the skills package the way the browser transport does, and installs it. */
async function installSkills(host: HostService): Promise<void> {
  const upload = value<SideloadUpload>(await host.dispatch('sideload.begin', [{ name: 'superpowers.adcap', size: skillsBytes.length }]));
  value(await host.dispatch('sideload.chunk', [upload.upload, 0, skillsBytes.toString('base64')]));
  const file = value<SideloadFile>(await host.dispatch('sideload.commit', [upload.upload]));
  const plan = value<PlanData>(await host.dispatch('installs.plan', [{ sideload: file.file }]));
  expect(plan.items[0]?.skillPrograms?.map((p) => p.skill)).toEqual(['brainstorming', 'pdf']);
  const op = value<{ operation: string }>(
    await host.dispatch('installs.install', [{ sideload: file.file }, { approvedDigest: plan.digest, allowUnsigned: true }]),
  );
  expect(await host.dispatch('operations.wait', [op.operation])).toMatchObject({ ok: true });
}

describe('host service: agents', () => {
  it("links a capability's skills into a confirmed project folder for an agent, and unlinks them", async () => {
    const host = await service();
    await installSkills(host);
    const project = await mkdtemp(join(tmpdir(), 'adcap-host-project-'));
    const handle = value<WorkspaceHandle>(await host.dispatch('workspaces.confirm', [project]));
    const linked = value<LinkResultData>(
      await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { project: handle.handle, skip: ['writing-plans'] }]),
    );
    expect(linked.linked.map((l) => l.skill)).toEqual(['brainstorming', 'pdf']);
    expect(await readFile(join(project, '.claude', 'skills', 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf');
    expect(await host.dispatch('agents.unlink', ['obra/superpowers', 'claude-code'])).toMatchObject({
      ok: true,
      value: { removed: [join(project, '.claude', 'skills', 'brainstorming'), join(project, '.claude', 'skills', 'pdf')] },
    });
    expect(await lstat(join(project, '.claude', 'skills', 'pdf')).catch(() => null)).toBeNull();
    await host.close();
  });

  it('gives the MCP registration per agent for a capability with tools', async () => {
    const host = await service();
    const plan = value<PlanData>(await host.dispatch('installs.plan', ['acme/echo']));
    const op = value<{ operation: string }>(await host.dispatch('installs.install', ['acme/echo', { approvedDigest: plan.digest }]));
    expect(await host.dispatch('operations.wait', [op.operation])).toMatchObject({ ok: true });
    const mcp = value<McpRegistrationData[]>(await host.dispatch('agents.mcp', [['acme/echo']]));
    expect(mcp.find((r) => r.agent === 'codex')?.line).toMatch(/^codex mcp add arcotheon-acme-echo -- adcap mcp acme\/echo --home /);
    await host.close();
  });

  it('refuses options the UI may not choose, a project path instead of a handle, and malformed arguments', async () => {
    const host = await service();
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { userHome: '/etc' }])).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE' },
    });
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { project: '/etc' }])).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE' },
    });
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'claude-code', { skip: [1] }])).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE' },
    });
    expect(await host.dispatch('agents.mcp', [[]])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('agents.link', ['obra/superpowers', 'emacs', {}])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    await host.close();
  });
});
