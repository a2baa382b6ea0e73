/** The registry and client commands in-process (sdk/src/cli/commands/registry.ts and client.ts). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { generateKey, writeKeyFile } from '../../../sdk/src/trust/keys.js';
import { adcap } from '../cli/run-cli.js';
import { TestRegistry } from '../../helpers/test-registry.js';

let work: string;
let helper: TestRegistry;
const root = generateKey();
const publisher = generateKey();

async function run(args: string[]) {
  // The embedded example registry is switched off so only this test's remote answers.
  return adcap(args, { cwd: work, env: { ARCOTHEON_HOME: join(work, 'home'), ARCOTHEON_EMBEDDED_REGISTRY: '' } });
}

async function json<T>(args: string[]): Promise<T> {
  const result = await run([...args, '--json']);
  if (result.code !== 0) throw new Error(`adcap ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-registry-'));
  helper = await TestRegistry.create(); // only used to build signed packages
  helper.publisherKeys.set('acme', publisher);
  await writeKeyFile(join(work, 'root.json'), root);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  await helper.cleanup();
});

describe('adcap registry + remote/search/show (in-process)', () => {
  it('builds a registry, adds it as a remote and finds the capability', async () => {
    await json(['registry', 'init', 'reg', '--name', 'cli-test', '--root-key', 'root.json']);
    await json(['registry', 'add-publisher', 'reg', 'acme', '--key', publisher.publicKey, '--name', 'Acme']);
    const file = await helper.package({
      id: 'acme/pdf',
      version: '1.0.0',
      name: 'PDF tools',
      summary: 'Extract text from PDF files',
      keywords: ['pdf'],
    });
    const published = await json<{ created: boolean; id: string }>(['registry', 'publish', 'reg', file]);
    expect(published).toMatchObject({ created: true, id: 'acme/pdf' });
    const again = await json<{ created: boolean }>(['registry', 'publish', 'reg', file]);
    expect(again.created).toBe(false);
    expect(await json<{ sequence: number }>(['registry', 'build', 'reg', '--root-key', 'root.json'])).toMatchObject({ sequence: 1 });

    const url = `${pathToFileURL(join(work, 'reg', 'v1')).href}/`;
    const added = await json<{ sequence: number; capabilities: number }>(['remote', 'add', 'local', url, '--root-key', root.publicKey]);
    expect(added).toMatchObject({ sequence: 1, capabilities: 1 });

    const hits = await json<unknown[]>(['search', 'pdf']);
    expect(hits).toEqual([
      {
        id: 'acme/pdf',
        name: 'PDF tools',
        summary: 'Extract text from PDF files',
        latest: '1.0.0',
        tier: 'free',
        access: 'public',
        installed: false,
      },
    ]);
    const shown = await json<{ id: string; versions: Record<string, { status?: string }> }>(['show', 'acme/pdf']);
    expect(shown).toMatchObject({ id: 'acme/pdf', remote: 'local', latest: '1.0.0', deprecated: null });
    expect(Object.keys(shown.versions)).toEqual(['1.0.0']);

    await json(['registry', 'yank', 'reg', 'acme/pdf@1.0.0', '--reason', 'broken']);
    await json(['registry', 'build', 'reg', '--root-key', 'root.json']);
    expect(await json<{ sequence: number; changed: boolean }[]>(['remote', 'update'])).toMatchObject([
      { name: 'local', sequence: 2, changed: true },
    ]);
    const after = await json<{ latest: string | null; versions: Record<string, { status?: string; statusReason?: string }> }>([
      'show',
      'acme/pdf',
    ]);
    expect(after.latest).toBeNull();
    expect(after.versions['1.0.0']).toMatchObject({ status: 'yanked', statusReason: 'broken' });

    expect(await json<{ name: string; sequence: number }[]>(['remote', 'list'])).toMatchObject([{ name: 'local', sequence: 2 }]);
  });

  it("search and show are the SDK's: the same hits in the same order as Arcotheon.search", async () => {
    for (const name of ['alpha', 'beta', 'gamma']) {
      await json([
        'registry',
        'publish',
        'reg',
        await helper.package({ id: `acme/${name}`, version: '1.0.0', name: `${name} tool`, summary: 'Shared words', keywords: ['shared'] }),
      ]);
    }
    await json(['registry', 'deprecate', 'reg', 'acme/alpha', '--message', 'use beta']);
    await json(['registry', 'build', 'reg', '--root-key', 'root.json']);
    await json(['remote', 'update']);
    const arc = new Arcotheon({ home: join(work, 'home'), host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [] });
    for (const query of ['', 'shared', 'tool']) {
      const cli = (await json<{ id: string }[]>(['search', query])).map((h) => h.id);
      const sdk = (await arc.search(query)).map((h) => h.id);
      expect(cli, query).toEqual(sdk);
    }
    // Equal scores: the deprecated capability comes after the others (the one ranking, compareSearchHits).
    const shared = (await json<{ id: string }[]>(['search', 'shared'])).map((h) => h.id);
    expect(shared).toEqual(['acme/beta', 'acme/gamma', 'acme/alpha']);
    expect(await json<{ id: string }[]>(['search', 'alpha', '--remote', 'local'])).toMatchObject([{ id: 'acme/alpha' }]);
    expect((await run(['search', 'alpha', '--remote', 'nowhere'])).stderr).toMatch(/^error E_NOT_FOUND: /);
    const shown = await json<{ id: string; remote: string; name: string; deprecated: { message: string } | null }>([
      'show',
      'acme/alpha',
      '--remote',
      'local',
    ]);
    expect(shown).toMatchObject({ id: 'acme/alpha', remote: 'local', name: 'alpha tool', deprecated: { message: 'use beta' } });
  });

  it('refuses a remote whose catalogue does not verify under the given root key, and does not add it', async () => {
    const url = `${pathToFileURL(join(work, 'reg', 'v1')).href}/`;
    const result = await run(['remote', 'add', 'wrong', url, '--root-key', generateKey().publicKey]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error E_CATALOG: /);
    expect((await json<{ name: string }[]>(['remote', 'list'])).map((r) => r.name)).toEqual(['local']);
  });

  it('reports a missing capability and bad usage with their codes', async () => {
    const missing = await run(['show', 'acme/none']);
    expect(missing.stderr).toMatch(/^error E_NOT_FOUND: /);
    const bad = await run(['search', 'x', '--tier', 'gold']);
    expect(bad.code).toBe(2);
    const removed = await json<{ removed: string }>(['remote', 'remove', 'local']);
    expect(removed.removed).toBe('local');
  });
});
