import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap as runAdcap, assertBuilt, BIN, type Run } from './helpers/adcap.js';

/**
 * A registry end to end through the BUILT bin (`npm run e2e` builds it first), as real child
 * processes: keygen, registry init, add-publisher, build --sign, registry publish, registry build,
 * `registry serve` as a long-running child, then remote add over http://127.0.0.1, search and
 * show, with --json assertions (DESIGN §8, §11).
 */

let work: string;
let server: ChildProcessWithoutNullStreams | undefined;

function env(): NodeJS.ProcessEnv {
  // The embedded example registry is switched off so only the served registry answers.
  return { ...process.env, ARCOTHEON_HOME: join(work, 'home'), ARCOTHEON_EMBEDDED_REGISTRY: '' };
}

function adcap(args: string[]): Promise<Run> {
  return runAdcap(args, { cwd: work, env: env() });
}

async function json<T>(args: string[]): Promise<T> {
  const run = await adcap([...args, '--json']);
  if (run.code !== 0) throw new Error(`adcap ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** Starts `adcap registry serve` and resolves with the remote URL from its first stdout line. */
function serve(dir: string): Promise<{ url: string; remoteUrl: string }> {
  const child = spawn(process.execPath, [BIN, 'registry', 'serve', dir, '--json'], {
    cwd: work,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child as unknown as ChildProcessWithoutNullStreams;
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`registry serve printed no URL; stderr: ${stderr}`)), 20_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      const newline = buffer.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(buffer.slice(0, newline)) as { url: string; remoteUrl: string });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`registry serve exited ${code}: ${stderr}`));
    });
  });
}

beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-registry-'));
});
afterAll(async () => {
  server?.kill('SIGTERM');
  await rm(work, { recursive: true, force: true });
});

describe('adcap registry, end to end', () => {
  it('keygen -> registry init/add-publisher -> build --sign -> publish -> build -> serve -> remote add -> search -> show', async () => {
    const root = await json<{ keyId: string; publicKey: string }>(['keygen', '-o', 'root.key.json']);
    const publisher = await json<{ keyId: string; publicKey: string }>(['keygen', '-o', 'acme.key.json']);

    const init = await json<{ registry: string; rootKeys: { keyId: string }[] }>([
      'registry',
      'init',
      'reg',
      '--name',
      'e2e-registry',
      '--root-key',
      'root.key.json',
    ]);
    expect(init).toMatchObject({ registry: 'e2e-registry', rootKeys: [{ keyId: root.keyId }] });
    const pub = await json<{ id: string; keys: { keyId: string; status: string }[] }>([
      'registry',
      'add-publisher',
      'reg',
      'acme',
      '--key',
      publisher.publicKey,
      '--name',
      'Acme Tools',
    ]);
    expect(pub).toMatchObject({ id: 'acme', keys: [{ keyId: publisher.keyId, status: 'active' }] });

    await json(['init', 'hello', '--id', 'acme/hello', '--name', 'Hello registry']);
    const built = await json<{ id: string; version: string; archiveSha256: string; signedBy: string[] }>([
      'build',
      'hello',
      '-o',
      'hello.adcap',
      '--sign',
      'acme.key.json',
    ]);
    expect(built.signedBy).toEqual([publisher.keyId]);

    const published = await json<{ id: string; created: boolean; archive: { sha256: string; urls: string[] } }>([
      'registry',
      'publish',
      'reg',
      'hello.adcap',
    ]);
    expect(published).toMatchObject({
      id: 'acme/hello',
      created: true,
      archive: { sha256: built.archiveSha256, urls: [`blobs/sha256/${built.archiveSha256}.adcap`] },
    });

    const unsigned = await adcap(['registry', 'publish', 'reg', 'hello', '--json']);
    expect(unsigned.code).not.toBe(0);

    const build = await json<{ sequence: number; capabilities: number }>(['registry', 'build', 'reg', '--root-key', 'root.key.json']);
    expect(build).toMatchObject({ sequence: 1, capabilities: 1 });

    const { remoteUrl } = await serve('reg');
    expect(remoteUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/$/);

    const added = await json<{ name: string; sequence: number; capabilities: number }>([
      'remote',
      'add',
      'local',
      remoteUrl,
      '--root-key',
      root.publicKey,
    ]);
    expect(added).toMatchObject({ name: 'local', sequence: 1, capabilities: 1 });

    const hits = await json<unknown[]>(['search', 'hello']);
    expect(hits).toEqual([
      {
        id: 'acme/hello',
        name: 'Hello registry',
        summary: expect.any(String),
        latest: built.version,
        tier: 'free',
        access: 'public',
        installed: false,
      },
    ]);

    const shown = await json<{
      id: string;
      remote: string;
      latest: string;
      versions: Record<string, { archive: { sha256: string }; signers: string[]; status?: string }>;
    }>(['show', 'acme/hello']);
    expect(shown).toMatchObject({ id: 'acme/hello', remote: 'local', latest: built.version });
    expect(shown.versions[built.version]).toMatchObject({ archive: { sha256: built.archiveSha256 }, signers: [publisher.keyId] });
    expect(shown.versions[built.version]?.status).toBeUndefined();

    // A second catalogue with a yank reaches the client through `remote update`.
    await json(['registry', 'yank', 'reg', `acme/hello@${built.version}`, '--reason', 'testing']);
    await json(['registry', 'build', 'reg', '--root-key', 'root.key.json']);
    expect(await json<{ sequence: number; changed: boolean }[]>(['remote', 'update', 'local'])).toMatchObject([
      { sequence: 2, changed: true },
    ]);
    const after = await json<{ versions: Record<string, { status?: string; statusReason?: string }> }>(['show', 'acme/hello']);
    expect(after.versions[built.version]).toMatchObject({ status: 'yanked', statusReason: 'testing' });

    const wrongKey = await adcap(['remote', 'add', 'evil', remoteUrl, '--root-key', publisher.publicKey]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^error E_CATALOG: /m);

    const exited = new Promise<number | null>((resolve) => server?.once('exit', (code) => resolve(code)));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = undefined;
  });
});
