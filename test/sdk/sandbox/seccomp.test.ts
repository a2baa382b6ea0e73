// The seccomp filter of the bubblewrap sandbox (DESIGN §5; flatpak's blocklist): the generated
// BPF program, its syscall tables against the kernel headers, and real refusals inside bwrap.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox } from '../../../sdk/src/sandbox/bubblewrap.js';
import {
  AUDIT_ARCH,
  BLOCKED_SYSCALLS,
  buildSeccompProgram,
  EAFNOSUPPORT,
  encodeSeccompProgram,
  ENOSYS,
  ENOSYS_SYSCALLS,
  EPERM,
  evaluateSeccomp,
  seccompArchFor,
  seccompFilterForHost,
  SYSCALL_NUMBERS,
  TIOCLINUX,
  TIOCSTI,
  type SeccompArch,
} from '../../../sdk/src/sandbox/seccomp.js';
import { makeFixture, parseProbe, runSandboxed, type Fixture } from './sandbox-fixture.js';

const ARCHES: SeccompArch[] = ['x86_64', 'aarch64'];
const nr = (name: string, arch: SeccompArch): number => {
  const n = SYSCALL_NUMBERS[name]?.[arch];
  if (n === undefined || n === null) throw new Error(`no ${name} on ${arch}`);
  return n;
};

describe('seccomp syscall tables', () => {
  const headers: Record<SeccompArch, string> = {
    x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
    aarch64: '/usr/include/asm-generic/unistd.h',
  };
  for (const arch of ARCHES) {
    it(`match the kernel header for ${arch} when it is installed`, () => {
      const file = headers[arch];
      // The headers come with linux-libc-dev; on this build machine both are installed.
      expect(fs.existsSync(file), `${file} is needed to check the table`).toBe(true);
      const text = fs.readFileSync(file, 'utf8');
      for (const [name, numbers] of Object.entries(SYSCALL_NUMBERS)) {
        const m = new RegExp(`#define __NR_${name}\\s+(\\d+)\\b`).exec(text);
        expect(m === null ? null : Number(m[1]), `${arch} ${name}`).toBe(numbers[arch]);
      }
    });
  }
});

describe('seccomp program', () => {
  for (const arch of ARCHES) {
    const program = buildSeccompProgram(arch);
    const run = (name: string, args: bigint[] = []): ReturnType<typeof evaluateSeccomp> =>
      evaluateSeccomp(program, { nr: nr(name, arch), arch: AUDIT_ARCH[arch], args });

    it(`${arch}: refuses every blocked syscall with EPERM`, () => {
      for (const name of BLOCKED_SYSCALLS) {
        if (SYSCALL_NUMBERS[name]?.[arch] === null) continue;
        expect(run(name), name).toEqual({ action: 'errno', errno: EPERM });
      }
    });
    it(`${arch}: answers clone3 and the new mount API with ENOSYS so libc falls back`, () => {
      for (const name of ENOSYS_SYSCALLS) expect(run(name), name).toEqual({ action: 'errno', errno: ENOSYS });
    });
    it(`${arch}: allows ordinary calls, clone without namespace flags, other ioctls, inet sockets`, () => {
      expect(run('clone', [0x01200011n])).toEqual({ action: 'allow' }); // fork-like flags
      expect(run('ioctl', [1n, 0x5401n])).toEqual({ action: 'allow' }); // TCGETS
      expect(run('socket', [2n, 1n])).toEqual({ action: 'allow' });
      expect(run('socket', [16n, 3n])).toEqual({ action: 'allow' }); // AF_NETLINK: flatpak allows it
      expect(run('personality', [0n])).toEqual({ action: 'allow' });
      expect(evaluateSeccomp(program, { nr: 0, arch: AUDIT_ARCH[arch] })).toEqual({ action: 'allow' });
    });
    it(`${arch}: refuses clone with CLONE_NEWUSER or any other namespace flag`, () => {
      expect(run('clone', [0x10000000n | 17n])).toEqual({ action: 'errno', errno: EPERM });
      expect(run('clone', [0x20000n | 17n])).toEqual({ action: 'errno', errno: EPERM });
      expect(run('clone', [0x40000000n])).toEqual({ action: 'errno', errno: EPERM });
    });
    it(`${arch}: refuses TIOCSTI and TIOCLINUX, also with high bits set (CVE-2019-10063)`, () => {
      expect(run('ioctl', [0n, BigInt(TIOCSTI)])).toEqual({ action: 'errno', errno: EPERM });
      expect(run('ioctl', [0n, BigInt(TIOCLINUX)])).toEqual({ action: 'errno', errno: EPERM });
      expect(run('ioctl', [0n, (1n << 32n) | BigInt(TIOCSTI)])).toEqual({ action: 'errno', errno: EPERM });
    });
    it(`${arch}: refuses personality changes and socket families flatpak does not allow`, () => {
      expect(run('personality', [0x0040000n])).toEqual({ action: 'errno', errno: EPERM });
      expect(run('socket', [17n, 3n])).toEqual({ action: 'errno', errno: EAFNOSUPPORT }); // AF_PACKET
      expect(run('socket', [38n, 5n])).toEqual({ action: 'errno', errno: EAFNOSUPPORT }); // AF_ALG
    });
    it(`${arch}: kills a process calling with a foreign ABI`, () => {
      const other = arch === 'x86_64' ? 0x40000003 /* AUDIT_ARCH_I386 */ : 0x40000028; /* AUDIT_ARCH_ARM */
      expect(evaluateSeccomp(program, { nr: 1, arch: other })).toEqual({ action: 'kill' });
    });
  }
  it('x86_64: refuses x32 syscalls, whose numbers the table does not cover', () => {
    const program = buildSeccompProgram('x86_64');
    expect(evaluateSeccomp(program, { nr: 0x40000000 + 165, arch: AUDIT_ARCH.x86_64 })).toEqual({ action: 'errno', errno: EPERM });
  });
  it('encodes 8-byte sock_filter records', () => {
    const program = buildSeccompProgram('x86_64');
    const bytes = encodeSeccompProgram(program);
    expect(bytes.length).toBe(program.length * 8);
    expect(bytes.readUInt16LE(0)).toBe(0x20); // BPF_LD|BPF_W|BPF_ABS
    expect(bytes.readUInt32LE(4)).toBe(4); // offsetof(struct seccomp_data, arch)
    expect(() => seccompFilterForHost('ia32')).toThrow(expect.objectContaining({ code: 'E_SANDBOX_UNAVAILABLE' }));
  });
});

