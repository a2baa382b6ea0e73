import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * The capability page (docs/ui.md "Cards and pages"): drawn from metadata without downloading the
 * archive, with one overall risk that counts what installing it pulls in (a dependency that may
 * connect to any server makes it high), and the archive read only when asked for.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/net', version: '1.0.0', permissions: [{ id: 'net:connect', reason: 'Talks to any API you name.' }], tool: true },
    { id: 'acme/net', version: '2.0.0', permissions: [{ id: 'net:connect', scope: 'api.example.com', reason: 'One API.' }], tool: true },
    {
      id: 'acme/report',
      version: '1.0.0',
      dependencies: { 'acme/net': '^1.0.0', 'acme/gone': '^1.0.0' },
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads your figures.' }],
      tool: true,
    },
    { id: 'acme/plain', version: '1.0.0' },
  ]);
});

async function cacheEntries(home: string): Promise<number> {
  const walk = async (dir: string): Promise<number> => {
    let n = 0;
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      n += entry.isDirectory() ? await walk(join(dir, entry.name)) : 1;
    }
    return n;
  };
  return walk(join(home, 'cache'));
}

describe('the capability page from metadata', () => {
  it('shows names, permissions, contents and the overall risk without downloading the archive', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-detail-'));
    const host = createHostService(new Arcotheon(reg.options(home)));
    const detail = await host.api.catalogue.detail('acme/report', { download: false });
    if (!detail.ok) throw new Error(detail.error.message);
    expect(detail.value).toMatchObject({
      name: 'Test acme/report',
      permissions: [{ grant: 'fs:read:workspace', risk: 'low' }],
      contents: { tools: ['main'] },
      package: null,
      packageUnavailable: expect.stringMatching(/shown after you install it/),
    });
    // The dependency at the version an install takes (^1.0.0: 1.0.0, not 2.0.0) may connect anywhere: high.
    expect(detail.value.risk.level).toBe('high');
    expect(detail.value.risk.reason).toBe(
      'High: a dependency, Test acme/net (acme/net), may connect to any server on the internet. ' +
        'The permissions of acme/gone could not be read, so the risk may be higher.',
    );
    expect(detail.value.risk.factors.map((f) => [f.id, f.subject, f.level])).toEqual([
      ['acme/net', 'net:connect', 'high'],
      ['acme/report', 'fs:read:workspace', 'low'],
    ]);
    expect(detail.value.risk.unknown).toEqual(['acme/gone']);
    // Nothing was downloaded into the content cache.
    expect(await cacheEntries(home)).toBe(0);

    // Asked for (download: true), the archive is fetched and verified, and its readme and tools are shown.
    const full = await host.api.catalogue.detail('acme/report', { download: true });
    if (!full.ok) throw new Error(full.error.message);
    expect(full.value.package).toMatchObject({ readme: '# acme/report 1.0.0\n', tools: [{ name: 'main' }] });
    expect(await cacheEntries(home)).toBeGreaterThan(0);
    // From then on, the cached archive answers without download as well.
    const cached = await host.api.catalogue.detail('acme/report', { download: false });
    expect(cached.ok && cached.value.package?.tools.map((t) => t.name)).toEqual(['main']);
  });

  it('says "No risk" with its reason for a capability asking for nothing, and the install plan carries the verdict', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-detail-plain-')))));
    const detail = await host.api.catalogue.detail('acme/plain', { download: false });
    expect(detail.ok && detail.value.risk).toEqual({
      level: 'none',
      reason: 'No risk: it asks for no access beyond its own files.',
      factors: [],
      unknown: [],
    });
    await reg.publishAll([{ id: 'acme/wide', version: '1.0.0', dependencies: { 'acme/net': '^1.0.0' } }]);
    const plan = await host.api.installs.plan('acme/wide');
    if (!plan.ok) throw new Error(plan.error.message);
    // The plan's items carry the names from the catalogue records: the dialog names each item, and so does the verdict.
    expect(plan.value.risk).toMatchObject({
      level: 'high',
      reason: 'High: a dependency, Test acme/net (acme/net), may connect to any server on the internet.',
    });
    expect(plan.value.items.map((i) => [i.id, i.name, i.publisherName, i.explicit])).toEqual([
      ['acme/net', 'Test acme/net', 'acme Inc.', false],
      ['acme/wide', 'Test acme/wide', 'acme Inc.', true],
    ]);
  });
});
