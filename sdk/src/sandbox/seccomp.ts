/**
 * A seccomp filter for tools run under bubblewrap (DESIGN §5, spec §6), written as a classic BPF
 * program (an array of `struct sock_filter`) that bwrap loads with `--seccomp FD`.
 *
 * The rules follow flatpak's `setup_seccomp` (flatpak-run.c) — its blocklist and its non-devel
 * blocklist — plus the kernel-attack-surface calls container runtimes refuse (bpf, userfaultfd,
 * module loading, kexec, open_by_handle_at, swap, reboot, process_vm_*). Everything else is
 * allowed: this is a blocklist on top of the namespaces, not an allowlist.
 *
 * Only the native ABI is allowed. A syscall made with any other audit arch (i386 via int 0x80 on
 * x86_64, arm32 compat on aarch64) kills the process, and x32 calls (nr with bit 30 set) fail,
 * because our tables only know the native numbers and a blocklist that misses an ABI blocks nothing.
 */
import { AdcapError } from '../errors.js';

export type SeccompArch = 'x86_64' | 'aarch64';

/** `process.arch` -> the seccomp table it needs, or null when we have none. */
export function seccompArchFor(nodeArch: string = process.arch): SeccompArch | null {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return null;
}

/** AUDIT_ARCH_* values from <linux/audit.h>: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = {
  x86_64: 0xc000003e,
  aarch64: 0xc00000b7,
};

/**
 * Syscall numbers for the calls the filter names. x86_64 from <asm/unistd_64.h>; aarch64 uses
 * the generic table <asm-generic/unistd.h>. A unit test compares them with the headers when the
 * headers are installed. `null` means the call does not exist on that arch.
 */
export const SYSCALL_NUMBERS: Readonly<Record<string, Readonly<Record<SeccompArch, number | null>>>> = {
  ioctl: { x86_64: 16, aarch64: 29 },
  socket: { x86_64: 41, aarch64: 198 },
  clone: { x86_64: 56, aarch64: 220 },
  ptrace: { x86_64: 101, aarch64: 117 },
  syslog: { x86_64: 103, aarch64: 116 },
  uselib: { x86_64: 134, aarch64: null },
  personality: { x86_64: 135, aarch64: 92 },
  vhangup: { x86_64: 153, aarch64: 58 },
  pivot_root: { x86_64: 155, aarch64: 41 },
  chroot: { x86_64: 161, aarch64: 51 },
  acct: { x86_64: 163, aarch64: 89 },
  mount: { x86_64: 165, aarch64: 40 },
  umount2: { x86_64: 166, aarch64: 39 },
  swapon: { x86_64: 167, aarch64: 224 },
  swapoff: { x86_64: 168, aarch64: 225 },
  reboot: { x86_64: 169, aarch64: 142 },
  init_module: { x86_64: 175, aarch64: 105 },
  delete_module: { x86_64: 176, aarch64: 106 },
  quotactl: { x86_64: 179, aarch64: 60 },
  lookup_dcookie: { x86_64: 212, aarch64: 18 },
  mbind: { x86_64: 237, aarch64: 235 },
  set_mempolicy: { x86_64: 238, aarch64: 237 },
  get_mempolicy: { x86_64: 239, aarch64: 236 },
  kexec_load: { x86_64: 246, aarch64: 104 },
  add_key: { x86_64: 248, aarch64: 217 },
  request_key: { x86_64: 249, aarch64: 218 },
  keyctl: { x86_64: 250, aarch64: 219 },
  migrate_pages: { x86_64: 256, aarch64: 238 },
  unshare: { x86_64: 272, aarch64: 97 },
  move_pages: { x86_64: 279, aarch64: 239 },
  perf_event_open: { x86_64: 298, aarch64: 241 },
  name_to_handle_at: { x86_64: 303, aarch64: 264 },
  open_by_handle_at: { x86_64: 304, aarch64: 265 },
  setns: { x86_64: 308, aarch64: 268 },
  process_vm_readv: { x86_64: 310, aarch64: 270 },
  process_vm_writev: { x86_64: 311, aarch64: 271 },
  finit_module: { x86_64: 313, aarch64: 273 },
  kexec_file_load: { x86_64: 320, aarch64: 294 },
  io_uring_setup: { x86_64: 425, aarch64: 425 },
  io_uring_enter: { x86_64: 426, aarch64: 426 },
  io_uring_register: { x86_64: 427, aarch64: 427 },
  bpf: { x86_64: 321, aarch64: 280 },
  userfaultfd: { x86_64: 323, aarch64: 282 },
  open_tree: { x86_64: 428, aarch64: 428 },
  move_mount: { x86_64: 429, aarch64: 429 },
  fsopen: { x86_64: 430, aarch64: 430 },
  fsconfig: { x86_64: 431, aarch64: 431 },
  fsmount: { x86_64: 432, aarch64: 432 },
  fspick: { x86_64: 433, aarch64: 433 },
  clone3: { x86_64: 435, aarch64: 435 },
  mount_setattr: { x86_64: 442, aarch64: 442 },
  quotactl_fd: { x86_64: 443, aarch64: 443 },
};

