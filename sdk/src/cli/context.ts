import { resolve } from 'node:path';
import { platformDataDir } from '../util/platform.js';
import type { CliIO, Output } from './output.js';

/**
 * What a command module gets besides commander's `program`: output helpers, the I/O it must use
 * instead of `process` (so tests can run commands in-process), and the resolved home directory.
 */
export interface CliContext {
  readonly io: CliIO;
  readonly output: Output;
  /** The home directory (DESIGN §6): `--home`, else ARCOTHEON_HOME, else the platform data dir. */
  home(): string;
  /** A path from the command line, resolved against the CLI's working directory. */
  resolvePath(path: string): string;
  /** Sets the exit code for a command that finishes without throwing (e.g. `doctor` with problems left). */
  setExitCode(code: number): void;
}

export function resolveHome(homeFlag: string | undefined, io: Pick<CliIO, 'env' | 'cwd' | 'platform' | 'homedir'>): string {
  if (homeFlag !== undefined && homeFlag !== '') return resolve(io.cwd, homeFlag);
  const fromEnv = io.env.ARCOTHEON_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(io.cwd, fromEnv);
  return platformDataDir(io.platform, io.env, io.homedir);
}

export { platformDataDir };
