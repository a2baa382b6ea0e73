import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, deprecateCapability, revokeVersion, yankVersion } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * The Installed screen's status (ok, update available, broken, revoked) and the
 * capability page's version marks (yanked, deprecated, prerelease), from a real registry whose
 * maintainer yanks, deprecates and revokes, and a home whose files get damaged.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/good', version: '1.0.0' },
    { id: 'acme/bad', version: '1.0.0' },
    { id: 'acme/broken', version: '1.0.0' },
    { id: 'acme/marks', version: '1.0.0' },
    { id: 'acme/marks', version: '1.1.0' },
    { id: 'acme/marks', version: '2.0.0-beta.1' },
  ]);
});

async function installed(ids: string[]) {
  const home = await mkdtemp(join(tmpdir(), 'adcap-health-'));
  const host = createHostService(new Arcotheon(reg.options(home)));
  const plan = await host.api.installs.plan(ids);
  if (!plan.ok) throw new Error(plan.error.message);
  const done = await host.api.perform('installs.install', ids, { approvedDigest: plan.value.digest });
  if (!done.ok) throw new Error(done.error.message);
  return { host, home };
}

describe('installed health', () => {
  it('reports ok, broken (files gone) and revoked (by the registry), with a sentence and a next step', async () => {
    const { host, home } = await installed(['acme/good', 'acme/bad', 'acme/broken']);
    await revokeVersion(reg.registry.dir, 'acme/bad', '1.0.0', 'credential stealer');
    await reg.registry.build();
    expect((await host.api.perform('remotes.refresh', null)).ok).toBe(true);
    const dir = join(home, 'packages', 'acme', 'broken', '1.0.0');
    await chmod(dir, 0o755);
    await rm(join(dir, 'capability.json'), { force: true });

    const overview = await host.api.installs.overview();
    if (!overview.ok) throw new Error(overview.error.message);
    const byId = Object.fromEntries(overview.value.map((c) => [c.id, c]));
    expect(byId['acme/good']).toMatchObject({ health: 'ok', healthReason: null });
    expect(byId['acme/bad']).toMatchObject({ health: 'revoked', healthReason: expect.stringContaining('credential stealer') });
    expect(byId['acme/broken']).toMatchObject({
      health: 'broken',
      healthReason: expect.stringMatching(/missing or damaged; repair them from Health/),
    });

    // Doctor repairs the damaged install; the status follows.
    const fixed = await host.api.perform('doctor.run', { fix: true });
    expect(fixed).toMatchObject({ ok: true, value: { fixed: true } });
    const after = await host.api.installs.overview();
    expect(after.ok && after.value.find((c) => c.id === 'acme/broken')?.health).toBe('ok');
  });

  it('marks versions yanked, deprecated and prerelease on the capability page', async () => {
    await yankVersion(reg.registry.dir, 'acme/marks', '1.0.0', 'broke the parser');
    await deprecateCapability(reg.registry.dir, 'acme/marks', 'Use acme/good instead.');
    await reg.registry.build();
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-marks-')))));
    const detail = await host.api.catalogue.detail('acme/marks', { download: false });
    if (!detail.ok) throw new Error(detail.error.message);
    expect(detail.value.deprecated).toBe('Use acme/good instead.');
    expect(detail.value.versions.map((v) => [v.version, v.prerelease, v.yanked, v.latest])).toEqual([
      ['2.0.0-beta.1', true, null, false],
      ['1.1.0', false, null, true],
      ['1.0.0', false, 'broke the parser', false],
    ]);
    expect(detail.value.package).toBeNull();
    expect(detail.value.packageUnavailable).toMatch(/not been downloaded/);
  });
});
