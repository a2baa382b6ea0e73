/**
 * Incremental `registry build` (docs/deploy.md "Incremental builds"): after a change to the sources,
 * only the bins whose sources changed are recomputed, from the previous build's own files checked
 * against their pins, and the result is the tree a full build writes for the same sources, file
 * for file. Each case builds a copy of the registry in full (`full: true`) at the same time and
 * compares the two trees byte for byte (the state file excepted: it records inodes).
 */
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_STATE_FILE } from '../../../../sdk/src/registry/builder/build-state.js';
import { buildRegistry, type BuildRegistryOptions, type BuildResult } from '../../../../sdk/src/registry/builder/build.js';
import { addPublisher, deprecateCapability, revokeKey, yankVersion } from '../../../../sdk/src/registry/builder/maintain.js';
import { binOf, type TopLevelPayload } from '../../../../sdk/src/registry/layout-v2.js';
import { generateKey } from '../../../../sdk/src/trust/keys.js';
import { TestRegistry } from '../../../helpers/test-registry.js';
import { writeKeyFile } from '../../../../sdk/src/trust/keys.js';
import { adcap } from '../../cli/run-cli.js';

let reg: TestRegistry;
let twins: string;
const DAY = 86_400_000;
const start = Date.now();
let clock = 0;
/** Each build a minute after the previous one, so dates and grace periods move as in real use. */
function nextNow(): Date {
  clock += 60_000;
  return new Date(start + clock);
}

beforeEach(async () => {
  reg = await TestRegistry.create();
  twins = await mkdtemp(join(tmpdir(), 'adcap-incremental-'));
  clock = 0;
  await reg.addPublisher('acme');
  await reg.addPublisher('beta');
  for (const name of ['pdf', 'csv', 'img', 'ocr']) await reg.publish({ id: `acme/${name}`, version: '1.0.0' });
  await reg.publish({ id: 'beta/chart', version: '1.0.0' });
});
afterEach(async () => {
  await reg.cleanup();
  await rm(twins, { recursive: true, force: true });
});

/**
 * Sources changed longer ago than the build's racy window (two seconds): the next build must find
 * the change from the stats alone, not because the files are too recent to trust.
 */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2100));
}

async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await walk(child);
      else out.set(relative(dir, child), await readFile(child));
    }
  };
  await walk(dir);
  out.delete(BUILD_STATE_FILE);
  return out;
}

/**
 * Builds the registry incrementally and a copy of it in full, at the same time with the same
 * options, and expects the same files with the same bytes.
 */
async function buildBoth(options: Partial<BuildRegistryOptions> = {}): Promise<{ incremental: BuildResult; full: BuildResult }> {
  const twin = join(twins, `twin-${clock}`);
  await cp(reg.dir, twin, { recursive: true, preserveTimestamps: true });
  const now = nextNow();
  const incremental = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now, ...options });
  const full = await buildRegistry(twin, { rootKeys: [reg.rootKey], now, ...options, full: true });
  expect(full.v2.incremental).toBe(false);
  const [a, b] = [await files(reg.dir), await files(twin)];
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [path, bytes] of b) expect({ path, same: a.get(path)?.equals(bytes) }).toEqual({ path, same: true });
  expect({ ...incremental, catalogPath: '', v2: { ...incremental.v2, topLevelPath: '', incremental: false, binsRecomputed: 0 } }).toEqual({
    ...full,
    catalogPath: '',
    v2: { ...full.v2, topLevelPath: '', binsRecomputed: 0 },
  });
  return { incremental, full };
}

async function top(): Promise<TopLevelPayload> {
  return (JSON.parse((await reg.read('v2/catalog.json')).toString('utf8')) as { payload: TopLevelPayload }).payload;
}

