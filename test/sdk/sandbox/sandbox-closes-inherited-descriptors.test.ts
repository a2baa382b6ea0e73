// Kept closed ("descriptors inherited by the host leak into the sandbox"): a descriptor open
// in the calling process (fd 100) let a tool with no grants read and write host files through
// /proc/self/fd. Node opens its own files close-on-exec, but a descriptor the host inherited
// (from a shell, a parent process, a native module) is passed on to every child, and bwrap passes
// it into the sandbox. The sandbox now closes every descriptor but stdio before the tool starts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox, inheritedDescriptors } from '../../../sdk/src/sandbox/bubblewrap.js';
import { bundleTs } from '../../helpers/spawn-ts.js';

const HOST = fileURLToPath(new URL('../../fixtures/sandbox-host/inheriting-host.ts', import.meta.url));
type Report = Record<string, { ok: boolean; detail: string }>;

let root: string;
beforeAll(async () => {
  expect(await new BubblewrapSandbox().available()).toBe(true);
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'adcap-fd-test-')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Starts the host with fd 100 open read-write on `file`, returns what the host saw and the tool's report. */
async function runHost(sandbox: 'bubblewrap' | 'none', file: string): Promise<{ hostSees: string | null; tool: Report }> {
  const fd = fs.openSync(file, 'r+');
  try {
    const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
    while (stdio.length < 100) stdio.push('ignore');
    stdio.push(fd); // becomes fd 100 in the host, without close-on-exec
    const child = spawn(process.execPath, [await bundleTs(HOST), JSON.stringify({ sandbox, root: path.join(root, sandbox) })], {
      stdio,
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = out.trim().split('\n');
    if (code !== 0 || lines.length < 2) throw new Error(`host failed (${String(code)}): ${out}\n${err}`);
    return {
      hostSees: (JSON.parse(lines[0] ?? '{}') as { hostSees: string | null }).hostSees,
      tool: JSON.parse(lines[lines.length - 1] ?? '{}') as Report,
    };
  } finally {
    fs.closeSync(fd);
  }
}

describe('descriptors inherited by the host', () => {
  it('are closed before the tool starts: it can neither read nor write the file behind fd 100', async () => {
    const file = path.join(root, 'host-secret.txt');
    fs.writeFileSync(file, 'HOST SECRET');
    const { hostSees, tool } = await runHost('bubblewrap', file);
    expect(hostSees).toBe(file); // the host really holds fd 100 on the file
    for (const name of ['readProcFd', 'writeProcFd', 'readFd', 'writeFd']) {
      expect(tool[name]?.ok, `${name}: ${tool[name]?.detail}`).toBe(false);
    }
    expect(tool.readFd?.detail).toBe('EBADF');
    expect(tool.listFds?.detail.split(',')).not.toContain('100');
    expect(fs.readFileSync(file, 'utf8')).toBe('HOST SECRET');
  });

  it('control: without the sandbox the same tool reads and writes the file, so the setup reproduces the attack', async () => {
    const file = path.join(root, 'control.txt');
    fs.writeFileSync(file, 'CONTROL SECRET');
    const { tool } = await runHost('none', file);
    expect(tool.readProcFd).toEqual({ ok: true, detail: 'CONTROL SECRET' });
    expect(tool.readFd).toEqual({ ok: true, detail: 'WRITTEN-VIA-PROC' });
    expect(tool.writeFd?.ok).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('WRITTEN-VIA-FDOC'); // pwrite at 0 over 'WRITTEN-VIA-PROC'
  });

  it('are found by inheritedDescriptors() (this test process opens everything close-on-exec)', () => {
    const fd = fs.openSync(path.join(root, 'cloexec.txt'), 'w');
    try {
      expect(inheritedDescriptors()).not.toContain(fd);
    } finally {
      fs.closeSync(fd);
    }
  });
});