describe('seccomp inside bubblewrap (real syscalls from a python probe)', () => {
  const sandbox = new BubblewrapSandbox();
  let fx: Fixture;
  let python: string;
  let numbers: Record<string, number>;
  beforeAll(async () => {
    expect(await sandbox.available()).toBe(true);
    fx = makeFixture();
    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    const arch = seccompArchFor();
    if (arch === null) throw new Error(`no seccomp table for ${process.arch}`);
    numbers = Object.fromEntries(Object.entries(SYSCALL_NUMBERS).flatMap(([k, v]) => (v[arch] === null ? [] : [[k, v[arch]]])));
  });
  afterAll(() => fx.remove());

  const probeArgs = (clone: boolean): string[] => [
    path.join(fx.capabilityDir, 'syscalls.py'),
    JSON.stringify(numbers),
    ...(clone ? ['clone'] : []),
  ];

  it('refuses mount, unshare, setns, ptrace, keyctl, bpf, TIOCSTI … with EPERM (and clone3 with ENOSYS)', async () => {
    const result = await runSandboxed(sandbox, fx.spec([], probeArgs(true), { command: python }));
    const errnos = parseProbe(result) as unknown as Record<string, number>;
    for (const name of [
      'mount',
      'umount2',
      'unshare',
      'setns',
      'chroot',
      'pivot_root',
      'ptrace',
      'keyctl',
      'add_key',
      'request_key',
      'personality',
      'get_mempolicy',
      'process_vm_readv',
      'name_to_handle_at',
      'bpf',
      'perf_event_open',
      'userfaultfd',
      'syslog',
      'ioctl_TIOCSTI',
      'ioctl_TIOCLINUX',
      'clone_NEWUSER',
    ]) {
      expect(errnos[name], name).toBe(EPERM);
    }
    expect(errnos.clone3).toBe(ENOSYS);
    expect(errnos.socket_AF_ALG).toBe(EAFNOSUPPORT);
    expect(errnos.socket_AF_INET).toBe(0);
  });

  it('control: the same calls are not refused with EPERM on the host, so the filter is what refuses them', () => {
    const out = execFileSync(python, probeArgs(false), { encoding: 'utf8' });
    const errnos = JSON.parse(out) as Record<string, number>;
    // keyctl, personality, get_mempolicy and process_vm_readv on ourselves work unprivileged;
    // PTRACE_ATTACH to a missing pid is ESRCH; TIOCSTI on a pipe is ENOTTY; clone3(NULL) is EFAULT/EINVAL.
    for (const name of ['keyctl', 'personality', 'get_mempolicy', 'ptrace', 'ioctl_TIOCSTI', 'ioctl_TIOCLINUX', 'clone3']) {
      expect(errnos[name], name).not.toBe(EPERM);
    }
    expect(errnos.clone3).not.toBe(ENOSYS);
  });
});
