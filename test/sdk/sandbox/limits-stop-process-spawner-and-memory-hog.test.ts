// Kept closed ("a tool could exhaust memory and processes"): a tool that forks
// without end or allocates without end must end only its own run. The sandbox enters a cgroup
// (or a systemd scope) with pids.max and a memory limit before bwrap starts, and prlimit sets
// RLIMIT_FSIZE (and RLIMIT_NPROC, RLIMIT_AS where no cgroup holds) inside the sandbox.
//
// Which mechanism holds here: this suite runs as root, where RLIMIT_NPROC does not apply (the
// kernel exempts uid 0), so processes are limited by the cgroup: cgroup v1 pids and memory
// hierarchies the host may write, below its own cgroups (limitEnforcement() reports it). Every
// attempt is bounded even if a limit failed: at most 2,000 children sleeping 3 s each, at most
// 2 GiB of memory in 64 MiB steps, one 8 MiB file.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import { limitEnforcement, type LimitEnforcement } from '../../../sdk/src/sandbox/limits.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, rejectionOf, RunHome } from '../run/run-fixture.js';

const ID = 'acme/exhaust';
const MiB = 1024 * 1024;
const LIMITS = { processes: 64, memoryBytes: 256 * MiB, fileSizeBytes: 1 * MiB };
let h: RunHome;
let arc: Arcotheon;
let enforcement: LimitEnforcement;

beforeAll(async () => {
  h = await RunHome.create();
  const sandbox = new BubblewrapSandbox({ limits: LIMITS });
  expect(await sandbox.available()).toBe(true);
  arc = h.arc({ sandbox: { use: sandbox } });
  await h.install(
    {
      id: ID,
      tools: [nodeTool('exhaust', 'exhaust.mjs', { timeoutMs: 60_000 })],
      files: { 'tools/exhaust.mjs': 'exhaust.mjs' },
    },
    arc,
  );
  enforcement = await limitEnforcement();
});
afterAll(() => h.remove());

/** The host and the next run are unaffected. */
async function expectHostFine(): Promise<void> {
  expect(spawnSync('true').status).toBe(0);
  expect((await runTool(arc, ID, 'exhaust', { mode: 'none' })).output).toEqual({ ok: true });
}

describe('resource limits', () => {
  it('hold here through a mechanism that applies to this user (as root: the cgroup, since RLIMIT_NPROC does not apply)', () => {
    if (process.getuid?.() === 0) expect(['cgroup', 'systemd-run']).toContain(enforcement.processes);
    expect(enforcement.processes).not.toBe('none');
    expect(enforcement.memory).not.toBe('none');
    expect(enforcement.fileSize).toBe('rlimit-fsize');
  });

  it('stop a process spawner at the process limit, and end only its own run', async () => {
    const result = await runTool(arc, ID, 'exhaust', { mode: 'spawn', maxChildren: 2000, sleepSeconds: 3 });
    const { started, failed } = result.output as { started: number; failed: string | null };
    expect(started).toBeLessThan(LIMITS.processes); // bwrap, its init and node's threads count too
    expect(started).toBeGreaterThan(0);
    expect(failed).toBe('EAGAIN');
    await expectHostFine();
  });

  it('stop a memory hog at the memory limit, and end only its own run', async () => {
    const attempt = runTool(arc, ID, 'exhaust', { mode: 'memory', maxBytes: 2048 * MiB });
    if (enforcement.memory === 'rlimit-as') {
      // Address-space limit: the allocation fails inside the tool.
      const out = (await attempt).output as { allocated: number; failed: string | null };
      expect(out.failed).not.toBeNull();
      expect(out.allocated).toBeLessThan(LIMITS.memoryBytes);
    } else {
      // cgroup memory limit: the kernel's OOM killer ends the tool inside its cgroup.
      const error = await rejectionOf(attempt);
      expect(error.code).toBe('E_TOOL');
    }
    await expectHostFine();
  });

  it('stop a file larger than the file size limit', async () => {
    // Node ignores SIGXFSZ, so the write fails with EFBIG at the limit instead of killing the tool.
    const out = (await runTool(arc, ID, 'exhaust', { mode: 'file', fileBytes: 8 * MiB })).output as { failed: string | null; size: number };
    expect(out.failed).toBe('EFBIG');
    expect(out.size).toBe(LIMITS.fileSizeBytes);
    await expectHostFine();
  });
});
