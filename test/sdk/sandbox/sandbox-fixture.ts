// Shared setup for the sandbox tests: a fake capability, workspace, home with a secret, and a
// runner that spawns a WrappedCommand the way the run module does (stdio + stdioExtra fds).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox, SandboxSpec } from '../../../sdk/src/sandbox/sandbox.js';
import { stdioFor } from '../../../sdk/src/sandbox/sandbox.js';

export const PROBE_DIR = fileURLToPath(new URL('../../fixtures/probe/', import.meta.url));
export const NODE = process.execPath;

export interface Fixture {
  root: string;
  capabilityDir: string;
  workspace: string;
  home: string;
  secret: string;
  outside: string;
  toolData: string;
  tmpDir: string;
  spec(grants: string[], args: string[], extra?: Partial<SandboxSpec>): SandboxSpec;
  remove(): void;
}

export function makeFixture(): Fixture {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'adcap-sbx-test-')));
  const capabilityDir = path.join(root, 'home', '.arcotheon', 'packages', 'acme', 'probe', '1.0.0');
  const workspace = path.join(root, 'workspace');
  const home = path.join(root, 'home');
  const outside = path.join(root, 'outside');
  const toolData = path.join(root, 'home', '.arcotheon', 'tooldata', 'acme', 'probe', 'probe');
  for (const d of [capabilityDir, workspace, outside]) fs.mkdirSync(d, { recursive: true });
  for (const f of ['probe.mjs', 'syscalls.py']) fs.copyFileSync(path.join(PROBE_DIR, f), path.join(capabilityDir, f));
  fs.writeFileSync(path.join(capabilityDir, 'tool.txt'), 'tool file');
  fs.writeFileSync(path.join(workspace, 'input.txt'), 'workspace input');
  const secret = path.join(home, '.ssh', 'id_ed25519');
  fs.mkdirSync(path.dirname(secret), { recursive: true });
  fs.writeFileSync(secret, 'PRIVATE KEY', { mode: 0o600 });
  const tmpDir = path.join(root, 'run');
  return {
    root,
    capabilityDir,
    workspace,
    home,
    secret,
    outside,
    toolData,
    tmpDir,
    spec: (grants, args, extra = {}) => ({
      command: NODE,
      args,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', GRANTED_TOKEN: 'granted-value', OTHER_SECRET: 'other-value' },
      grants,
      capabilityDir,
      dependencyDirs: [],
      readOnlyFiles: [],
      workspace,
      toolDataDir: toolData,
      tmpDir,
      home,
      protectedDirs: [path.join(root, 'home', '.arcotheon', 'packages')],
      ...extra,
    }),
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `spec` through `sandbox` and waits; always runs cleanup(). */
export async function runSandboxed(sandbox: Sandbox, spec: SandboxSpec): Promise<RunResult> {
  const wrapped = await sandbox.wrap(spec);
  try {
    return await new Promise<RunResult>((resolve, reject) => {
      const child = spawn(wrapped.command, wrapped.args, {
        env: wrapped.env,
        cwd: wrapped.cwd,
        stdio: stdioFor(wrapped, ['ignore', 'pipe', 'pipe']),
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  } finally {
    await wrapped.cleanup?.();
  }
}

export type ProbeResults = Record<string, { ok: boolean; detail: string | null }>;

export function parseProbe(result: RunResult): ProbeResults {
  const line = result.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ProbeResults;
  } catch {
    throw new Error(`probe printed no JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
  }
}

/** A TCP listener on the host's 127.0.0.1 that greets and closes. */
export async function startListener(): Promise<{ port: number; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
    s.end('listener-says-hi\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
