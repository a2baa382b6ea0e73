/**
 * docs/skills.md: addCapability through the SDK: the user's own key (made once in the configuration
 * folder, 0600, trusted for what add built and nothing else), and bad input that installs nothing.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addCapability, updateAdded } from '../../../sdk/src/add/add.js';
import { OWN_KEY_FILE, ownPublisherKey, userConfigDir } from '../../../sdk/src/add/own-key.js';
import { initSkillsRepository } from '../../../sdk/src/format/skill-repo.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { buildSignedPackage } from '../../../sdk/src/trust/package-signature.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { commitFiles, git, initRepo, writeFiles } from '../../helpers/skills-git-repos.js';
import { skillMd } from '../../helpers/skills-repo.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let reg: LifecycleRegistry;
let work: string;
let arc: Arcotheon;
let configDir: string;
beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  work = await mkdtemp(join(tmpdir(), 'adcap-add-'));
});
afterAll(async () => {
  await reg.registry.cleanup();
  await rm(work, { recursive: true, force: true });
});
beforeEach(async () => {
  arc = reg.arcotheon(await reg.newHome());
  configDir = await mkdtemp(join(work, 'config-'));
});

describe('the user own publisher key', () => {
  it('is made once, mode 0600, in the configuration folder, and reused', async () => {
    const first = await ownPublisherKey(configDir);
    expect(first.created).toBe(true);
    expect(first.file).toBe(join(configDir, OWN_KEY_FILE));
    expect((await stat(first.file)).mode & 0o777).toBe(0o600);
    const again = await ownPublisherKey(configDir);
    expect(again).toMatchObject({ created: false, trusted: first.trusted });
  });

  it('lives in XDG_CONFIG_HOME/arcotheon (else ~/.config/arcotheon), never in a repository', () => {
    expect(userConfigDir('linux', { XDG_CONFIG_HOME: '/x/conf' }, '/home/me')).toBe('/x/conf/arcotheon');
    expect(userConfigDir('linux', { XDG_CONFIG_HOME: 'relative' }, '/home/me')).toBe('/home/me/.config/arcotheon');
    expect(userConfigDir('darwin', {}, '/Users/me')).toBe('/Users/me/Library/Preferences/Arcotheon');
  });

  it('own-key-trusted-only-for-added: a package signed with the own key installs from a file as signed by an unknown key', async () => {
    const own = await ownPublisherKey(configDir);
    const src = await mkdtemp(join(work, 'src-'));
    await writeFiles(src, { 'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    await initSkillsRepository(src, { id: 'obra/superpowers', version: '9.0.0' });
    const out = join(work, 'own-signed.adcap');
    await buildSignedPackage(src, { out, keys: [own.key] });
    const plan = await arc.plan({ file: out });
    expect(plan.items[0]?.source).toMatchObject({ kind: 'file', unknownSigner: true });
    await expect(arc.install({ file: out }, { approve: () => true })).rejects.toMatchObject({ code: 'E_DENIED' });
    expect(await arc.list()).toEqual([]);
  });
});

describe('addCapability: nothing half-installed', () => {
  it('a source whose every skill breaks a rule is E_SEMANTIC naming each, and nothing is installed', async () => {
    const repo = join(work, 'git', 'bad', 'skills');
    await initRepo(repo, { 'skills/long/SKILL.md': skillMd('long', 'y'.repeat(1100)) });
    await expect(addCapability(arc, `file://${repo}`, { cwd: work, configDir, approve: () => true })).rejects.toMatchObject({
      code: 'E_SEMANTIC',
      message: expect.stringContaining('skills/long [skill-description]') as unknown,
    });
    expect(await arc.list()).toEqual([]);
  });

  it('a refused plan installs nothing; an id installed from a registry is not replaced', async () => {
    const repo = join(work, 'git', 'good', 'skills');
    await initRepo(repo, { 'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    await expect(addCapability(arc, `file://${repo}`, { cwd: work, configDir, approve: () => false })).rejects.toMatchObject({
      code: 'E_DENIED',
    });
    expect(await arc.list()).toEqual([]);
    const added = await addCapability(arc, `file://${repo}`, { cwd: work, configDir, approve: () => true });
    expect(added).toMatchObject({ id: 'good/skills', version: '0.1.0', applied: true });
    const [listed] = await arc.list();
    expect(listed?.source).toMatchObject({ kind: 'file', unsigned: false, unknownSigner: false, added: { commit: added.origin.commit } });
    expect(await readdir(join(storeOf(arc).home.root, 'packages', 'good', 'skills'))).toContain('0.1.0');

    await reg.publishAll([{ id: 'acme/registry-one', version: '1.0.0' }]);
    await arc.install('acme/registry-one', { approve: () => true });
    await expect(
      addCapability(arc, `file://${repo}`, { cwd: work, configDir, id: 'acme/registry-one', approve: () => true }),
    ).rejects.toMatchObject({ code: 'E_CONFLICT', message: expect.stringContaining('installed from a registry') as unknown });
    expect((await storeOf(arc).state('acme/registry-one')).active).toBe('1.0.0');
  });
});

describe('bad input is a coded error, and the home is left as it was (docs/skills.md "What adcap add does")', () => {
  const packagesOf = async (): Promise<string[]> => readdir(join(storeOf(arc).home.root, 'packages')).catch(() => []);

  it('an unreachable URL is E_DOWNLOAD; a repository without SKILL.md is E_NOT_FOUND; nothing is installed', async () => {
    await expect(
      addCapability(arc, `file://${join(work, 'git', 'no-such', 'repo')}`, { cwd: work, configDir, approve: () => true }),
    ).rejects.toMatchObject({ code: 'E_DOWNLOAD', message: expect.stringContaining('nothing was added') as unknown });
    const empty = join(work, 'git', 'docs-only', 'repo');
    await initRepo(empty, { 'README.md': '# no skills here\n', 'docs/guide.md': 'text\n' });
    await expect(addCapability(arc, `file://${empty}`, { cwd: work, configDir, approve: () => true })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
    });
    expect(await arc.list()).toEqual([]);
    expect(await packagesOf()).toEqual([]);
  });

  it('a pinned commit the repository no longer has (history rewritten): update is E_DOWNLOAD and the install is unchanged', async () => {
    const repo = join(work, 'git', 'rewritten', 'skills');
    const first = await initRepo(repo, { 'skills/pdf/SKILL.md': skillMd('pdf', 'PDF work. Use with PDFs.') });
    const pinned = await commitFiles(repo, { 'skills/docx/SKILL.md': skillMd('docx', 'Word. Use with docx.') }, 'second');
    const added = await addCapability(arc, `file://${repo}#${pinned}`, { cwd: work, configDir, approve: () => true });
    expect(added).toMatchObject({ id: 'rewritten/skills', version: '0.1.0', origin: { commit: pinned, ref: pinned } });
    const before = await arc.installedManifest('rewritten/skills');

    // The source's history is rewritten: the pinned commit is gone from it.
    git(repo, ['reset', '-q', '--hard', first]);
    git(repo, ['reflog', 'expire', '--expire=now', '--all']);
    git(repo, ['gc', '-q', '--prune=now']);
    await expect(updateAdded(arc, 'rewritten/skills', { configDir, approve: () => true })).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
      message: expect.stringContaining(`has no commit ${pinned} (any more)`) as unknown,
    });
    expect((await storeOf(arc).state('rewritten/skills')).active).toBe('0.1.0');
    expect(await arc.installedManifest('rewritten/skills')).toEqual(before);
    expect((await readdir(join(storeOf(arc).home.root, 'packages', 'rewritten', 'skills'))).sort()).toEqual(['0.1.0', 'state.json']);
  });
});