describe('incremental registry build (docs/deploy.md "Incremental builds")', () => {
  it('equals a full build, file for file, after a publish, a yank, a deprecation, a revocation, a new publisher, a removal', async () => {
    await settle();
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    // Nothing changed: no bin is recomputed, only the signed files are new.
    const still = await buildBoth();
    expect(still.incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 0 });
    expect(still.incremental.v2.written).toEqual({ docs: 0, bins: 0, nodes: 0, search: 0, publishers: 0, index: 0 });

    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await settle();
    const published = await buildBoth();
    expect(published.incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 1 });
    expect(published.incremental.v2.written).toEqual({ docs: 1, bins: 1, nodes: 1, search: 1, publishers: 0, index: 1 });
    expect(published.incremental.documentsWritten).toBe(1);

    await yankVersion(reg.dir, 'acme/pdf', '1.1.0', 'broken upload');
    await settle();
    expect((await buildBoth()).incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 1 });

    await deprecateCapability(reg.dir, 'acme/csv', 'Use acme/csv2.');
    await settle();
    expect((await buildBoth()).incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 1 });

    const key = reg.keyOf('beta');
    await revokeKey(reg.dir, 'beta', key.keyId);
    await addPublisher(reg.dir, 'gamma', { publicKey: generateKey().publicKey });
    await settle();
    const publishers = await buildBoth();
    expect(publishers.incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 0 });
    expect(publishers.incremental.v2.written.publishers).toBeGreaterThan(0);

    await rm(reg.path('entries/acme/img'), { recursive: true });
    await settle();
    const removed = await buildBoth();
    expect(removed.incremental.v2).toMatchObject({ incremental: true, binsRecomputed: 1 });
    expect(removed.incremental.capabilities).toBe(4);
    expect((await top()).capabilities).toBe(4);

    // Past the grace period, both delete the same retired files.
    const late = await buildBoth({ now: new Date(start + clock + 8 * DAY) });
    expect(late.incremental.v2.collected).toBeGreaterThan(0);
  }, 60_000);

  it('recomputes the bins of sources changed within the racy window again on the next build', async () => {
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    // Just published: the build cannot trust that a later change would show in the stats.
    await reg.publish({ id: 'acme/ocr', version: '2.0.0' });
    const first = await buildBoth();
    expect(first.incremental.v2.incremental).toBe(true);
    const again = await buildBoth();
    expect(again.incremental.v2.binsRecomputed).toBeGreaterThanOrEqual(1);
    expect(again.incremental.v2.written).toEqual({ docs: 0, bins: 0, nodes: 0, search: 0, publishers: 0, index: 0 });
  }, 30_000);

  it('reads no bin but the changed one', async () => {
    await settle();
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await settle();
    // Every other bin's file moved away: an incremental build must not need them.
    const payload = await top();
    const bins = payload.fanout ** 2;
    const changed = binOf('acme/pdf', bins);
    const aside = join(twins, 'aside');
    await cp(reg.path('v2/bins'), aside, { recursive: true });
    const [changedNode] = payload.nodes[Math.floor(changed / payload.fanout)] as [string, number];
    const changedPins = JSON.parse((await reg.read(`v2/${changedNode}`)).toString('utf8')) as [string, number][];
    const [changedBin] = changedPins[changed % payload.fanout] as [string, number];
    let moved = 0;
    for (const name of await readdir(reg.path('v2/bins'))) {
      if (`bins/${name}` === changedBin) continue;
      await rm(reg.path(`v2/bins/${name}`));
      moved++;
    }
    expect(moved).toBeGreaterThan(0);
    const built = await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    expect(built.v2).toMatchObject({ incremental: true, binsRecomputed: 1 });
    for (const name of await readdir(aside)) await rename(join(aside, name), reg.path(`v2/bins/${name}`)).catch(() => undefined);
  }, 30_000);
});

