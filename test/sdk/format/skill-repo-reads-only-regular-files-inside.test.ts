/**
 * `adcap init` and `adcap build` read a repository that someone else wrote (SECURITY.md, "Source
 * folders"). The attacks: SKILL.md as a link to /dev/stdin (init hung), to /dev/zero (init ate
 * memory until it died), a 300 MiB SKILL.md (the process aborted), and a link to a file outside the
 * repository (its text, a private key, went into capability.json). Each is run through the real
 * CLI as a child process with a deadline, so a hang or a crash fails the test instead of the run.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { initSkillsRepository } from '../../../sdk/src/format/skill-repo.js';
import { readSourceText } from '../../../sdk/src/format/source-read.js';
import { rejection } from '../../helpers/errors.js';
import { ADCAP_FIXTURE, bundleTs } from '../../helpers/spawn-ts.js';

const SKILL = '---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n';
const SECRET = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n-----END OPENSSH PRIVATE KEY-----\n';

let work: string;
let outsideSecret: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-source-read-'));
  outsideSecret = join(work, 'id_ed25519');
  await writeFile(outsideSecret, SECRET);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A skills repository with skills/pdf/SKILL.md made by `make` (a link, a big file...) and skills/ok. */
async function repository(make: (skillMd: string) => Promise<void>): Promise<string> {
  const root = await mkdtemp(join(work, 'repo-'));
  await mkdir(join(root, 'skills', 'pdf'), { recursive: true });
  await mkdir(join(root, 'skills', 'ok'), { recursive: true });
  await writeFile(join(root, 'skills', 'ok', 'SKILL.md'), '---\nname: ok\ndescription: Fine.\n---\n# Ok\n');
  await make(join(root, 'skills', 'pdf', 'SKILL.md'));
  return root;
}

