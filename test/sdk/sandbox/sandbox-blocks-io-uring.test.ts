// Kept closed ("io_uring bypasses the socket seccomp rules"): IORING_OP_SOCKET created an
// AF_VSOCK socket that socket() refuses, because io_uring's operations never pass through the
// syscall filter. The filter now refuses io_uring_setup, io_uring_enter and io_uring_register
// (ENOSYS, so libraries fall back to plain syscalls) on both architectures we have tables for.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import {
  AUDIT_ARCH,
  buildSeccompProgram,
  ENOSYS,
  evaluateSeccomp,
  seccompArchFor,
  SYSCALL_NUMBERS,
  type SeccompArch,
} from '../../../sdk/src/sandbox/seccomp.js';
import { makeFixture, parseProbe, PROBE_DIR, runSandboxed, type Fixture } from './sandbox-fixture.js';

const IO_URING = ['io_uring_setup', 'io_uring_enter', 'io_uring_register'] as const;

describe('the seccomp program refuses io_uring', () => {
  for (const arch of ['x86_64', 'aarch64'] as SeccompArch[]) {
    it(`${arch}: io_uring_setup, io_uring_enter and io_uring_register answer ENOSYS`, () => {
      const program = buildSeccompProgram(arch);
      for (const name of IO_URING) {
        const nr = SYSCALL_NUMBERS[name]?.[arch];
        expect(typeof nr, name).toBe('number');
        expect(evaluateSeccomp(program, { nr: nr as number, arch: AUDIT_ARCH[arch], args: [4n, 0n] }), `${arch} ${name}`).toEqual({
          action: 'errno',
          errno: ENOSYS,
        });
      }
    });
  }
});

describe('a tool calling io_uring inside bubblewrap', () => {
  const sandbox = new BubblewrapSandbox();
  let fx: Fixture;
  let python: string;
  let numbers: string;
  beforeAll(async () => {
    expect(await sandbox.available()).toBe(true);
    fx = makeFixture();
    fs.copyFileSync(path.join(PROBE_DIR, 'io_uring.py'), path.join(fx.capabilityDir, 'io_uring.py'));
    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    const arch = seccompArchFor();
    if (arch === null) throw new Error(`no seccomp table for ${process.arch}`);
    numbers = JSON.stringify(Object.fromEntries(IO_URING.map((name) => [name, SYSCALL_NUMBERS[name]?.[arch]])));
  });
  afterAll(() => fx.remove());

  it('gets ENOSYS from all three calls, so it never gets a ring', async () => {
    const result = await runSandboxed(sandbox, fx.spec([], [path.join(fx.capabilityDir, 'io_uring.py'), numbers], { command: python }));
    const errnos = parseProbe(result) as unknown as Record<string, number>;
    for (const name of IO_URING) expect(errnos[name], name).toBe(ENOSYS);
  });

  it('control: on the host io_uring_setup works (or fails for another reason), so the filter is what refuses it', () => {
    const errnos = JSON.parse(execFileSync(python, [path.join(PROBE_DIR, 'io_uring.py'), numbers], { encoding: 'utf8' })) as Record<
      string,
      number
    >;
    for (const name of IO_URING) expect(errnos[name], name).not.toBe(ENOSYS);
  });
});
