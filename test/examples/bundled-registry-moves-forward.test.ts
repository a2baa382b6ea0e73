// A home made on the bundled example registry survives that registry being rebuilt (DESIGN §10):
// `npm install` and `npm run examples` rebuild it, and a newer app ships a newer one. Each step is
// what a user's machine does: the registry rebuilt in place by the real build script, the app's
// pin (embedded-remote.json) read again, the same home searched and installed from.
//   - rebuilt unchanged: the sequence (and so the pin's minSequence) stays;
//   - moved forward (a new catalogue, and a pin whose minimum is past the home's stored copy): the
//     home reads the registry again instead of refusing its own stored copy as a rollback;
//   - doctor reports a remote whose stored catalogue is behind the minimum, and --fix reads it again;
//   - a registry folder replaced by an older build is refused, and the message says so (no mirror);
//   - a local registry is read again as soon as its catalogue file changes (no remote update).
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExamples, type BuildExamplesResult } from '../../examples/build.js';
import { buildRegistry } from '../../sdk/src/registry/builder/build.js';
import { deprecateCapability } from '../../sdk/src/registry/builder/maintain.js';
import { readEmbeddedRemote } from '../../sdk/src/registry/embedded.js';
import type { RemoteConfig } from '../../sdk/src/registry/remotes.js';
import { Arcotheon } from '../../sdk/src/store/arcotheon.js';
import { readKeyFile } from '../../sdk/src/trust/keys.js';
import { rejection } from '../helpers/errors.js';

const HOST = { agent: { id: 'arcotheon', version: '0.1.0' } } as const;
const approve = (): boolean => true;

let temp: string;
let registryDir: string;
let keysDir: string;
let built: BuildExamplesResult;

function app(home: string, pin: RemoteConfig): Arcotheon {
  return new Arcotheon({ home, host: HOST, remotes: [pin], limits: { lockWaitMs: 60_000 } });
}

async function pin(): Promise<RemoteConfig> {
  return (await readEmbeddedRemote(join(registryDir, 'embedded-remote.json'))) as RemoteConfig;
}

/** What a newer app ships: the registry with one more change, built and pinned at its new sequence. */
async function moveForward(message: string): Promise<number> {
  await deprecateCapability(registryDir, 'arcotheon/todo-finder', message);
  const root = await readKeyFile(join(keysDir, 'root.key.json'));
  const result = await buildRegistry(registryDir, { rootKeys: [root], keepUnchanged: true });
  const file = join(registryDir, 'embedded-remote.json');
  const current = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, JSON.stringify({ ...current, minSequence: result.sequence }));
  return result.sequence;
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'adcap-bundled-forward-'));
  registryDir = join(temp, 'registry');
  keysDir = join(temp, 'keys');
  built = await buildExamples({ registryDir, workDir: join(temp, 'work'), keysDir });
}, 120_000);

describe('the bundled registry rebuilt under a home that uses it', () => {
  it('rebuilt twice unchanged: same sequence, and a home made before still searches and installs', async () => {
    const before = await pin();
    const home = join(temp, 'home-unchanged');
    expect((await app(home, before).search('csv')).map((h) => h.id)).toContain('acme/csv-summary');
    const again = await buildExamples({ registryDir, workDir: join(temp, 'work'), keysDir });
    const third = await buildExamples({ registryDir, workDir: join(temp, 'work'), keysDir });
    expect([again.sequence, third.sequence]).toEqual([built.sequence, built.sequence]);
    const after = await pin();
    expect(after.minSequence).toBe(before.minSequence);
    const arc = app(home, after);
    expect((await arc.search('csv')).map((h) => h.id)).toContain('acme/csv-summary');
    await arc.install('acme/csv-summary', { approve });
    expect((await arc.list()).map((c) => c.id)).toEqual(['acme/csv-summary']);
  }, 120_000);

  it('moved forward past the home: the stored copy is out of date, not a rollback; doctor reports it, --fix reads it', async () => {
    const home = join(temp, 'home-forward');
    const old = await pin();
    await app(home, old).search('csv');
    const sequence = await moveForward('Use arcotheon/workspace-stats.');
    const newer = await pin();
    expect(newer.minSequence).toBe(sequence);

    // doctor first, while the stored catalogue is still the old one.
    const report = await app(home, newer).doctor({ checkRevocations: false, checkCache: false });
    const stale = report.problems.filter((p) => p.kind === 'stale-remote');
    expect(stale).toEqual([expect.objectContaining({ fixable: true })]);
    expect(stale[0]?.message).toContain(`minimum ${sequence} this app shipped with`);
    const dry = await app(home, newer).doctor({ fix: true, dryRun: true, checkRevocations: false, checkCache: false });
    expect(dry.problems.filter((p) => p.kind === 'stale-remote' && p.fixed === undefined)).toHaveLength(1);
    const fixed = await app(home, newer).doctor({ fix: true, checkRevocations: false, checkCache: false });
    expect(fixed.problems.find((p) => p.kind === 'stale-remote')?.fixed).toBe(`updated to sequence ${sequence}`);
    expect((await app(home, newer).doctor({ checkRevocations: false, checkCache: false })).problems.map((p) => p.kind)).not.toContain(
      'stale-remote',
    );

    // Another home, behind the same way, is not stopped by it: search reads the registry again.
    const other = join(temp, 'home-forward-2');
    await app(other, old).search('csv');
    await moveForward('Use arcotheon/workspace-stats instead.');
    const hits = await app(other, await pin()).search('todo');
    expect(hits.find((h) => h.id === 'arcotheon/todo-finder')?.deprecated).toBe(true);
  }, 120_000);

  it('a registry folder replaced by an older build is refused, and the message blames no mirror', async () => {
    const older = join(temp, 'older-build');
    await cp(registryDir, older, { recursive: true });
    await moveForward('Use arcotheon/workspace-stats, really.');
    // The app pins the newer build; its registry folder holds the older one.
    const replaced: RemoteConfig = { ...(await pin()), url: `${pathToFileURL(join(older, 'v1')).href}/` };
    const error = await rejection(app(join(temp, 'home-older'), replaced).search('csv'));
    expect(error.code).toBe('E_ROLLBACK');
    expect(error.message).toContain('replaced by an older build');
    expect(error.message).not.toMatch(/mirror/i);
  }, 120_000);

  it('a local registry is read again as soon as its catalogue file changes, without remote update', async () => {
    const home = join(temp, 'home-local-refresh');
    const arc = app(home, await pin());
    expect((await arc.search('csv')).map((h) => h.id)).toContain('acme/csv-summary');
    await deprecateCapability(registryDir, 'acme/github-repo', 'Gone for now.');
    await buildRegistry(registryDir, { rootKeys: [await readKeyFile(join(keysDir, 'root.key.json'))] });
    // The same instance, within the hour after which a remote is checked again.
    const hit = (await arc.search('github')).find((h) => h.id === 'acme/github-repo');
    expect(hit?.deprecated).toBe(true);
  }, 120_000);
});
