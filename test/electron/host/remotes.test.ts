import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, generateKey } from '@arcotheon/sdk';
import { CATALOG_CONTEXT, signEnvelope } from '@arcotheon/sdk/internal';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Settings > Registries: refreshing shows when each catalogue was last verified; a
 * registry that starts serving a catalogue its pinned key did not sign is reported, and the last
 * verified catalogue stays in use (DESIGN §10: an attack is never believed, nor hidden).
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/lib', version: '1.0.0' }]);
});

describe('remotes refresh', () => {
  it('records the verification time, and reports a catalogue signed by someone else without using it', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-remotes-')))));
    const first = await host.api.perform('remotes.refresh', 'test');
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value).toEqual([expect.objectContaining({ name: 'test', error: null, capabilities: 1, sequence: expect.any(Number) })]);
    const verifiedAt = first.value[0]?.lastVerifiedAt ?? '';

    // The registry (or whoever controls its server now) serves a catalogue signed by another key:
    // the top level of each layout it serves (v1/catalog.json, and v2/catalog.json, which the client prefers).
    const forgedFiles = new Map<string, Buffer>();
    for (const [layout, context] of [
      ['v1', CATALOG_CONTEXT],
      ['v2', 'arcotheon-catalog-v2'],
    ] as const) {
      const file = join(reg.registry.dir, layout, 'catalog.json');
      const genuine = await readFile(file).catch(() => null);
      if (genuine === null) continue;
      const { payload } = JSON.parse(genuine.toString()) as { payload: { sequence: number } };
      forgedFiles.set(file, genuine);
      await writeFile(file, JSON.stringify(signEnvelope({ ...payload, sequence: payload.sequence + 1 }, context, [generateKey()])));
    }
    expect(forgedFiles.size).toBeGreaterThan(0);
    try {
      const second = await host.api.perform('remotes.refresh', null);
      if (!second.ok) throw new Error(second.error.message);
      expect(second.value).toEqual([
        expect.objectContaining({
          name: 'test',
          lastVerifiedAt: verifiedAt,
          error: { code: expect.stringMatching(/^E_(CATALOG|SIGNATURE|UNTRUSTED)$/), message: expect.any(String) },
        }),
      ]);
      // The last verified catalogue is still what Discover's index lists.
      const index = await host.api.catalogue.index({});
      expect(index.ok && index.value.rows.map((row) => row[0])).toContain('acme/lib');
    } finally {
      for (const [file, genuine] of forgedFiles) await writeFile(file, genuine);
    }
  });

  it('says the status of the last attempt: unread when fresh, failed with its UI words offline, the same for the next host', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-remotes-status-'));
    const offline = { name: 'offline', url: 'https://127.0.0.1:9/v1/', rootKeys: [reg.registry.rootKey.publicKey] };
    const options = reg.options(home);
    const host = createHostService(new Arcotheon({ ...options, remotes: [...(options.remotes ?? []), offline] }));
    const status = async () => {
      const result = await host.api.remotes.status();
      if (!result.ok) throw new Error(result.error.message);
      return Object.fromEntries(result.value.map((r) => [r.name, r]));
    };
    // A fresh home: a registry on this computer is read at once; one on the network was never tried, which is no error.
    const fresh = await status();
    expect(fresh['test']).toMatchObject({ state: 'verified', error: null });
    expect(fresh['offline']).toMatchObject({ state: 'unread', error: null, lastAttemptAt: null, lastVerifiedAt: null });

    // Refreshing an unreachable registry: the status is that attempt's, with its error in the UI's words.
    const refreshed = await host.api.perform('remotes.refresh', 'offline');
    expect(refreshed.ok).toBe(true);
    const failed = (await status())['offline'];
    expect(failed).toMatchObject({ state: 'failed', lastVerifiedAt: null, error: { code: 'E_DOWNLOAD' } });
    expect(Date.parse(failed?.lastAttemptAt ?? '')).not.toBeNaN();
    expect(failed?.error?.message).toMatch(/^The registry "offline" could not be reached, so its catalogue was not checked: /);
    expect(failed?.error?.next).toBe('Check the internet connection, then press Refresh beside the registry in Settings.');
    expect(failed?.error?.message).not.toMatch(/adcap|arc\./);
    // The attempt is recorded in the home: a second host (or the next start) says the same.
    const again = createHostService(new Arcotheon({ ...options, remotes: [...(options.remotes ?? []), offline] }));
    const seen = await again.api.remotes.status();
    expect(seen.ok && seen.value.find((r) => r.name === 'offline')).toMatchObject({ state: 'failed', error: { code: 'E_DOWNLOAD' } });
  });

  it("sends Discover's index again from the new catalogue after a refresh, under a new revision (no stale rows)", async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-remotes-cache-')))));
    const revisions = new Set<string>();
    const ids = async (): Promise<string[]> => {
      const result = await host.api.catalogue.index({});
      if (!result.ok) throw new Error(result.error.message);
      revisions.add(result.value.revision);
      return result.value.rows
        .map((row) => row[0])
        .filter((id) => id.startsWith('acme/lib'))
        .sort();
    };
    expect(await ids()).toEqual(['acme/lib']);
    expect(await ids()).toEqual(['acme/lib']);
    await reg.publishAll([{ id: 'acme/libby', version: '1.0.0' }]);
    expect((await host.api.perform('remotes.refresh', null)).ok).toBe(true);
    expect(await ids()).toEqual(['acme/lib', 'acme/libby']);
    expect(revisions.size).toBe(2);
  });
});
