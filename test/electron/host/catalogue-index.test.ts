import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_FLAGS, type CatalogueIndexRow } from '../../../electron/common/types.js';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * The Discover screen's search index (electron/host/catalogue-index.ts): every capability as a
 * compact row, in pages of one revision, and what this computer knows beyond the catalogue.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'zeta/tool', version: '1.0.0', tool: true },
    { id: 'acme/pro', version: '2.0.0', distribution: { tier: 'pro' } },
    { id: 'acme/lib', version: '1.0.0' },
    { id: 'acme/lib', version: '1.1.0' },
  ]);
});

function value<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('catalogue.index', () => {
  it('sends every capability once, in browsing order, in pages of one revision', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-index-')))));
    const first = value(await host.api.catalogue.index({ limit: 2 }));
    expect(first).toMatchObject({ total: 3, offset: 0, remotes: ['test'] });
    const second = value(await host.api.catalogue.index({ revision: first.revision, offset: 2, limit: 2 }));
    expect(second).toMatchObject({ revision: first.revision, total: 3, offset: 2, publishers: [], remotes: [] });
    const rows: CatalogueIndexRow[] = [...first.rows, ...second.rows];
    expect(rows.map((r) => r[0])).toEqual(['acme/lib', 'acme/pro', 'zeta/tool']);
    const [lib, pro] = rows as [CatalogueIndexRow, CatalogueIndexRow];
    expect(lib[4]).toBe('1.1.0');
    expect(pro[6] & CATALOGUE_FLAGS.pro).toBe(CATALOGUE_FLAGS.pro);
    expect(lib[6]).toBe(0);
    expect(first.publishers[lib[7]]).toMatchObject({ id: 'acme', verified: true });
    // A page asked for with a revision that is not current starts over at 0.
    const stale = value(await host.api.catalogue.index({ revision: 'gone', offset: 2 }));
    expect(stale).toMatchObject({ revision: first.revision, offset: 0 });
    expect(stale.rows).toHaveLength(3);
    await host.close();
  });

  it('knows installed versions, and reads the package documents of a small catalogue for contents and dates', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-index-known-'));
    const arc = new Arcotheon(reg.options(home));
    await arc.install('acme/lib@1.0.0', { approve: async () => true });
    const host = createHostService(arc);
    const changed = new Promise<void>((resolve) => {
      const stop = host.subscribe((event: HostEvent) => {
        if (event.type === 'catalogue-changed') {
          stop();
          resolve();
        }
      });
    });
    const before = value(await host.api.catalogue.known({}));
    expect(before.installed).toEqual([{ id: 'acme/lib', version: '1.0.0', updateAvailable: true }]);
    expect(before.unread).toBe(3);
    // A catalogue of up to 1,000 is read in the background at once; catalogue-changed says when.
    await changed;
    const after = value(await host.api.catalogue.known({}));
    expect(after.unread).toBe(0);
    const learned = Object.fromEntries(after.learned.map((l) => [l.id, l]));
    expect(learned['zeta/tool']).toMatchObject({ tools: 1, skills: 0, workflows: 0 });
    expect(Date.parse(learned['acme/lib']?.updatedAt ?? '')).toBeGreaterThan(Date.now() - 3_600_000);
    await host.close();
  });
});
