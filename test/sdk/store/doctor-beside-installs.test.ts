// Read-only doctor() beside another process's installs (DESIGN §6): while a second process
// installs, updates, rolls back and uninstalls on the same home,
// every doctor() call either reports or fails with an AdcapError (never a raw ENOENT); a folder
// that goes away while it is checked is "changed while checking", not a problem; a busy home names
// what is busy. Real installs from a real registry, in two real processes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../sdk/src/errors.js';
import type { DoctorReport } from '../../../sdk/src/store/doctor.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { bundleTs, exited, spawnBundle, waitForLine } from '../../helpers/spawn-ts.js';

const fixture = join(import.meta.dirname, '../../fixtures/lifecycle-loop.ts');
let reg: LifecycleRegistry;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleTs(fixture);
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/solo', version: '1.0.0', padding: 200_000 },
    { id: 'acme/solo', version: '1.1.0', padding: 200_000 },
    { id: 'acme/steady', version: '1.0.0' },
  ]);
});
afterAll(() => undefined);

describe('doctor() beside another process changing the home', () => {
  it('400 read-only calls: every failure coded, no problem invented, busy and changed-while-checking named', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home, { limits: { lockWaitMs: 500 } });
    await arc.install('acme/steady', { approve: () => true });
    const options = join(home, '..', `${home.split('/').pop()}-options.json`);
    await writeFile(options, JSON.stringify(reg.options(home)));
    const child = spawnBundle(bundle, [options, 'acme/solo']);
    const uncoded: unknown[] = [];
    const codes = new Map<string, number>();
    const reports: DoctorReport[] = [];
    try {
      await waitForLine(child, (line) => line === 'round 1', 60_000);
      for (let i = 0; i < 400; i++) {
        try {
          reports.push(await arc.doctor({ checkCache: false, checkRevocations: false }));
        } catch (error) {
          if (isAdcapError(error)) codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
          else uncoded.push(error);
        }
      }
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
    expect(uncoded).toEqual([]);
    // A healthy process changing the home is not a problem of the home.
    const problems = reports.flatMap((r) => r.problems);
    expect(problems).toEqual([]);
    expect(reports.every((r) => r.ok)).toBe(true);
    const busy = reports.filter((r) => r.busy !== undefined);
    const changed = reports.filter((r) => (r.changed ?? []).length > 0);
    // Both happened, or the test did not race anything.
    expect(busy.length + changed.length, `codes: ${JSON.stringify([...codes])}`).toBeGreaterThan(0);
    for (const r of busy) {
      // The holder and, once its operation is journaled, the capability it changes.
      expect(r.busy?.message).toMatch(/is busy: (process \d+ \(|another process holds its lock:)/);
      if (r.busy?.packages.length === 0) expect(r.busy.message).toMatch(/has not said yet what it changes/);
      else {
        expect(r.busy?.packages).toEqual(['acme/solo']);
        expect(r.busy?.message).toMatch(/it is changing acme\/solo, which was not checked/);
      }
    }
    for (const r of changed)
      expect(r.changed).toEqual([expect.objectContaining({ id: 'acme/solo', message: expect.stringMatching(/changed while checking/) })]);
    // Failures, if any, are the waits of a busy home, named as such.
    expect([...codes.keys()].filter((c) => c !== 'E_LOCKED')).toEqual([]);
    console.log(
      `doctor beside installs: ${reports.length} reports (${busy.length} busy, ${changed.length} changed), ` +
        `errors ${JSON.stringify([...codes])}`,
    );
  }, 300_000);
});
