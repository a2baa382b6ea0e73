// The host service tells the page when another process changes the home (adcap in a terminal, a
// second app): the SDK's change events become installed-changed, and installs.overview then shows the
// change. A real second process installs from a real registry on the same home.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { bundleTs, exited, spawnBundle, waitForLine } from '../../helpers/spawn-ts.js';

const fixture = join(import.meta.dirname, '../../fixtures/home-change.ts');
let reg: LifecycleRegistry;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleTs(fixture);
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/elsewhere', version: '1.0.0' }]);
});

describe('installed-changed for changes made by another process', () => {
  it('fires when a second process installs and uninstalls, and installs.overview follows', async () => {
    const home = await reg.newHome();
    const host = createHostService(new Arcotheon(reg.options(home)));
    const events: HostEvent[] = [];
    host.subscribe((e) => events.push(e));
    const options = join(home, '..', `${home.split('/').pop()}-options.json`);
    await writeFile(options, JSON.stringify(reg.options(home)));
    const child = spawnBundle(bundle, [options]);
    const changes = (): number => events.filter((e) => e.type === 'installed-changed').length;
    try {
      expect(await host.api.installs.overview()).toEqual({ ok: true, value: [] });
      await waitForLine(child, (line) => line === 'ready', 60_000);
      child.stdin.write('install acme/elsewhere\n');
      await waitForLine(child, (line) => line === 'did install acme/elsewhere', 60_000);
      await expect.poll(changes, { timeout: 10_000 }).toBeGreaterThan(0);
      const listed = await host.api.installs.overview();
      expect(listed.ok && listed.value.map((c) => c.id)).toEqual(['acme/elsewhere']);
      const before = changes();
      child.stdin.write('uninstall acme/elsewhere\n');
      await waitForLine(child, (line) => line === 'did uninstall acme/elsewhere', 60_000);
      await expect.poll(changes, { timeout: 10_000 }).toBeGreaterThan(before);
      expect(await host.api.installs.overview()).toEqual({ ok: true, value: [] });
    } finally {
      child.kill('SIGKILL');
      await exited(child);
      await host.close();
    }
  }, 180_000);
});
