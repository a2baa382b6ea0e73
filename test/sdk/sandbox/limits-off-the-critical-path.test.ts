// Sandbox overhead: with a run cgroup, which holds processes and memory, the
// file size limit is set by the host-side shell that enters the cgroup (`ulimit -f`), so no prlimit
// runs inside the sandbox; the run's cgroups are removed after the result is returned, in the
// background, and settleRunCgroups() waits for that. (The limits themselves are proven by
// limits-stop-process-spawner-and-memory-hog.test.ts.)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitEnforcement, limitRun, settleRunCgroups } from '../../../sdk/src/sandbox/limits.js';

const MiB = 1024 * 1024;

describe('resource limits off the critical path', () => {
  it('enter the cgroup and set RLIMIT_FSIZE in one host-side shell, with no prlimit inside', async () => {
    const enforcement = await limitEnforcement();
    const run = await limitRun({ processes: 64, memoryBytes: 256 * MiB, fileSizeBytes: 3 * MiB });
    try {
      if (enforcement.processes !== 'cgroup') {
        // Without a cgroup, prlimit inside the sandbox still sets the rlimits.
        expect(run.sandboxPrefix.some((a) => a.startsWith('--fsize='))).toBe(true);
        return;
      }
      expect(run.sandboxPrefix).toEqual([]);
      expect(run.hostPrefix[0]).toBe('/bin/sh');
      // What the shell does, checked for real: the limit (6144 blocks of 512 bytes = 3 MiB) and the cgroup.
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(
          run.hostPrefix[0] as string,
          [...run.hostPrefix.slice(1), '/bin/sh', '-c', 'ulimit -f; cat /proc/self/cgroup'],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
      });
      expect(out.split('\n')[0]).toBe(String((3 * MiB) / 512));
      expect(out).toMatch(/adcap-run-[0-9a-f]{12}/);
    } finally {
      await run.cleanup();
    }
    const dirs = run.hostPrefix.filter((a) => /\/(tasks|cgroup\.procs)$/.test(a)).map((p) => dirname(p));
    expect(dirs.length).toBeGreaterThan(0);
    await settleRunCgroups();
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
  });
});
