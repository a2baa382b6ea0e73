// The SDK tarball a user installs (README "The commands on your PATH"): `npm run pack:sdk` into
// `dir`, as a user runs it from the checkout; the tarball's path and the SDK's version.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export async function packSdk(dir: string, env: NodeJS.ProcessEnv): Promise<{ tarball: string; version: string }> {
  await mkdir(dir, { recursive: true });
  await promisify(execFile)('npm', ['run', 'pack:sdk', '--', '--pack-destination', dir], { cwd: REPO, env, maxBuffer: 64 * 1024 * 1024 });
  const { version } = JSON.parse(await readFile(join(REPO, 'sdk', 'package.json'), 'utf8')) as { version: string };
  const tarball = join(dir, `arcotheon-sdk-${version}.tgz`);
  if (!existsSync(tarball)) throw new Error(`npm run pack:sdk wrote no ${tarball}`);
  return { tarball, version };
}
