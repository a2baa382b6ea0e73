import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../../electron/common/types.js';
import { createHostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * The cards' overall risk (docs/ui.md "Permissions, the heart of it"; electron/host/card-risk.ts):
 * the verdict of each capability's page, sent for the cards the page shows, computed once per
 * catalogue content and installed versions. Real signed registry, real home, the host service.
 */
let reg: LifecycleRegistry;

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/net', version: '1.0.0', permissions: [{ id: 'net:connect', reason: 'Talks to any API you name.' }], tool: true },
    { id: 'acme/net', version: '2.0.0', permissions: [{ id: 'net:connect', scope: 'api.example.com', reason: 'One API.' }], tool: true },
    {
      id: 'acme/report',
      version: '1.0.0',
      dependencies: { 'acme/net': '^1.0.0' },
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads your figures.' }],
      tool: true,
    },
    { id: 'acme/partial', version: '1.0.0', dependencies: { 'acme/gone': '^1.0.0' } },
    { id: 'acme/plain', version: '1.0.0' },
  ]);
});

describe('catalogue.risks', () => {
  it("gives each card its page's verdict: a dependency that may connect to any server makes it High, with the reason", async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-card-risk-')))));
    try {
      const first = value(await host.api.catalogue.risks({ ids: ['acme/report', 'acme/plain', 'acme/partial', 'acme/nobody'] }));
      expect(first.verdicts).toEqual([
        {
          id: 'acme/report',
          level: 'high',
          reason: 'High: a dependency, Test acme/net (acme/net), may connect to any server on the internet.',
          incomplete: false,
        },
        { id: 'acme/plain', level: 'none', reason: 'No risk: it asks for no access beyond its own files.', incomplete: false },
        // Never "No risk" alone when a dependency could not be read: the reason says the level may be higher.
        {
          id: 'acme/partial',
          level: 'none',
          reason: expect.stringContaining('The permissions of acme/gone could not be read, so the risk may be higher.'),
          incomplete: true,
        },
      ]);
      // The same verdict as the capability page's.
      for (const { id, level, reason } of first.verdicts) {
        const detail = value(await host.api.catalogue.detail(id, { download: false }));
        expect([detail.risk.level, detail.risk.reason]).toEqual([level, reason]);
      }
      // Asked again with nothing changed: the same revision, the kept verdicts.
      const again = value(await host.api.catalogue.risks({ ids: ['acme/report'] }));
      expect(again.revision).toBe(first.revision);
      expect(again.verdicts).toEqual([first.verdicts[0]]);
    } finally {
      await host.close();
    }
  });

  it('recomputes when what is installed changes, and gives installed cards the installed version’s verdict', async () => {
    const host = createHostService(new Arcotheon(reg.options(await mkdtemp(join(tmpdir(), 'adcap-card-risk-installed-')))));
    try {
      const before = value(await host.api.catalogue.risks({ ids: ['acme/report'] }));
      // acme/net 2.0.0 is installed first: it does not satisfy ^1.0.0, so installing acme/report still takes 1.0.0.
      const plan = value(await host.api.installs.plan('acme/net'));
      value(await host.api.operations.wait(await host.api.installs.install('acme/net', { approvedDigest: plan.digest })));
      const after = value(await host.api.catalogue.risks({ ids: ['acme/report', 'acme/net'], installed: true }));
      expect(after.revision).not.toBe(before.revision);
      // Installed: acme/net 2.0.0 connects to one server only (medium); acme/report is not installed.
      expect(after.verdicts).toEqual([
        {
          id: 'acme/net',
          level: 'medium',
          reason: expect.stringMatching(/^Medium: it may connect to api\.example\.com/),
          incomplete: false,
        },
      ]);
      const report = value(await host.api.catalogue.risks({ ids: ['acme/report'] }));
      expect(report.verdicts[0]).toMatchObject({ level: 'high' });
      expect(report.revision).toBe(after.revision);
    } finally {
      await host.close();
    }
  });
});
