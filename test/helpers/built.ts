/**
 * A few unit tests run the built package on purpose (the `arcotheon` bin runs out/electron/arcotheon.mjs,
 * a bundle of out/electron/ with the SDK's sdk/dist; the bundled utility process imports sdk/dist).
 * They call this first: it fails, naming the command to run, when a build output is older than a
 * source file it is built from, so no test passes or fails on a stale build.
 * `npm test` builds before the unit tests.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

const OUTPUTS = {
  sdk: { output: 'sdk/dist/index.js', sources: ['sdk/src'] },
  electron: { output: 'out/electron/arcotheon.mjs', sources: ['electron', 'sdk/src'] },
} as const;

async function newest(dir: string): Promise<{ file: string; mtimeMs: number }> {
  let best = { file: dir, mtimeMs: 0 };
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const { mtimeMs } = await stat(file);
    if (mtimeMs > best.mtimeMs) best = { file, mtimeMs };
  }
  return best;
}

export async function assertBuilt(...parts: Array<keyof typeof OUTPUTS>): Promise<void> {
  for (const part of parts) {
    const { output, sources } = OUTPUTS[part];
    const built = await stat(join(REPO, output)).catch(() => null);
    if (built === null) throw new Error(`${output} is missing: run "npm run build" before these tests`);
    for (const source of sources) {
      const latest = await newest(join(REPO, source));
      if (latest.mtimeMs > built.mtimeMs) {
        const stale = `${output} is older than ${relative(REPO, latest.file)}`;
        throw new Error(`${stale}: run "npm run build" before these tests (they run the built package)`);
      }
    }
  }
}
