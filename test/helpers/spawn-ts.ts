import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

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

const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/**
 * Bundles a TypeScript fixture with the SDK source it imports (and their dependencies) into one ES
 * module in the test file's temporary folder, for a test that starts many processes from it: a
 * start then loads one file instead of tsx compiling and loading ~200 modules (0.13 s of CPU
 * instead of 0.6-0.8 s; the crash test starts 64). It is still the source, never sdk/dist
 * (`@arcotheon/sdk` resolves through tsconfig.json's paths). Each module keeps its own
 * import.meta.url, so the files the SDK reads beside its modules (the JSON Schemas) are found as
 * under tsx. Not for scripts that compare their own path with process.argv[1] (the CLI's main).
 */
export async function bundleTs(script: string): Promise<string> {
  const out = join(await mkdtemp(join(tmpdir(), 'bundle-')), 'fixture.mjs');
  await build({
    entryPoints: [script],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    tsconfig: TSCONFIG,
    logLevel: 'warning',
    // CommonJS dependencies bundled into an ES module still call require() for Node's modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    plugins: [
      {
        name: 'source-import-meta-url',
        setup(bundler) {
          bundler.onLoad({ filter: /\.ts$/ }, async (args) => ({
            contents: (await readFile(args.path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  return out;
}

/** Spawns `node <bundle> ...args` (a bundle from bundleTs) as a real child process. */
export function spawnBundle(bundle: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [bundle, ...args], { env: options.env ?? process.env, stdio: 'pipe' });
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