export const EPERM = 1;
export const EAFNOSUPPORT = 97;
export const ENOSYS = 38;

/** Calls refused outright with EPERM (flatpak's blocklists plus the kernel-attack-surface set). */
export const BLOCKED_SYSCALLS: readonly string[] = [
  // flatpak: dmesg, obsolete, accounting, quotas, keyring, NUMA/VM operations
  'syslog',
  'uselib',
  'acct',
  'quotactl',
  'quotactl_fd',
  'add_key',
  'keyctl',
  'request_key',
  'move_pages',
  'mbind',
  'get_mempolicy',
  'set_mempolicy',
  'migrate_pages',
  // flatpak: no sub-namespaces and no changes to the mount table
  'unshare',
  'setns',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  // flatpak non-devel: profiling and debugging other processes
  'perf_event_open',
  'ptrace',
  // beyond flatpak: reading other processes' memory, eBPF, userfaultfd, kernel modules, kexec,
  // file handles (open_by_handle_at escapes bind mounts), swap, reboot, old cookie and tty calls
  'process_vm_readv',
  'process_vm_writev',
  'bpf',
  'userfaultfd',
  'init_module',
  'finit_module',
  'delete_module',
  'kexec_load',
  'kexec_file_load',
  'open_by_handle_at',
  'name_to_handle_at',
  'swapon',
  'swapoff',
  'reboot',
  'lookup_dcookie',
  'vhangup',
];

/**
 * Calls refused with ENOSYS so user space falls back: clone3's flags live in memory seccomp
 * cannot read (CVE-2021-41133), so libc must fall back to clone, whose flags we check; the new
 * mount API is refused like flatpak does. io_uring: its submission queue
 * performs operations (IORING_OP_SOCKET, IORING_OP_OPENAT, …) without the matching syscall, so
 * the socket-family and other argument rules above never see them; libraries (libuv, liburing,
 * tokio) fall back to ordinary syscalls on ENOSYS, as on a kernel built without io_uring.
 */
export const ENOSYS_SYSCALLS: readonly string[] = [
  'clone3',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
];

/**
 * clone(2) flags that create namespaces (<linux/sched.h>). CLONE_NEWTIME (0x80) overlaps the
 * exit-signal byte of clone's flags, so it is not listed; unshare and clone3 are refused anyway.
 */
const CLONE_NAMESPACE_FLAGS =
  0x00020000 /* NEWNS */ |
  0x02000000 /* NEWCGROUP */ |
  0x04000000 /* NEWUTS */ |
  0x08000000 /* NEWIPC */ |
  0x10000000 /* NEWUSER */ |
  0x20000000 /* NEWPID */ |
  0x40000000; /* NEWNET */

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
/** flatpak allows only PER_LINUX ("Don't allow you to switch to bsd emulation or whatnot"). */
const PER_LINUX = 0;
/** flatpak's socket family allowlist without its opt-in CAN and Bluetooth: AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK. */
const ALLOWED_SOCKET_FAMILIES: readonly number[] = [0, 1, 2, 10, 16];

