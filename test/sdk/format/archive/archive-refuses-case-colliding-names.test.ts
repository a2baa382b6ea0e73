/**
 * Names equal except for case (spec §2 unique paths; the node-tar case-folding advisories): `A.txt`
 * and `a.txt` are two files on Linux but one on macOS and Windows, so extracting there lets the
 * second overwrite the first after it was verified. Refused at read and at build with E_PATH.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaseFoldGuard, pathFoldKey } from '../../../../sdk/src/format/archive/entry-path.js';
import { buildPackage } from '../../../../sdk/src/format/package-build.js';
import { readPackage } from '../../../../sdk/src/format/package-read.js';
import { packageBytes } from '../../../helpers/tar-writer.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-case-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function readRefused(files: { path: string; data: string }[]): Promise<unknown> {
  const out = join(await mkdtemp(join(work, 'read-')), 'out');
  const error = await readPackage(Readable.from([packageBytes({ files })]), { extractTo: out }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error !== undefined) expect(await readdir(dirname(out)), 'nothing is extracted from a refused package').toEqual([]);
  return error;
}

describe('the reader refuses entry names that collide when case is ignored (E_PATH)', () => {
  it('a control: distinct names are read', async () => {
    expect(
      await readRefused([
        { path: 'A.txt', data: 'a' },
        { path: 'b.txt', data: 'b' },
      ]),
    ).toBeUndefined();
  });
  it('refuses A.txt beside a.txt', async () => {
    const error = await readRefused([
      { path: 'A.txt', data: 'verified' },
      { path: 'a.txt', data: 'overwrites it on macOS' },
    ]);
    expect(error).toMatchObject({ code: 'E_PATH', details: { path: 'a.txt', other: 'A.txt' } });
    expect((error as Error).message).toMatch(/differ only in case/);
  });
  it('refuses folders that differ in case (Tools/run.mjs beside tools/x)', async () => {
    const error = await readRefused([
      { path: 'Tools/run.mjs', data: '1' },
      { path: 'tools/x', data: '2' },
    ]);
    expect(error).toMatchObject({ code: 'E_PATH', details: { path: 'tools' } });
  });
  it('refuses a file whose name is a folder of another once case is ignored (README beside readme/x)', async () => {
    expect(
      await readRefused([
        { path: 'README', data: '1' },
        { path: 'readme/x', data: '2' },
      ]),
    ).toMatchObject({ code: 'E_PATH' });
  });
  it('refuses a second capability.json spelled Capability.json', async () => {
    expect(await readRefused([{ path: 'Capability.json', data: '{}' }])).toMatchObject({ code: 'E_PATH' });
  });
});

describe('the builder refuses such a source tree (E_PATH), before writing anything', () => {
  it('refuses A.txt beside a.txt', async () => {
    const dir = await mkdtemp(join(work, 'src-'));
    const files: Record<string, string> = {
      'capability.json': JSON.stringify({ adcap: '1.0', id: 'acme/demo', version: '1.0.0', name: 'Demo', summary: 'Demo.' }),
      'A.txt': 'a',
      'a.txt': 'b',
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const out = join(work, 'case.adcap');
    await expect(buildPackage(dir, { out })).rejects.toMatchObject({ code: 'E_PATH', details: { path: 'a.txt', other: 'A.txt' } });
    await expect(readdir(work)).resolves.not.toContain('case.adcap');
  });
});

describe('pathFoldKey follows what macOS folds together', () => {
  it('folds ASCII case', () => expect(pathFoldKey('Skills/PDF/SKILL.md')).toBe(pathFoldKey('skills/pdf/skill.md')));
  it('folds NFC and NFD forms of the same name', () => expect(pathFoldKey('caf\u00e9')).toBe(pathFoldKey('cafe\u0301')));
  it('folds Unicode case (Σ/σ, ß/SS, the Kelvin sign)', () => {
    expect(pathFoldKey('\u03a3')).toBe(pathFoldKey('\u03c3'));
    expect(pathFoldKey('stra\u00dfe')).toBe(pathFoldKey('STRASSE'));
    expect(pathFoldKey('\u212a')).toBe(pathFoldKey('k'));
  });
  it('keeps different names apart', () => expect(pathFoldKey('a.txt')).not.toBe(pathFoldKey('b.txt')));
  it('CaseFoldGuard refuses an NFD name after its NFC twin', () => {
    const guard = new CaseFoldGuard();
    guard.add('docs/caf\u00e9.md');
    expect(() => guard.add('docs/cafe\u0301.md')).toThrowError(expect.objectContaining({ code: 'E_PATH' }));
    expect(() => guard.add('docs/other.md')).not.toThrow();
  });
});
