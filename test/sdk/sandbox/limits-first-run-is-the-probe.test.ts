// Sandbox overhead (SECURITY.md "The tool sandbox", resource limits): the first run of a process
// needs no probe cgroup made and removed before it. Its own cgroups are the test of whether run
// cgroups work here; they hold the limits exactly as after the full detection, and a later run
// of the same process makes its cgroups straight away. (This file runs in its own module
// instance, so nothing has detected the mechanisms before the first limitRun.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { limitEnforcement, limitRun, settleRunCgroups, type LimitedRun } from '../../../sdk/src/sandbox/limits.js';

const MiB = 1024 * 1024;
const LIMITS = { processes: 48, memoryBytes: 300 * MiB, fileSizeBytes: 2 * MiB };

/** The run cgroup directories a LimitedRun enters. */
const runDirs = (run: LimitedRun): string[] => run.hostPrefix.filter((a) => /\/(tasks|cgroup\.procs)$/.test(a)).map((p) => dirname(p));

/** What the entering shell sees: its file size limit and its cgroups. */
function enter(run: LimitedRun): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.hostPrefix[0] as string, [...run.hostPrefix.slice(1), '/bin/sh', '-c', 'ulimit -f; cat /proc/self/cgroup'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the first run of a process is the cgroup probe', () => {
  it('makes only its own cgroups, which hold the limits; a second run does the same', async () => {
    // The cgroup file system is written with synchronous calls (limits.ts createRunCgroups).
    const mkdir = vi.spyOn(fs, 'mkdirSync');
    const rmdir = vi.spyOn(fs, 'rmdirSync');
    const made = (): string[] => mkdir.mock.calls.map((c) => String(c[0])).filter((p) => /adcap-run-[0-9a-f]{12}$/.test(p));
    const first = await limitRun(LIMITS);
    if (first.hostPrefix[0] !== '/bin/sh') {
      // No run cgroups here: the detection chose another mechanism, which holds the limits as before.
      expect((await limitEnforcement()).processes).not.toBe('cgroup');
      return;
    }
    try {
      // Exactly the run's own cgroups were made, and none removed before it started.
      expect(made().sort()).toEqual(runDirs(first).sort());
      expect(rmdir.mock.calls.filter((c) => String(c[0]).includes('adcap-run-'))).toEqual([]);
      for (const dir of runDirs(first)) {
        const limitFile = (await fsp.readdir(dir)).includes('pids.max') ? join(dir, 'pids.max') : null;
        if (limitFile !== null) expect((await fsp.readFile(limitFile, 'utf8')).trim()).toBe(String(LIMITS.processes));
      }
      const out = await enter(first);
      expect(out.split('\n')[0]).toBe(String(LIMITS.fileSizeBytes / 512));
      for (const dir of runDirs(first)) expect(out).toContain(dir.slice(dir.lastIndexOf('/')));
    } finally {
      await first.cleanup();
    }

    mkdir.mockClear();
    const second = await limitRun(LIMITS);
    try {
      expect(second.hostPrefix[0]).toBe('/bin/sh');
      expect(made().sort()).toEqual(runDirs(second).sort());
    } finally {
      await second.cleanup();
    }
    // The detection (diagnostics) agrees with what the runs used.
    expect((await limitEnforcement()).processes).toBe('cgroup');
    await settleRunCgroups();
    for (const dir of [...runDirs(first), ...runDirs(second)]) await expect(fsp.stat(dir)).rejects.toThrow();
  });
});
