// doctor() without fix is read-only and safe beside other processes. Another
// process's operation in progress (a live process holding the home lock, its journal record, its
// staging folder, a journal write not yet renamed) is neither reported as interrupted nor touched;
// once that process is dead, the same files are reported as an interrupted operation, still left
// alone until fix. Every failure from the journal is coded. Real installs, a real lock holder.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { beginOperation } from '../../../sdk/src/store/journal.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { exited, spawnTs, waitForLine } from '../../helpers/spawn-ts.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const holderScript = join(import.meta.dirname, '../../fixtures/lock-holder.ts');

describe('doctor without fix beside an operation in progress', () => {
  it('leaves a live operation alone and does not call it interrupted; reports it once its process is gone', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([
      { id: 'acme/lib', version: '1.0.0' },
      { id: 'acme/lib', version: '1.1.0' },
      { id: 'acme/solo', version: '1.0.0' },
    ]);
    const home = await reg.newHome();
    const arc = reg.arcotheon(home, { limits: { lockWaitMs: 2_000 } });
    await arc.install(['acme/lib@1.0.0', 'acme/solo'], { approve: () => true });

    // Another process updating acme/lib: it holds the home lock, journaled its intent, and is
    // extracting 1.1.0 into a staging folder; its next journal record is half written.
    const holder = await spawnTs(holderScript, [storeOf(arc).home.homeLock]);
    await waitForLine(holder, (line) => line === 'locked');
    const before = await storeOf(arc).state('acme/lib');
    await beginOperation(storeOf(arc).home, {
      op: 'update',
      before: { 'acme/lib': before },
      after: { 'acme/lib': { ...before, active: '1.1.0', history: ['1.0.0'] } },
      creates: [{ id: 'acme/lib', version: '1.1.0' }],
    });
    const staging = join(storeOf(arc).home.packageDir('acme/lib'), '.1.1.0.staging-test');
    await mkdir(join(staging, 'skills'), { recursive: true });
    await writeFile(join(storeOf(arc).home.journalDir, 'next.json.tmp-test'), '{"op":');
    const snapshot = async (): Promise<string[]> =>
      [...(await readdir(storeOf(arc).home.journalDir)), ...(await readdir(storeOf(arc).home.packageDir('acme/lib')))].sort();
    const files = await snapshot();

    try {
      const busy = await arc.doctor({ checkCache: false, checkRevocations: false });
      expect(busy.problems).toEqual([]);
      expect(busy.busy).toEqual({ message: expect.stringMatching(/busy: process \d+ \(test holder/), packages: ['acme/lib'] });
      // acme/solo, which the operation does not touch, is still checked.
      expect(busy.checked.packages).toBe(1);
      expect(await snapshot()).toEqual(files);
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
    }

    // The holder died: now it is an interrupted operation, reported but, without fix, not touched.
    const after = await arc.doctor({ checkCache: false, checkRevocations: false });
    expect(after.busy).toBeUndefined();
    expect(after.problems.map((p) => p.kind).sort()).toEqual(['half-finished-operation', 'leftover-files']);
    expect(after.problems.every((p) => p.fixed === undefined)).toBe(true);
    expect(await snapshot()).toEqual(files);

    const fixed = await arc.doctor({ fix: true, checkCache: false, checkRevocations: false });
    expect(fixed.ok).toBe(true);
    expect(await readdir(storeOf(arc).home.journalDir)).toEqual([]);
    expect((await storeOf(arc).state('acme/lib')).active).toBe('1.0.0');
  });
});

describe('errors from the journal are coded', () => {
  it('a journal record of the wrong shape is E_JSON for operations and a reported problem for doctor', async () => {
    const reg = await LifecycleRegistry.create();
    await reg.publishAll([{ id: 'acme/solo', version: '1.0.0' }]);
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/solo', { approve: () => true });
    await writeFile(
      join(storeOf(arc).home.journalDir, 'broken.json'),
      JSON.stringify({ opId: 'x', op: 'install', startedAt: 'now', before: {}, after: { 'acme/solo': { active: 3 } }, creates: [] }),
    );
    const error = await rejection(arc.uninstall('acme/solo'));
    expect(error.code).toBe('E_JSON');
    expect(error.message).toMatch(/journal record broken\.json is damaged/);
    const report = await arc.doctor({ checkCache: false, checkRevocations: false });
    expect(report.problems).toEqual([
      expect.objectContaining({
        kind: 'half-finished-operation',
        fixable: false,
        message: expect.stringMatching(/broken\.json is damaged/),
      }),
    ]);
  });
});
