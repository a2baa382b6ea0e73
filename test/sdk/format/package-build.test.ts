/** buildPackage: spec §2 writer rules at the source, .adcapignore, skills (§3.1) and workflows (§8). */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { sha256 } from '../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-build-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const baseManifest = {
  adcap: '1.0',
  id: 'acme/demo',
  version: '1.2.3',
  name: 'Demo',
  summary: 'A demo capability.',
  skills: [{ path: 'skills/hello' }],
  tools: [
    { name: 'echo', description: 'Echoes.', runtime: { type: 'node', entry: 'tools/echo.mjs' }, inputSchema: { type: 'object' } },
    {
      name: 'native',
      description: 'Native.',
      runtime: { type: 'binary', entries: { 'linux-x64': 'bin/native' } },
      inputSchema: { type: 'object' },
    },
  ],
  workflows: [{ path: 'workflows/greet.json' }],
};

/** A source folder; `files` maps relative paths to contents, `manifest` overrides capability.json. */
async function source(files: Record<string, string> = {}, manifest: Record<string, unknown> = baseManifest): Promise<string> {
  const dir = await mkdtemp(join(work, 'src-'));
  const all: Record<string, string> = {
    'capability.json': JSON.stringify(manifest),
    'skills/hello/SKILL.md': '---\nname: hello\ndescription: Says hello.\n---\n# Hello\n',
    'tools/echo.mjs': 'console.log("hi");\n',
    'bin/native': 'ELF...',
    'workflows/greet.json': JSON.stringify({ 'adcap-workflow': '1.0', id: 'greet', steps: [{ id: 'ask', agent: 'Say hello.' }] }),
    'README.md': '# Demo\n',
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('buildPackage', () => {
  it('builds a package that readPackage verifies, with files computed, sorted and hashed', async () => {
    const dir = await source();
    const built = await buildPackage(dir, { out: join(work, 'demo.adcap') });
    expect(built.manifest.files.map((f) => f.path)).toEqual([
      'README.md',
      'bin/native',
      'skills/hello/SKILL.md',
      'tools/echo.mjs',
      'workflows/greet.json',
    ]);
    expect(built.manifest.files[0]).toEqual({ path: 'README.md', sha256: sha256('# Demo\n'), size: 7 });
    const read = await readPackage(built.file);
    expect(read.manifestSha256).toBe(built.manifestSha256);
    expect(read.archiveSha256).toBe(built.archiveSha256);
    expect(read.size).toBe(built.size);
    expect(read.entries[0]).toBe('capability.json');
  });

  it('two builds of the same source are byte-identical (spec §2)', async () => {
    const dir = await source();
    const a = await buildPackage(dir, { out: join(work, 'same-a.adcap') });
    const b = await buildPackage(dir, { out: join(work, 'same-b.adcap') });
    expect(a.archiveSha256).toBe(b.archiveSha256);
    expect((await readFile(a.file)).equals(await readFile(b.file))).toBe(true);
  });

  it('GNU tar lists a built package cleanly', async () => {
    const built = await buildPackage(await source(), { out: join(work, 'tar.adcap') });
    const listing = spawnSync('tar', ['-tzvf', built.file], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    expect(listing.stderr).toBe('');
    expect(listing.stdout.split('\n')[0]).toMatch(/^-rw-r--r-- 0\/0 .* 1970-01-01 00:00 capability\.json$/);
  });

  it('takes the executable bit from the source mode and forces it for binary tool entries', async () => {
    const dir = await source({ 'scripts/run.sh': '#!/bin/sh\n' });
    await chmod(join(dir, 'scripts/run.sh'), 0o755);
    await chmod(join(dir, 'bin/native'), 0o644);
    const built = await buildPackage(dir, { out: join(work, 'exec.adcap') });
    const byPath = new Map(built.manifest.files.map((f) => [f.path, f]));
    expect(byPath.get('scripts/run.sh')?.executable).toBe(true);
    expect(byPath.get('bin/native')?.executable).toBe(true);
    expect(byPath.get('README.md')?.executable).toBeUndefined();
    const listing = spawnSync('tar', ['-tzvf', built.file], { encoding: 'utf8' }).stdout;
    expect(listing).toMatch(/-rwxr-xr-x 0\/0 .* bin\/native/);
  });

  it('honours .adcapignore (gitignore syntax) and never packages .git', async () => {
    const dir = await source({
      '.adcapignore': 'build/\n*.log\n!keep.log\n',
      'build/out.o': 'x',
      'debug.log': 'x',
      'keep.log': 'kept',
      '.git/HEAD': 'ref',
    });
    const built = await buildPackage(dir, { out: join(work, 'ignore.adcap') });
    const paths = built.manifest.files.map((f) => f.path);
    expect(paths).toContain('keep.log');
    expect(paths.some((p) => p.startsWith('build/') || p === 'debug.log' || p.startsWith('.git/') || p === '.adcapignore')).toBe(false);
  });

  it('replaces a stale files list in the source capability.json', async () => {
    const dir = await source({}, { ...baseManifest, files: [{ path: 'gone.txt', sha256: 'a'.repeat(64), size: 1 }] });
    const built = await buildPackage(dir, { out: join(work, 'stale.adcap') });
    expect(built.manifest.files.some((f) => f.path === 'gone.txt')).toBe(false);
  });

  it('build-refuses-symlink: a symbolic link in the source is E_ENTRY_TYPE', async () => {
    const dir = await source();
    await symlink('/etc/passwd', join(dir, 'passwd'));
    await expect(buildPackage(dir, { out: join(work, 'link.adcap') })).rejects.toMatchObject({
      code: 'E_ENTRY_TYPE',
      message: expect.stringMatching(/symbolic link/),
    });
  });

  it('build-accepts-ignored-symlink: a symbolic link listed in .adcapignore is skipped', async () => {
    const dir = await source({ '.adcapignore': 'passwd\n' });
    await symlink('/etc/passwd', join(dir, 'passwd'));
    await expect(buildPackage(dir, { out: join(work, 'link-ok.adcap') })).resolves.toMatchObject({ file: join(work, 'link-ok.adcap') });
  });

  it('build-refuses-fifo: a FIFO in the source is E_ENTRY_TYPE', async () => {
    const dir = await source();
    expect(spawnSync('mkfifo', [join(dir, 'pipe')]).status).toBe(0);
    await expect(buildPackage(dir, { out: join(work, 'fifo.adcap') })).rejects.toMatchObject({
      code: 'E_ENTRY_TYPE',
      message: expect.stringMatching(/special file/),
    });
  });

  it('build-refuses-non-ascii-path: a file name outside printable ASCII is E_PATH', async () => {
    const dir = await source({ 'caf\u00e9.txt': 'x' });
    await expect(buildPackage(dir, { out: join(work, 'path.adcap') })).rejects.toMatchObject({ code: 'E_PATH' });
  });

  it('runs the skill checks of spec §3.1 (name must equal the directory)', async () => {
    const dir = await source({ 'skills/hello/SKILL.md': '---\nname: goodbye\ndescription: Wrong name.\n---\n' });
    await expect(buildPackage(dir, { out: join(work, 'skill.adcap') })).rejects.toMatchObject({ code: 'E_SEMANTIC' });
  });

  it('runs the workflow document checks of spec §8', async () => {
    const dir = await source({
      'workflows/greet.json': JSON.stringify({
        'adcap-workflow': '1.0',
        id: 'greet',
        steps: [{ id: 's', tool: 'missing_tool', input: {} }],
      }),
    });
    const error = await buildPackage(dir, { out: join(work, 'wf.adcap') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: expect.stringMatching(/^E_(SEMANTIC|SCHEMA)$/) });
  });

  it('validates the manifest (a referenced file that is missing is E_SEMANTIC)', async () => {
    const dir = await source({}, { ...baseManifest, readme: 'docs/README.md' });
    await expect(buildPackage(dir, { out: join(work, 'ref.adcap') })).rejects.toMatchObject({ code: 'E_SEMANTIC' });
  });

  it('parses capability.json strictly (a float is E_JSON)', async () => {
    const dir = await source();
    await writeFile(
      join(dir, 'capability.json'),
      JSON.stringify(baseManifest).replace('"name":"Demo"', '"name":"Demo","x":{"a":{"f":0.5}}'),
    );
    await expect(buildPackage(dir, { out: join(work, 'float.adcap') })).rejects.toMatchObject({ code: 'E_JSON' });
  });

  it('puts the envelope from envelopeFor last as SIGNATURE.json', async () => {
    const dir = await source();
    const built = await buildPackage(dir, {
      out: join(work, 'signed.adcap'),
      envelopeFor: (payload) => ({ payload, signatures: [{ keyId: 'b'.repeat(64), alg: 'ed25519', sig: 'c2ln' }] }),
    });
    const read = await readPackage(built.file);
    expect(read.entries.at(-1)).toBe('SIGNATURE.json');
    expect(JSON.parse(String(read.signatureBytes)).payload).toEqual({
      adcap: '1.0',
      id: 'acme/demo',
      version: '1.2.3',
      manifestSha256: built.manifestSha256,
    });
  });

  it('does not package a previous build written into the source folder', async () => {
    const dir = await source();
    await buildPackage(dir, { out: join(dir, 'demo.adcap') });
    const again = await buildPackage(dir, { out: join(dir, 'demo.adcap') });
    expect(again.manifest.files.some((f) => f.path === 'demo.adcap')).toBe(false);
  });
});
