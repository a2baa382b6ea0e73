import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';

/** The BUILT `adcap` bin (npm run e2e builds it first). */
export const BIN = join(import.meta.dirname, '..', '..', 'sdk', 'dist', 'cli', 'bin.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Fails early, with the fix, when the SDK was not built. */
export async function assertBuilt(): Promise<void> {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing; run "npm run build -w @arcotheon/sdk" (npm run e2e does).`);
  });
}

/** Runs `adcap ...args` as a real child process and collects its exit code and output. */
export function adcap(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The run, or an error with its stderr when it failed. */
export function ok(run: Run): Run {
  if (run.code !== 0) throw new Error(`adcap exited ${run.code}: ${run.stderr}`);
  return run;
}