/** x32 syscalls on x86_64 carry this bit in nr. */
const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes (<linux/filter.h>) and seccomp return values (<linux/seccomp.h>).
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** Low 32 bits of args[i] (both supported arches are little-endian). */
const argLow = (i: number): number => 16 + 8 * i;

interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const stmt = (code: number, k: number): SockFilter => ({ code, jt: 0, jf: 0, k });
const jump = (code: number, k: number, jt: number, jf: number): SockFilter => ({ code, jt, jf, k });
const ret = (value: number): SockFilter => stmt(BPF_RET_K, value >>> 0);
const errno = (e: number): SockFilter => ret(SECCOMP_RET_ERRNO | e);

/** One syscall's block: runs with A = nr; falls through to the next block with A = nr. */
function blockFor(nr: number, body: SockFilter[]): SockFilter[] {
  if (body.length > 255) throw new Error('seccomp block too long for a BPF jump');
  return [jump(BPF_JMP_JEQ_K, nr, 0, body.length), ...body];
}

/** Refuse when (low word of args[arg]) & mask is non-zero; otherwise restore A = nr. */
function refuseIfAnyBit(arg: number, mask: number, e: number): SockFilter[] {
  return [stmt(BPF_LD_W_ABS, argLow(arg)), jump(BPF_JMP_JSET_K, mask, 0, 1), errno(e), stmt(BPF_LD_W_ABS, OFFSET_NR)];
}

/** Refuse when the low word of args[arg] equals one of `values` (ioctl requests are 32-bit: flatpak's CVE-2019-10063 fix). */
function refuseIfEquals(arg: number, values: readonly number[], e: number): SockFilter[] {
  const out: SockFilter[] = [stmt(BPF_LD_W_ABS, argLow(arg))];
  values.forEach((value, i) => out.push(jump(BPF_JMP_JEQ_K, value, values.length - i, 0)));
  out.push(jump(BPF_JMP_JEQ_K, 0, 1, 1)); // unconditional skip of the errno (BPF has `ja`, but this keeps one opcode set)
  out.push(errno(e));
  out.push(stmt(BPF_LD_W_ABS, OFFSET_NR));
  return out;
}

/** Refuse unless the low word of args[arg] is one of `allowed`. */
function refuseUnlessIn(arg: number, allowed: readonly number[], e: number): SockFilter[] {
  const out: SockFilter[] = [stmt(BPF_LD_W_ABS, argLow(arg))];
  allowed.forEach((value, i) => out.push(jump(BPF_JMP_JEQ_K, value, allowed.length - i, 0)));
  out.push(errno(e));
  out.push(stmt(BPF_LD_W_ABS, OFFSET_NR));
  return out;
}

function nrOf(name: string, arch: SeccompArch): number | null {
  const entry = SYSCALL_NUMBERS[name];
  if (entry === undefined) throw new Error(`seccomp: no syscall number table entry for ${name}`);
  return entry[arch];
}

/** The filter program for `arch` (DESIGN §5: the seccomp filter of the bubblewrap sandbox). */
export function buildSeccompProgram(arch: SeccompArch): SockFilter[] {
  const program: SockFilter[] = [
    stmt(BPF_LD_W_ABS, OFFSET_ARCH),
    jump(BPF_JMP_JEQ_K, AUDIT_ARCH[arch], 1, 0),
    ret(SECCOMP_RET_KILL_PROCESS),
    stmt(BPF_LD_W_ABS, OFFSET_NR),
  ];
  if (arch === 'x86_64') {
    program.push(jump(BPF_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1), errno(EPERM));
  }
  const add = (name: string, body: SockFilter[]): void => {
    const nr = nrOf(name, arch);
    if (nr !== null) program.push(...blockFor(nr, body));
  };
  for (const name of BLOCKED_SYSCALLS) add(name, [errno(EPERM)]);
  for (const name of ENOSYS_SYSCALLS) add(name, [errno(ENOSYS)]);
  // flatpak: clone with CLONE_NEWUSER; we refuse every namespace flag (no caps remain to use them anyway).
  add('clone', refuseIfAnyBit(0, CLONE_NAMESPACE_FLAGS, EPERM));
  // flatpak: no faking input into the controlling tty (CVE-2017-5226) or console copy/paste (CVE-2023-28100).
  add('ioctl', refuseIfEquals(1, [TIOCSTI, TIOCLINUX], EPERM));
  add('personality', refuseUnlessIn(0, [PER_LINUX], EPERM));
  add('socket', refuseUnlessIn(0, ALLOWED_SOCKET_FAMILIES, EAFNOSUPPORT));
  program.push(ret(SECCOMP_RET_ALLOW));
  return program;
}