describe('incremental build: the previous build is checked before it is trusted', () => {
  async function tamperAndBuild(tamper: (payload: TopLevelPayload) => Promise<void>): Promise<void> {
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
    await settle();
    await tamper(await top());
    const { incremental } = await buildBoth();
    // The stored file did not hash to its pin: the build fell back to a full rebuild.
    expect(incremental.v2.incremental).toBe(false);
    expect(incremental.v2.binsRecomputed).toBe(incremental.v2.bins);
  }

  async function binPinOf(payload: TopLevelPayload, id: string): Promise<string> {
    const bin = binOf(id, payload.fanout ** 2);
    const [nodePath] = payload.nodes[Math.floor(bin / payload.fanout)] as [string, number];
    const pins = JSON.parse((await reg.read(`v2/${nodePath}`)).toString('utf8')) as [string, number][];
    return (pins[bin % payload.fanout] as [string, number])[0];
  }

  it('a stored bin that does not hash to its pin means a full rebuild', async () => {
    await tamperAndBuild(async (payload) => {
      const path = await binPinOf(payload, 'acme/pdf');
      const bin = JSON.parse((await reg.read(`v2/${path}`)).toString('utf8')) as Record<string, { summary: string }>;
      for (const record of Object.values(bin)) record.summary = 'tampered';
      await writeFile(reg.path(`v2/${path}`), `${JSON.stringify(bin)}\n`);
    });
  }, 30_000);

  it('a stored node that does not hash to its pin means a full rebuild', async () => {
    await tamperAndBuild(async (payload) => {
      const bin = binOf('acme/pdf', payload.fanout ** 2);
      const [nodePath] = payload.nodes[Math.floor(bin / payload.fanout)] as [string, number];
      const pins = JSON.parse((await reg.read(`v2/${nodePath}`)).toString('utf8')) as [string, number][];
      pins.reverse();
      await writeFile(reg.path(`v2/${nodePath}`), `${JSON.stringify(pins)}\n`);
    });
  }, 30_000);

  it('a missing search pack means a full rebuild', async () => {
    await tamperAndBuild(async (payload) => {
      const bin = binOf('acme/pdf', payload.fanout ** 2);
      const [packPath] = payload.search[Math.floor(bin / payload.fanout)] as [string, number];
      await rm(reg.path(`v2/${packPath}`));
    });
  }, 30_000);

  it('a top level or v1 catalogue other than the one the state records means a full rebuild', async () => {
    await tamperAndBuild(async () => {
      const envelope = JSON.parse((await reg.read('v1/catalog.json')).toString('utf8')) as { payload: { capabilities: object } };
      envelope.payload.capabilities = {};
      await writeFile(reg.path('v1/catalog.json'), `${JSON.stringify(envelope)}\n`);
    });
  }, 30_000);

  it('a damaged state file means a full rebuild', async () => {
    await tamperAndBuild(async () => {
      await writeFile(reg.path(BUILD_STATE_FILE), '{"format":1,');
    });
  }, 30_000);
});

describe('incremental build past the v1 cap (docs/scaling.md "Old clients")', () => {
  it('keeps v1/ the subset a full build lists, from the lookahead when it grows, and builds in full when it cannot decide', async () => {
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow() });
    const whole = (await reg.read('v1/catalog.json')).length;
    // Room for about three of the five.
    const v1MaxBytes = whole + 8 * 1024 - 700;
    await buildRegistry(reg.dir, { rootKeys: [reg.rootKey], now: nextNow(), v1MaxBytes });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // publishedAt has whole seconds
    await reg.publish({ id: 'beta/newest', version: '1.0.0' });
    await settle();
    const published = await buildBoth({ v1MaxBytes });
    expect(published.incremental.v2.incremental).toBe(true);
    expect(published.incremental.v1Listed).toBeLessThan(published.incremental.capabilities);
    const listed = Object.keys((await reg.catalogueEnvelope()).payload.capabilities);
    expect(listed).toContain('beta/newest');
    // Removing a listed capability frees room for one outside the recomputed bin: the state file's
    // lookahead (the capabilities right after the subset) has its record.
    await rm(reg.path('entries/beta/newest'), { recursive: true });
    await settle();
    const removed = await buildBoth({ v1MaxBytes });
    expect(removed.incremental.v2.incremental).toBe(true);
    expect(removed.incremental.v1Listed).toBe(published.incremental.v1Listed);
    // Without the lookahead (a state file of an older build), the build cannot decide: a full build does.
    const state = JSON.parse(await readFile(reg.path(BUILD_STATE_FILE), 'utf8')) as { v1: { next: unknown[] } };
    expect(state.v1.next.length).toBeGreaterThan(0);
    state.v1.next = [];
    await writeFile(reg.path(BUILD_STATE_FILE), JSON.stringify(state));
    await rm(reg.path('entries/acme/pdf'), { recursive: true });
    await settle();
    const undecided = await buildBoth({ v1MaxBytes });
    expect(undecided.incremental.v2.incremental).toBe(false);
  }, 60_000);
});

describe('adcap registry build --full', () => {
  it('says whether the build was incremental, and --full recomputes every bin', async () => {
    await writeKeyFile(join(twins, 'root.json'), reg.rootKey);
    const run = async (...extra: string[]): Promise<{ code: number; stdout: string }> =>
      adcap(['registry', 'build', reg.dir, '--root-key', join(twins, 'root.json'), ...extra], { cwd: twins, env: {} });
    await settle();
    const first = await run();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('recomputed all 16 bins');
    const second = await run();
    expect(second.stdout).toContain('recomputed 0 of 16 bins (incremental)');
    const full = await run('--full', '--json');
    expect(full.code).toBe(0);
    expect((JSON.parse(full.stdout) as BuildResult).v2).toMatchObject({ incremental: false, binsRecomputed: 16 });
  }, 30_000);
});
