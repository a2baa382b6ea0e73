// The full check of an installed capability.json (strict JSON, schema, tool schemas that compile,
// semantic rules) runs once per content: its SHA-256 is recorded beside the version's file
// fingerprints when it passes (store/installed.ts readInstalledManifest). These tests tamper with
// the manifest and with the record: any difference sends the read back to the full check.
import { createHash } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { MANIFEST_CHECKS } from '../../../sdk/src/store/file-fingerprints.js';
import { nodeTool, RunHome, rejectionOf } from '../run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
let arc: Arcotheon;
let n = 0;
beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
});
afterAll(() => h.remove());

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

interface Record {
  format: number;
  files: { [path: string]: string };
  manifest?: { sha256: string; checks: string };
}

async function installed(): Promise<{ id: string; manifestFile: string; recordFile: string }> {
  const id = `acme/checked-${++n}`;
  await h.install({ id, tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
  const manifestFile = join(storeOf(arc).home.versionDir(id, '1.0.0'), 'capability.json');
  return { id, manifestFile, recordFile: storeOf(arc).home.fingerprintFile(id, '1.0.0') };
}

const readRecord = async (file: string): Promise<Record> => JSON.parse(await readFile(file, 'utf8')) as Record;

/** Writes over the installed manifest the way a program with the user's rights can. */
async function overwrite(file: string, text: string): Promise<void> {
  await chmod(join(file, '..'), 0o755);
  await chmod(file, 0o644);
  await writeFile(file, text);
}

/** The installed manifest with a key given twice: JSON.parse keeps the last one, the strict parser refuses it (spec §3). */
function withDuplicateName(original: string): string {
  return original.replace(/^\{/, '{"name":"Impostor",');
}

describe('the installed manifest is checked in full once per content', () => {
  it('records the SHA-256 of the checked bytes at install, and reads them back as the full check does', async () => {
    const { id, manifestFile, recordFile } = await installed();
    const bytes = await readFile(manifestFile);
    expect((await readRecord(recordFile)).manifest).toEqual({ sha256: sha256(bytes), checks: MANIFEST_CHECKS });
    expect(MANIFEST_CHECKS).toMatch(/^sdk \d+\.\d+\.\d+\S*; rules \d+$/);
    expect(await arc.readInstalledManifest(id, '1.0.0')).toEqual(JSON.parse(bytes.toString('utf8')));
  });

  it('a manifest changed after its check is checked in full again: a duplicate key is refused (E_JSON)', async () => {
    const { id, manifestFile, recordFile } = await installed();
    const before = await readRecord(recordFile);
    await overwrite(manifestFile, withDuplicateName(await readFile(manifestFile, 'utf8')));
    await expect(rejectionOf(arc.readInstalledManifest(id, '1.0.0'))).resolves.toMatchObject({ code: 'E_JSON' });
    // The record still names the bytes that passed, never the refused ones.
    expect((await readRecord(recordFile)).manifest).toEqual(before.manifest);
  });

  it('a record that names the new bytes under other checks (another SDK, older rules) is not used', async () => {
    const { id, manifestFile, recordFile } = await installed();
    const tampered = withDuplicateName(await readFile(manifestFile, 'utf8'));
    await overwrite(manifestFile, tampered);
    const record = await readRecord(recordFile);
    for (const checks of ['sdk 0.0.1; rules 1', MANIFEST_CHECKS.replace(/rules \d+$/, 'rules 0'), `${MANIFEST_CHECKS} `]) {
      await writeFile(recordFile, JSON.stringify({ ...record, manifest: { sha256: sha256(tampered), checks } }));
      await expect(rejectionOf(arc.readInstalledManifest(id, '1.0.0')), checks).resolves.toMatchObject({ code: 'E_JSON' });
    }
  });

  it('a record with a hash one character off, damaged or missing means the full check; a pass records it again', async () => {
    const { id, manifestFile, recordFile } = await installed();
    const good = sha256(await readFile(manifestFile));
    const record = await readRecord(recordFile);
    const oneOff = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
    for (const damaged of [
      JSON.stringify({ ...record, manifest: { sha256: oneOff, checks: MANIFEST_CHECKS } }),
      JSON.stringify({ ...record, manifest: { sha256: good } }),
      JSON.stringify({ ...record, manifest: { sha256: 42, checks: MANIFEST_CHECKS } }),
      '{"format": 1, "files": {}, "manifest": ',
      '',
    ]) {
      await writeFile(recordFile, damaged);
      expect((await arc.readInstalledManifest(id, '1.0.0')).id, damaged).toBe(id);
      expect((await readRecord(recordFile)).manifest, damaged).toEqual({ sha256: good, checks: MANIFEST_CHECKS });
    }
  });

  it('the record is kept when a run records the file fingerprints again', async () => {
    const { id, recordFile } = await installed();
    const manifest = (await readRecord(recordFile)).manifest;
    // A copy or restore changes every file's inode: the run hashes them and records fingerprints again.
    await writeFile(recordFile, JSON.stringify({ format: 1, files: {}, manifest }));
    const { checkInstalledFiles } = await import('../../../sdk/src/store/file-fingerprints.js');
    expect(await checkInstalledFiles(storeOf(arc).home, id, '1.0.0', await arc.readInstalledManifest(id, '1.0.0'))).toEqual({
      files: 1,
      hashed: 1,
    });
    const after = await readRecord(recordFile);
    expect(Object.keys(after.files)).toEqual(['tools/echo.mjs']);
    expect(after.manifest).toEqual(manifest);
  });

  it('a control: the record is what lets a read skip the check (it lives in the home, like state.json and the grants)', async () => {
    // Written by hand for bytes that never passed: the read believes it, which shows the record is
    // used. Only a program with the user's rights can write the home; tools never see it (SECURITY.md).
    const { id, manifestFile, recordFile } = await installed();
    const tampered = withDuplicateName(await readFile(manifestFile, 'utf8'));
    await overwrite(manifestFile, tampered);
    const record = await readRecord(recordFile);
    await writeFile(recordFile, JSON.stringify({ ...record, manifest: { sha256: sha256(tampered), checks: MANIFEST_CHECKS } }));
    expect((await arc.readInstalledManifest(id, '1.0.0')).name).toBe(`Test ${id}`);
  });
});