/** Serialises the program as the kernel's `struct sock_filter[]` (8 bytes each, host byte order). */
export function encodeSeccompProgram(program: readonly SockFilter[]): Buffer {
  if (program.length === 0 || program.length > 4096) throw new Error('seccomp program must have 1..4096 instructions');
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}

/**
 * A one-instruction filter that allows everything. Loading it changes nothing (stacked filters
 * take the strictest answer), but bwrap reads each `--add-seccomp-fd` descriptor to its end and
 * closes it before the tool starts: the sandbox uses that to close descriptors the host process
 * inherited without close-on-exec.
 */
export function allowAllSeccompFilter(): Buffer {
  return encodeSeccompProgram([ret(SECCOMP_RET_ALLOW)]);
}

/** The encoded filter for this machine, or E_SANDBOX_UNAVAILABLE on an arch we have no table for. */
export function seccompFilterForHost(nodeArch: string = process.arch): Buffer {
  const arch = seccompArchFor(nodeArch);
  if (arch === null) {
    throw new AdcapError(
      'E_SANDBOX_UNAVAILABLE',
      `The sandbox has no seccomp syscall table for the ${nodeArch} processor, ` +
        'so it cannot run tools safely here; use an x86_64 or arm64 machine.',
      { details: { arch: nodeArch } },
    );
  }
  return encodeSeccompProgram(buildSeccompProgram(arch));
}

/**
 * Runs the program on a synthetic `seccomp_data` and returns the action, for unit tests and for
 * explaining a refusal. Implements exactly the opcodes the builder emits.
 */
export function evaluateSeccomp(
  program: readonly SockFilter[],
  data: { nr: number; arch: number; args?: readonly bigint[] },
): { action: 'allow' | 'kill' | 'errno'; errno?: number } {
  const word = (offset: number): number => {
    if (offset === OFFSET_NR) return data.nr >>> 0;
    if (offset === OFFSET_ARCH) return data.arch >>> 0;
    const i = (offset - 16) / 8;
    const value = data.args?.[Math.floor(i)] ?? 0n;
    return Number(Number.isInteger(i) ? value & 0xffffffffn : (value >> 32n) & 0xffffffffn);
  };
  let a = 0;
  for (let pc = 0; pc < program.length;) {
    const ins = program[pc];
    if (ins === undefined) break;
    switch (ins.code) {
      case BPF_LD_W_ABS:
        a = word(ins.k);
        pc += 1;
        break;
      case BPF_JMP_JEQ_K:
        pc += 1 + (a === ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case BPF_JMP_JGE_K:
        pc += 1 + (a >= ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case BPF_JMP_JSET_K:
        pc += 1 + ((a & ins.k) >>> 0 !== 0 ? ins.jt : ins.jf);
        break;
      case BPF_RET_K: {
        const value = ins.k >>> 0;
        if (value === SECCOMP_RET_ALLOW) return { action: 'allow' };
        if (value === SECCOMP_RET_KILL_PROCESS) return { action: 'kill' };
        return { action: 'errno', errno: value & 0xffff };
      }
      default:
        throw new Error(`evaluateSeccomp: unknown opcode ${ins.code}`);
    }
  }
  throw new Error('evaluateSeccomp: program fell off the end');
}
