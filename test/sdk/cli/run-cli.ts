import { runCli } from '../../../sdk/src/cli/main.js';
import type { CliIO } from '../../../sdk/src/cli/output.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `adcap` in-process with captured output. */
export async function adcap(
  argv: string[],
  options: { cwd: string; env?: Record<string, string | undefined> } & Partial<CliIO>,
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: options.env ?? {},
    cwd: options.cwd,
    platform: options.platform ?? 'linux',
    homedir: options.homedir ?? '/home/tester',
    stdinIsTTY: false,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
