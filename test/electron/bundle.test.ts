// The desktop bundles (build/electron.mjs): the preload is one CommonJS file that
// requires only `electron` (a sandboxed preload can load nothing else), and the bundled utility
// process serves the real host service over its parent port. The utility runs here as a plain
// Node child with a `process.parentPort` shim over fork IPC, driven by the main process's own
// UtilityChannel; Electron itself is never loaded.
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueIndexPage, HostInfoData } from '../../electron/common/types.js';
import type { HostEvent } from '../../electron/common/events.js';
import { UtilityChannel } from '../../electron/main/router.js';
import { assertBuilt } from '../helpers/built.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const out = join(repo, 'out', 'electron');
let child: ChildProcess | null = null;

beforeAll(async () => {
  // The bundled utility imports @arcotheon/sdk at run time, from sdk/dist: refuse a stale one.
  await assertBuilt('sdk');
  const built = spawnSync(process.execPath, [join(repo, 'build', 'electron.mjs')], { encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
}, 120_000);
afterAll(() => {
  child?.kill();
});

describe('the desktop bundles', () => {
  it('the preload is self-contained: its only require is electron', async () => {
    const preload = await readFile(join(out, 'preload.cjs'), 'utf8');
    expect([...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1])).toEqual(['electron']);
    expect(preload).not.toMatch(/\bimport\s*\(|from\s+["']/);
    expect(preload).toContain('exposeInMainWorld("arcotheon"');
  });

  it('the utility refuses to run outside a utility process', () => {
    const run = spawnSync(process.execPath, [join(out, 'utility.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('runs only as an Electron utility process');
  });

  it('the utility serves the host service to the main side, and runs doctor at start-up', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-utility-'));
    const events: HostEvent[] = [];
    child = fork(join(out, 'utility.mjs'), [], {
      execArgv: ['--import', join(repo, 'test', 'fixtures', 'electron', 'parent-port.mjs')],
      env: {
        ...process.env,
        // Not a user's run: a temporary home instead of the user's own.
        ARCOTHEON_HOME: home,
        // A packaged app's main process points its utility at the registry in its resources folder.
        ARCOTHEON_EMBEDDED_REGISTRY: join(repo, 'examples', 'registry'),
        // electron/main.ts sets it for its utility process; here the test plays main.
        ARCOTHEON_APP_VERSION: '9.9.9',
      },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const running = child;
    const channel = new UtilityChannel({
      post: (m) => void running.send(m),
      onEvent: (e) => void events.push(e),
      onSecret: async () => null,
    });
    running.on('message', (m) => channel.receive(m));
    const info = await channel.call('host.info', []);
    expect(info.ok).toBe(true);
    if (!info.ok) throw new Error(info.error.message);
    expect(info.value as HostInfoData).toMatchObject({ appVersion: '9.9.9', home });
    // The bundled example registry is the default remote.
    const index = await channel.call('catalogue.index', [{}]);
    expect(index.ok && (index.value as CatalogueIndexPage).rows.some((row) => row[0] === 'acme/csv-summary')).toBe(true);
    const refused = await channel.call('catalogue.show', [{ not: 'an id' }] as never);
    expect(refused).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    // The start-up doctor: an operation whose final event reaches main.
    const deadline = Date.now() + 30_000;
    while (!events.some((e) => e.type === 'operation' && e.method === 'doctor.run' && e.state === 'done') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(events.find((e) => e.type === 'operation' && e.method === 'doctor.run' && e.state === 'done')).toBeDefined();
  }, 60_000);
});
