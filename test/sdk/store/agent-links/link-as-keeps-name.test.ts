/**
 * spec §3.1 (a skill's name is its folder's name) in the agent's folder: `--as pdf=superpowers-pdf`
 * links a copy whose SKILL.md says `name: superpowers-pdf`, kept so when the link follows an update.
 */
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initSkillsRepository } from '../../../../sdk/src/format/skill-repo.js';
import { publishPackage } from '../../../../sdk/src/registry/builder/publish.js';
import { buildSignedPackage } from '../../../../sdk/src/trust/package-signature.js';
import { LifecycleRegistry } from '../../../helpers/lifecycle-registry.js';
import { writeSkillsRepo } from '../../../helpers/skills-repo.js';

let reg: LifecycleRegistry;
let work: string;
async function publish(version: string): Promise<void> {
  const dir = await mkdtemp(join(work, 'src-'));
  await writeSkillsRepo(dir);
  await initSkillsRepository(dir, { id: 'obra/superpowers', version });
  if (!reg.registry.publisherKeys.has('obra')) await reg.registry.addPublisher('obra');
  const out = join(work, `sp-${version}.adcap`);
  await buildSignedPackage(dir, { out, keys: [reg.registry.keyOf('obra')] });
  await publishPackage(reg.registry.dir, out);
  await reg.registry.build();
}
beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  work = await mkdtemp(join(tmpdir(), 'adcap-as-'));
  await publish('1.0.0');
});
afterAll(async () => {
  await reg.registry.cleanup();
  await rm(work, { recursive: true, force: true });
});

describe('--as keeps folder = name', () => {
  it('links a renamed copy whose SKILL.md carries the new name, through an update, and unlink removes it', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    const userHome = await mkdtemp(join(work, 'user-'));
    await arc.install('obra/superpowers', { approve: () => true });
    const result = await arc.linkSkills('obra/superpowers', { agent: 'claude-code', userHome, as: { pdf: 'superpowers-pdf' } });
    const copy = join(userHome, '.claude', 'skills', 'superpowers-pdf');
    expect(result.linked.find((l) => l.skill === 'pdf')).toEqual({ skill: 'pdf', path: copy, mode: 'copy' });
    expect(result.linked.find((l) => l.skill === 'writing-plans')?.mode).toBe('symlink');
    expect((await lstat(copy)).isDirectory()).toBe(true);
    expect(await readFile(join(copy, 'SKILL.md'), 'utf8')).toMatch(/^---\nname: superpowers-pdf\ndescription: /);

    await publish('1.1.0');
    await arc.update(['obra/superpowers'], { approve: () => true });
    expect(JSON.parse(await readFile(join(copy, '.arcotheon-link.json'), 'utf8'))).toMatchObject({ version: '1.1.0', skill: 'pdf' });
    expect(await readFile(join(copy, 'SKILL.md'), 'utf8')).toContain('name: superpowers-pdf\n');
    expect((await arc.agents({ userHome, path: '' })).find((a) => a.id === 'claude-code')?.links.map((l) => [l.as, l.state])).toEqual([
      ['brainstorming', 'ok'],
      ['superpowers-pdf', 'ok'],
      ['writing-plans', 'ok'],
    ]);
    await arc.unlinkSkills('obra/superpowers');
    expect(await lstat(copy).catch(() => null)).toBeNull();
  });
});
