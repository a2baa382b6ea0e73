/**
 * docs/skills.md: unlink and uninstall remove the folders Arcotheon made for its links (~/.cursor/skills,
 * ~/.cursor) once they are empty, and never a folder the user made.
 */
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { initSkillsRepository } from '../../../../sdk/src/format/skill-repo.js';
import { publishPackage } from '../../../../sdk/src/registry/builder/publish.js';
import type { Arcotheon } from '../../../../sdk/src/store/arcotheon.js';
import { buildSignedPackage } from '../../../../sdk/src/trust/package-signature.js';
import { LifecycleRegistry } from '../../../helpers/lifecycle-registry.js';
import { writeSkillsRepo } from '../../../helpers/skills-repo.js';

let reg: LifecycleRegistry;
let work: string;
beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  work = await mkdtemp(join(tmpdir(), 'adcap-made-'));
  const dir = join(work, 'src');
  await writeSkillsRepo(dir);
  await initSkillsRepository(dir, { id: 'obra/superpowers', version: '1.0.0' });
  await reg.registry.addPublisher('obra');
  const out = join(work, 'sp.adcap');
  await buildSignedPackage(dir, { out, keys: [reg.registry.keyOf('obra')] });
  await publishPackage(reg.registry.dir, out);
  await reg.registry.build();
});
afterAll(async () => {
  await reg.registry.cleanup();
  await rm(work, { recursive: true, force: true });
});

let userHome: string;
let arc: Arcotheon;
beforeEach(async () => {
  userHome = await mkdtemp(join(work, 'user-'));
  arc = reg.arcotheon(await reg.newHome());
  await arc.install('obra/superpowers', { approve: () => true });
});
const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('folders made for links', () => {
  it('unlink removes ~/.cursor/skills and ~/.cursor it made; the home is as before', async () => {
    const before = await readdir(userHome);
    await arc.linkSkills('obra/superpowers', { agent: 'cursor', userHome });
    expect(await exists(join(userHome, '.cursor', 'skills', 'pdf'))).toBe(true);
    await arc.unlinkSkills('obra/superpowers');
    expect(await exists(join(userHome, '.cursor'))).toBe(false);
    expect(await readdir(userHome)).toEqual(before);
  });

  it('never removes a folder the user made (~/.gemini existed), nor one the user put a file into', async () => {
    await mkdir(join(userHome, '.gemini'));
    await arc.linkSkills('obra/superpowers', { agent: 'gemini', userHome });
    await arc.linkSkills('obra/superpowers', { agent: 'cursor', userHome });
    await writeFile(join(userHome, '.cursor', 'skills', 'my-notes.md'), 'mine');
    await arc.uninstall('obra/superpowers');
    expect(await exists(join(userHome, '.gemini'))).toBe(true);
    expect(await exists(join(userHome, '.gemini', 'skills'))).toBe(false);
    expect(await readdir(join(userHome, '.cursor', 'skills'))).toEqual(['my-notes.md']);
  });
});
