import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, generateKey } from '@arcotheon/sdk';
import { CATALOG_CONTEXT, signEnvelope } from '@arcotheon/sdk/internal';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * Settings > Registries (issue 10): refreshing shows when each catalogue was last verified; a
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

    // The registry (or whoever controls its server now) serves a catalogue signed by another key.
    const file = join(reg.registry.dir, 'v1', 'catalog.json');
    const genuine = await readFile(file);
    const { payload } = JSON.parse(genuine.toString()) as { payload: { sequence: number } };
    const forged = signEnvelope({ ...payload, sequence: payload.sequence + 1 }, CATALOG_CONTEXT, [generateKey()]);
    await writeFile(file, JSON.stringify(forged));
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
      // The last verified catalogue is still what search uses.
      expect(await host.api.catalogue.search('lib')).toMatchObject({ ok: true, value: [{ id: 'acme/lib' }] });
    } finally {
      await writeFile(file, genuine);
    }
  });

  it('answers a query again from the new catalogue after a refresh (no stale cached results)', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-remotes-cache-')))));
    const ids = async (): Promise<string[]> => {
      const result = await host.api.catalogue.query({ text: 'lib' });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.hits.map((h) => h.id);
    };
    expect(await ids()).toEqual(['acme/lib']);
    expect(await ids()).toEqual(['acme/lib']);
    await reg.publishAll([{ id: 'acme/libby', version: '1.0.0' }]);
    expect((await host.api.perform('remotes.refresh', null)).ok).toBe(true);
    expect(await ids()).toEqual(['acme/lib', 'acme/libby']);
  });
});
