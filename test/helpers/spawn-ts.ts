import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** The tsx loader, so tests can run TypeScript fixtures as real child processes. */
export const TSX_IMPORT = require.resolve('tsx');

/** Spawns `node --import tsx <script> ...args` as a real child process. */
export function spawnTs(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', TSX_IMPORT, script, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: 'pipe',
  });
}

/** Resolves with the first stdout line that satisfies `match`; rejects if the process exits first. */
export function waitForLine(child: ChildProcessWithoutNullStreams, match: (line: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for output; stderr: ${stderr}`)), timeoutMs);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        if (match(line)) {
          clearTimeout(timer);
          resolve(line);
          return;
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${String(code)} before the expected line; stderr: ${stderr}`));
    });
  });
}

export function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}
