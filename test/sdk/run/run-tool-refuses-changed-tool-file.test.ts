// A tool file changed after install used to run (only `doctor` noticed): the attacker edits
// tools/echo.mjs in the install (another program of the user, a sync tool, a careless edit) and
// the next run executes it with the grants the user gave the signed code. Before every run the
// files the run exposes are checked against the signed manifest (spec §4; SECURITY.md
// "Installed files"): a stat fingerprint recorded at install, a SHA-256 where it differs.
import { chmod, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { surfaceMessage, uiNextStep } from '../../../sdk/src/surface-text.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { checkInstalledFiles } from '../../../sdk/src/store/file-fingerprints.js';
import { nodeTool, RunHome, rejectionOf } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const EVIL = 'process.stdout.write(JSON.stringify({ type: "result", output: { pwned: true } }) + "\\n");\n';
let h: RunHome;
let arc: Arcotheon;
let n = 0;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
});
afterAll(() => h.remove());

/** A fresh capability with an echo tool (and a data file), installed; returns its id and folder. */
async function installed(extra: { dependencies?: Record<string, string> } = {}): Promise<{ id: string; dir: string }> {
  const id = `acme/changed-${++n}`;
  await h.install(
    { id, tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs', 'data/words.txt': { text: 'a\nb\n' } }, ...extra },
    arc,
  );
  return { id, dir: storeOf(arc).home.versionDir(id, '1.0.0') };
}

/** Writes `text` over an installed file the way a person or program with the user's rights can. */
async function overwrite(path: string, text: string): Promise<void> {
  await chmod(join(path, '..'), 0o755);
  await chmod(path, 0o644);
  await writeFile(path, text);
}

describe('a run checks the installed files against the signed manifest', () => {
  it('a control: an intact install runs, and its fingerprints were recorded at install', async () => {
    const { id } = await installed();
    expect((await runTool(arc, id, 'echo', { a: 1 })).output['echoed']).toEqual({ a: 1 });
    expect((await stat(storeOf(arc).home.fingerprintFile(id, '1.0.0'))).isFile()).toBe(true);
    expect(await checkInstalledFiles(storeOf(arc).home, id, '1.0.0', await arc.readInstalledManifest(id, '1.0.0'))).toEqual({
      files: 2,
      hashed: 0,
    });
  });

  it('a rewritten tool entry is refused with E_HASH naming the file and doctor --fix, before it starts, and audited', async () => {
    const { id, dir } = await installed();
    await overwrite(join(dir, 'tools', 'echo.mjs'), EVIL);
    const error = await rejectionOf(runTool(arc, id, 'echo', {}));
    expect(error).toMatchObject({ code: 'E_HASH', details: { id, path: 'tools/echo.mjs', reason: 'installed-files-changed' } });
    expect(error.message).toContain('tools/echo.mjs');
    // Each surface names its own repair: the SDK call, the CLI's command (what adcap prints), the UI's button.
    expect(error.message).toContain('arc.doctor({ fix: true })');
    expect(surfaceMessage(error, 'cli')).toContain('repair it with "adcap doctor --fix"');
    expect(surfaceMessage(error, 'cli')).toContain(`tools/echo.mjs of ${id}`);
    expect(uiNextStep(error)).toContain('Repair on the Health screen');
    const month = new Date().toISOString().slice(0, 7);
    const lines = (await readFile(join(storeOf(arc).home.auditDir, `${month}.jsonl`), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ capability: id, outcome: 'error', errorCode: 'E_HASH' });
  });

  it('a rewrite of the same size with the old mtime put back is still refused (ctime and content differ)', async () => {
    const { id, dir } = await installed();
    const path = join(dir, 'tools', 'echo.mjs');
    const before = await stat(path);
    const same = Buffer.alloc(before.size, ' ');
    same.write(`${EVIL}//`);
    await overwrite(path, same.toString('latin1'));
    await utimes(path, before.atime, before.mtime);
    expect((await stat(path)).size).toBe(before.size);
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_HASH', details: { path: 'tools/echo.mjs' } });
  });

  it('a file added beside the tool (one the runtime could load) is refused with E_UNLISTED', async () => {
    const { id, dir } = await installed();
    await chmod(join(dir, 'tools'), 0o755);
    await writeFile(join(dir, 'tools', 'preload.mjs'), EVIL);
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_UNLISTED', details: { path: 'tools/preload.mjs' } });
  });

  it('a listed file that was removed is refused with E_MISSING', async () => {
    const { id, dir } = await installed();
    await chmod(join(dir, 'data'), 0o755);
    await rm(join(dir, 'data', 'words.txt'));
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_MISSING', details: { path: 'data/words.txt' } });
  });

  it('a changed file of a dependency (bound into the sandbox) is refused too', async () => {
    const dep = await installed();
    const { id } = await installed({ dependencies: { [dep.id]: '^1.0.0' } });
    await overwrite(join(dep.dir, 'data', 'words.txt'), 'changed\n');
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({
      code: 'E_HASH',
      details: { id: dep.id, path: 'data/words.txt' },
    });
  });

  it('a file touched but not changed is hashed once, found intact, and its new fingerprint recorded', async () => {
    const { id, dir } = await installed();
    const path = join(dir, 'data', 'words.txt');
    await overwrite(path, 'a\nb\n');
    const manifest = await arc.readInstalledManifest(id, '1.0.0');
    expect(await checkInstalledFiles(storeOf(arc).home, id, '1.0.0', manifest)).toEqual({ files: 2, hashed: 1 });
    expect(await checkInstalledFiles(storeOf(arc).home, id, '1.0.0', manifest)).toEqual({ files: 2, hashed: 0 });
    expect((await runTool(arc, id, 'echo', { b: 2 })).output['echoed']).toEqual({ b: 2 });
  });

  it('without a fingerprint record every file is hashed, and the run goes ahead when they match', async () => {
    const { id } = await installed();
    await rm(storeOf(arc).home.fingerprintFile(id, '1.0.0'));
    const manifest = await arc.readInstalledManifest(id, '1.0.0');
    expect(await checkInstalledFiles(storeOf(arc).home, id, '1.0.0', manifest)).toEqual({ files: 2, hashed: 2 });
    expect((await runTool(arc, id, 'echo', { c: 3 })).output['echoed']).toEqual({ c: 3 });
  });

  it('a forged fingerprint record does not let a changed file through unless its stat matches exactly', async () => {
    const { id, dir } = await installed();
    await overwrite(join(dir, 'tools', 'echo.mjs'), EVIL);
    // The record still holds the install-time fingerprint: the changed file's differs, so it is hashed.
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_HASH' });
    await writeFile(storeOf(arc).home.fingerprintFile(id, '1.0.0'), '{not json');
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_HASH' });
  });

  it('doctor --fix repairs the install, and the tool runs again', async () => {
    const { id, dir } = await installed();
    await overwrite(join(dir, 'tools', 'echo.mjs'), EVIL);
    expect(await rejectionOf(runTool(arc, id, 'echo', {}))).toMatchObject({ code: 'E_HASH' });
    await arc.doctor({ fix: true, checkRevocations: false, checkCache: false });
    expect((await runTool(arc, id, 'echo', { d: 4 })).output['echoed']).toEqual({ d: 4 });
  });
});
