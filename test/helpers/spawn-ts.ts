import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../../build/esbuild-node-bundle.mjs';
import { BUNDLES_FOLDER, RUN_ROOT_ENV } from '../setup/temp-root.js';

const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
/** `adcap` from source, as a fixture to run with spawnTs or bundleTs. */
export const ADCAP_FIXTURE = fileURLToPath(new URL('../fixtures/adcap.ts', import.meta.url));
/** The bundles this process made or found, by script. */
const bundles = new Map<string, Promise<string>>();

/**
 * A TypeScript fixture bundled with the SDK source it imports (and their dependencies) into one ES
 * module, for the tests that run it as a child process: a start then loads one file instead of tsx
 * compiling and loading ~200 modules (0.23 s of CPU instead of ~1.5 s for `arcotheon ui`). It is
 * still the source, never sdk/dist (`@arcotheon/sdk` resolves through tsconfig.json's paths). Each
 * module keeps its own import.meta.url (build/esbuild-node-bundle.mjs), so the files the SDK reads
 * beside its modules are found as under tsx. A script is bundled once per test run (into the run's
 * temporary root, shared by the workers: made under a temporary name and renamed into place); a
 * script that compares its own path with process.argv[1] (the CLI's main.ts) needs an entry of its
 * own (test/fixtures/adcap.ts).
 */
export function bundleTs(script: string): Promise<string> {
  let bundle = bundles.get(script);
  if (bundle === undefined) {
    bundle = bundleOnce(script);
    bundles.set(script, bundle);
    bundle.catch(() => bundles.delete(script));
  }
  return bundle;
}

async function bundleOnce(script: string): Promise<string> {
  const root = process.env[RUN_ROOT_ENV];
  const folder = root === undefined ? await mkdtemp(join(tmpdir(), 'bundle-')) : join(root, BUNDLES_FOLDER);
  await mkdir(folder, { recursive: true });
  const key = createHash('sha256').update(script).digest('hex').slice(0, 16);
  const outfile = join(folder, `${basename(script, '.ts')}-${key}.mjs`);
  if ((await stat(outfile).catch(() => null)) !== null) return outfile;
  const temp = `${outfile}.${process.pid}.tmp`;
  await build(
    nodeBundleOptions({
      entryPoint: script,
      outfile: temp,
      modules: /\.ts$/,
      loader: 'ts',
      moduleUrl: (path) => JSON.stringify(pathToFileURL(path).href),
      tsconfig: TSCONFIG,
    }),
  );
  await rename(temp, outfile);
  return outfile;
}

/** Runs a TypeScript fixture as a real child process: `node <its bundle> ...args` (see bundleTs). */
export async function spawnTs(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ChildProcessWithoutNullStreams> {
  return spawnBundle(await bundleTs(script), args, options);
}

/** Spawns `node <bundle> ...args` (a bundle from bundleTs) as a real child process. */
export function spawnBundle(
  bundle: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [bundle, ...args], { env: options.env ?? process.env, cwd: options.cwd, stdio: 'pipe' });
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
