import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCapability } from '../../../sdk/src/add/add.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { initRepo } from '../../helpers/skills-git-repos.js';
import { skillMd } from '../../helpers/skills-repo.js';

/** docs/skills.md: the installed view says "added by you from <source> at <commit>", as `adcap list` does. */
let reg: LifecycleRegistry;
let work: string;
beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  work = await mkdtemp(join(tmpdir(), 'adcap-host-added-'));
});
afterAll(async () => {
  await reg.registry.cleanup();
  await rm(work, { recursive: true, force: true });
});

describe('installs.overview of an added capability', () => {
  it('carries its origin and the sentence', async () => {
    const repo = join(work, 'git', 'obra', 'superpowers');
    const commit = await initRepo(repo, { 'skills/brainstorming/SKILL.md': skillMd('brainstorming', 'Designs first. Use before code.') });
    const arc = new Arcotheon(reg.options(join(work, 'home')));
    await addCapability(arc, `file://${repo}`, { cwd: work, configDir: join(work, 'config'), approve: () => true });
    const api = createHostService(arc).api;
    const overview = await api.installs.overview();
    if (!overview.ok) throw new Error(overview.error.message);
    expect(overview.value).toEqual([
      expect.objectContaining({
        id: 'obra/superpowers',
        addedFrom: `added by you from file://${repo} at ${commit.slice(0, 12)}`,
        source: expect.objectContaining({ kind: 'file', added: expect.objectContaining({ commit, kind: 'git' }) }) as unknown,
      }),
    ]);
  });
});
