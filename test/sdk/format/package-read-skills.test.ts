// spec §3.1 (and the Agent Skills specification): skills are checked by every reader of a
// package, not only by the builder. The packages here are made "by another tool": raw tar archives
// written by the test writer, never passed through adcap build.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { verifyPackage } from '../../../sdk/src/trust/package-signature.js';
import { rejection } from '../../helpers/errors.js';
import { manifestFor, packageBytes } from '../../helpers/tar-writer.js';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-skills-read-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A package whose only skill lives in skills/<dir>/ with the given SKILL.md front matter. */
async function skillPackage(dir: string, front: string): Promise<string> {
  const files = [
    { path: `skills/${dir}/SKILL.md`, data: `---\n${front}\n---\n\n# Skill\n` },
    { path: 'README.md', data: '# Made by another tool\n' },
  ];
  const manifest = manifestFor(files, { id: 'acme/foreign', skills: [{ path: `skills/${dir}` }], compat: { agents: { arcotheon: '*' } } });
  const file = join(work, `${dir}-${Math.random().toString(36).slice(2, 8)}.adcap`);
  await writeFile(file, packageBytes({ manifest, files }));
  return file;
}

const refusals: Array<[string, string, string, string]> = [
  ['a skill named unlike its folder', 'pdf-tools', 'name: pdf\ndescription: Works with PDF files.', 'skill-name-matches-dir'],
  ['an upper-case skill name', 'Pdf', 'name: Pdf\ndescription: Works with PDF files.', 'skill-name'],
  ['a description over 1,024 characters', 'pdf', `name: pdf\ndescription: ${'d'.repeat(1025)}`, 'skill-description'],
  ['a compatibility over 500 characters', 'pdf', `name: pdf\ndescription: d\ncompatibility: ${'c'.repeat(501)}`, 'skill-compatibility'],
  ['metadata that is not a map of strings', 'pdf', 'name: pdf\ndescription: d\nmetadata:\n  tags: [a, b]', 'skill-metadata'],
];

describe('readPackage and verifyPackage check skills (spec §3.1)', () => {
  it('accept a foreign package whose skill follows the Agent Skills specification', async () => {
    const file = await skillPackage('pdf', 'name: pdf\ndescription: Works with PDF files.\nmetadata:\n  version: 2\nallowed-tools: Read');
    expect((await readPackage(file)).manifest.id).toBe('acme/foreign');
    expect((await verifyPackage(file, {})).manifest.skills).toEqual([{ path: 'skills/pdf' }]);
  });

  it.each(refusals)('refuse %s with E_SEMANTIC naming the rule', async (_label, dir, front, rule) => {
    const file = await skillPackage(dir, front);
    const read = await rejection(readPackage(file));
    expect(read.code).toBe('E_SEMANTIC');
    expect(read.details).toMatchObject({ rule, pointer: '/skills/0/path' });
    expect((await rejection(verifyPackage(file, {}))).code).toBe('E_SEMANTIC');
  });

  it('extract nothing when a skill is refused', async () => {
    const file = await skillPackage('pdf-tools', 'name: pdf\ndescription: d');
    const target = join(work, 'extracted');
    expect((await rejection(readPackage(file, { extractTo: target }))).code).toBe('E_SEMANTIC');
    expect(await readdir(work)).not.toContain('extracted');
  });
});

describe('install checks skills (spec §3.1)', () => {
  it('refuses a sideloaded package with a bad skill, and installs nothing', async () => {
    const home = await mkdtemp(join(work, 'home-'));
    const arc = new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '1.0.0' } }, remotes: [], runtimes: { node: '22.12.0' } });
    const file = await skillPackage('Pdf', 'name: Pdf\ndescription: d');
    const error = await rejection(arc.install({ file }, { approve: () => true, allowUnsigned: true }));
    expect(error).toMatchObject({ code: 'E_SEMANTIC', details: { rule: 'skill-name' } });
    expect(await arc.list()).toEqual([]);
  });
});