/** `adcap init <root> --id acme/skills` as a child process whose stdin stays open, killed after 20 s. */
async function initChild(root: string): Promise<{ code: number | null; stderr: string; ms: number; killed: boolean }> {
  const bundle = await bundleTs(ADCAP_FIXTURE);
  const started = Date.now();
  // A 512 MiB heap: an unbounded read dies (or is killed) instead of taking the machine's memory.
  const child = spawn(process.execPath, ['--max-old-space-size=512', bundle, 'init', root, '--id', 'acme/skills'], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  child.stdin.destroy();
  return { code, stderr, ms: Date.now() - started, killed };
}

describe('adcap init reads only regular files inside the repository, with a size limit', () => {
  it('a control: a plain repository is initialised', async () => {
    const root = await repository((p) => writeFile(p, SKILL));
    const run = await initChild(root);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(root, 'capability.json'), 'utf8')).skills).toEqual([
      { path: 'skills/ok' },
      { path: 'skills/pdf' },
    ]);
  });

  it('SKILL.md linked to /dev/stdin does not hang: E_ENTRY_TYPE naming the path', async () => {
    const root = await repository((p) => symlink('/dev/stdin', p));
    const run = await initChild(root);
    expect(run.killed, 'init hung reading /dev/stdin').toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('skills/pdf/SKILL.md');
    expect(run.stderr).toMatch(/E_ENTRY_TYPE/);
  }, 30_000);

  it('SKILL.md linked to /dev/zero does not eat memory: E_ENTRY_TYPE', async () => {
    const root = await repository((p) => symlink('/dev/zero', p));
    const run = await initChild(root);
    expect(run.killed, 'init kept reading /dev/zero').toBe(false);
    expect(run.stderr).toMatch(/E_ENTRY_TYPE/);
    expect(run.stderr).toContain('skills/pdf/SKILL.md');
    expect(run.ms).toBeLessThan(15_000);
  }, 30_000);

  it('a 300 MiB SKILL.md does not abort the process: E_LIMIT naming the path', async () => {
    // A sparse file: 300 MiB to read, no disk used.
    const root = await repository(async (p) => {
      await writeFile(p, SKILL);
      await truncate(p, 300 * 1024 * 1024);
    });
    const run = await initChild(root);
    expect(run.killed).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/E_LIMIT/);
    expect(run.stderr).toContain('skills/pdf/SKILL.md');
  }, 30_000);

  it('SKILL.md linked to a file outside the repository does not leak its text into capability.json', async () => {
    const root = await repository(async (p) => {
      await writeFile(outsideSecret, `---\nname: pdf\ndescription: "${SECRET.replaceAll('\n', ' ')}"\n---\n`);
      await symlink(outsideSecret, p);
    });
    try {
      const error = await rejection(initSkillsRepository(root, { id: 'acme/skills' }));
      expect(error).toMatchObject({ code: 'E_ENTRY_TYPE', details: { path: 'skills/pdf/SKILL.md' } });
      expect((error as Error).message).toMatch(/outside/);
      await expect(readFile(join(root, 'capability.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await writeFile(outsideSecret, SECRET);
    }
  });

  it('a skill folder linked outside the repository is refused the same way', async () => {
    const elsewhere = await mkdtemp(join(work, 'elsewhere-'));
    await writeFile(join(elsewhere, 'SKILL.md'), `---\nname: pdf\ndescription: "${SECRET.replaceAll('\n', ' ')}"\n---\n`);
    const root = await mkdtemp(join(work, 'repo-'));
    await mkdir(join(root, 'skills'));
    await symlink(elsewhere, join(root, 'skills', 'pdf'));
    expect(await rejection(initSkillsRepository(root, { id: 'acme/skills' }))).toMatchObject({ code: 'E_ENTRY_TYPE' });
  });

  it('a link that stays inside the repository is followed, as git checks it out', async () => {
    const root = await repository(async (p) => {
      await writeFile(join(p, '..', '..', 'shared.md'), SKILL);
      await symlink('../shared.md', p);
    });
    const result = await initSkillsRepository(root, { id: 'acme/skills' });
    expect(result.skills.map((s) => s.path)).toEqual(['skills/ok', 'skills/pdf']);
  });

  it('a README linked outside is left unread with a note, and its text stays out of capability.json', async () => {
    const root = await repository((p) => writeFile(p, SKILL));
    await writeFile(outsideSecret, `# Leaked title\n\n${SECRET}`);
    try {
      await symlink(outsideSecret, join(root, 'README.md'));
      const result = await initSkillsRepository(root, { id: 'acme/skills' });
      const written = await readFile(join(root, 'capability.json'), 'utf8');
      expect(written).not.toContain('Leaked');
      expect(written).not.toContain('secret-key-material');
      expect(result.manifest.readme).toBeUndefined();
      expect(result.notes.join('\n')).toMatch(/README\.md was not read: .*outside/);
    } finally {
      await writeFile(outsideSecret, SECRET);
    }
  });
});

describe('adcap build reads its source files the same way', () => {
  const manifest = {
    adcap: '1.0',
    id: 'acme/skills',
    version: '1.0.0',
    name: 'Skills',
    summary: 'Skills.',
    skills: [{ path: 'skills/pdf' }],
  };

  it('capability.json linked to /dev/zero: E_ENTRY_TYPE', async () => {
    const root = await repository((p) => writeFile(p, SKILL));
    await symlink('/dev/zero', join(root, 'capability.json'));
    expect(await rejection(buildPackage(root, { out: join(work, 'zero.adcap') }))).toMatchObject({
      code: 'E_ENTRY_TYPE',
      details: { path: 'capability.json' },
    });
  });

  it('.adcapignore as a FIFO does not hang the build: E_ENTRY_TYPE', async () => {
    const root = await repository((p) => writeFile(p, SKILL));
    await writeFile(join(root, 'capability.json'), JSON.stringify(manifest));
    const made = spawn('mkfifo', [join(root, '.adcapignore')]);
    await new Promise((resolve) => made.once('exit', resolve));
    expect(await rejection(buildPackage(root, { out: join(work, 'fifo.adcap') }))).toMatchObject({
      code: 'E_ENTRY_TYPE',
      details: { path: '.adcapignore' },
    });
  }, 5_000);
});

describe('readSourceText', () => {
  it('refuses a FIFO without waiting for a writer', async () => {
    const root = await mkdtemp(join(work, 'fifo-'));
    const made = spawn('mkfifo', [join(root, 'pipe')]);
    await new Promise((resolve) => made.once('exit', resolve));
    expect(await rejection(readSourceText(root, 'pipe'))).toMatchObject({ code: 'E_ENTRY_TYPE', details: { path: 'pipe' } });
  });
  it('returns null for a missing file and the text of a small one', async () => {
    const root = await mkdtemp(join(work, 'plain-'));
    await writeFile(join(root, 'a.md'), 'hello');
    expect(await readSourceText(root, 'missing.md')).toBeNull();
    expect(await readSourceText(root, 'a.md')).toBe('hello');
    expect(await rejection(readSourceText(root, 'a.md', 4))).toMatchObject({ code: 'E_LIMIT' });
  });
});
