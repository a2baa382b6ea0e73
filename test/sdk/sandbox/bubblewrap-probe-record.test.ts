// Every process that runs a tool used to start bwrap once just to see that it works (a spawn and a
// namespace set-up before the real one). A probe that succeeded is now remembered in the home with
// the facts it depends on (sandbox/bubblewrap.ts probeFacts); these tests count the probes with a
// bwrap that logs each start, across real processes, and change each fact to see the probe again.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeFacts } from '../../../sdk/src/sandbox/bubblewrap.js';
import { bundleTs, exited, spawnBundle } from '../../helpers/spawn-ts.js';

const PROBE_ONCE = fileURLToPath(new URL('../../fixtures/sandbox-host/probe-once.ts', import.meta.url));
let root: string;
let bundle: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'adcap-probe-record-'));
  bundle = await bundleTs(PROBE_ONCE);
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A bwrap that logs every start to `log` (or fails, with `fail`) and then runs the real one. */
async function loggingBwrap(name: string, fail = false): Promise<{ path: string; log: string }> {
  const path = join(root, name);
  const log = join(root, `${name}.log`);
  await writeFile(path, `#!/bin/sh\necho start >> '${log}'\n${fail ? 'exit 1' : 'exec /usr/bin/bwrap "$@"'}\n`);
  await chmod(path, 0o755);
  await writeFile(log, '');
  return { path, log };
}

const starts = async (log: string): Promise<number> => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;

/** Runs probe-once.ts in a new process and returns its answer. */
async function availableInNewProcess(bwrap: string, record: string): Promise<boolean> {
  const child = spawnBundle(bundle, [bwrap, record]);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  expect(await exited(child), err).toBe(0);
  return (JSON.parse(out.trim()) as { available: boolean }).available;
}

describe('a bubblewrap probe that succeeded is remembered with the facts it holds for', () => {
  it('the first process probes and records; the next ones start bwrap no more', async () => {
    const { path, log } = await loggingBwrap('bwrap-a');
    const record = join(root, 'a', 'sandbox-probe.json');
    expect(await availableInNewProcess(path, record)).toBe(true);
    expect(await starts(log)).toBe(1);
    const written = JSON.parse(await readFile(record, 'utf8')) as { ok: boolean; facts: string; bwrap: string };
    expect(written).toMatchObject({ ok: true, facts: probeFacts(path), bwrap: path });
    expect(await availableInNewProcess(path, record)).toBe(true);
    expect(await availableInNewProcess(path, record)).toBe(true);
    expect(await starts(log), 'no probe after the first').toBe(1);
  });

  it('a record that does not match, is damaged or says anything but ok means a probe (and is written again)', async () => {
    const { path, log } = await loggingBwrap('bwrap-b');
    const record = join(root, 'b', 'sandbox-probe.json');
    expect(await availableInNewProcess(path, record)).toBe(true);
    const good = JSON.parse(await readFile(record, 'utf8')) as { facts: string };
    const tampered = [
      JSON.stringify({ ...good, facts: `${good.facts.slice(0, -1)}${good.facts.endsWith('0') ? '1' : '0'}` }),
      JSON.stringify({ ...good, ok: 'true' }),
      JSON.stringify({ ...good, ok: false }),
      '{"ok": true, "facts": ',
      '',
    ];
    for (const [i, text] of tampered.entries()) {
      await writeFile(record, text);
      expect(await availableInNewProcess(path, record), text).toBe(true);
      expect(await starts(log), text).toBe(i + 2);
      expect(JSON.parse(await readFile(record, 'utf8')), text).toMatchObject({ ok: true, facts: good.facts });
    }
  });

  it('a changed bwrap program is probed again, and a failing one is never remembered', async () => {
    const { path, log } = await loggingBwrap('bwrap-c');
    const record = join(root, 'c', 'sandbox-probe.json');
    expect(await availableInNewProcess(path, record)).toBe(true);
    // Replaced by one that cannot make a sandbox (a kernel or LSM that forbids user namespaces looks the same).
    await writeFile(path, `#!/bin/sh\necho start >> '${log}'\nexit 1\n`);
    expect(await availableInNewProcess(path, record)).toBe(false);
    expect(await availableInNewProcess(path, record)).toBe(false);
    expect(await starts(log), 'probed every time it failed').toBe(3);
    const failing = await loggingBwrap('bwrap-d', true);
    const other = join(root, 'd', 'sandbox-probe.json');
    expect(await availableInNewProcess(failing.path, other)).toBe(false);
    await expect(readFile(other, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("the facts name this process's confinement and the machine, not only the program", () => {
    const facts = probeFacts('/usr/bin/bwrap');
    expect(facts).toMatch(/^[0-9a-f]{64}$/);
    expect(probeFacts('/usr/bin/bwrap')).toBe(facts);
    expect(probeFacts(join(root, 'no-such-bwrap'))).toBeNull();
  });
});
