// docs/admin.md "Applying the policy": startUp applies the organisation policy, then runs doctor
// on the home the policy left. A required capability that cannot be installed is not fatal: it is
// in policy.show's lastApply.failed (the renderer's banner), in the log line, and doctor reports it.
// Real parts: a signed registry over file://, a policy file in a temporary folder, the host service.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostService } from '../../../electron/host/service.js';
import { startUp } from '../../../electron/host/startup.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'arcotheon-startup-'));
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/present', version: '1.0.0' }]);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('startUp', () => {
  it('applies the policy, reports a required capability it could not install, then runs doctor on the result', async () => {
    const policyFile = join(work, 'policy.json');
    await writeFile(policyFile, JSON.stringify({ policy: 1, organisation: 'Acme IT', required: ['acme/present', 'acme/absent'] }));
    const service = createHostService(
      // Not a user's run: the policy under test (a user's comes from the system file, docs/admin.md).
      new Arcotheon(reg.options(join(work, 'home'), { policy: { env: { ARCOTHEON_POLICY: policyFile } } })),
    );
    const events: string[] = [];
    service.subscribe((e) => events.push(e.type === 'operation' ? `${e.method}:${e.state}` : e.type));
    const logged: string[] = [];
    try {
      const outcome = await startUp(service, { doctor: true, log: (m) => logged.push(m) });

      expect(outcome.policy).toMatchObject({
        ok: true,
        value: { installed: [{ id: 'acme/present', version: '1.0.0' }], failed: [{ id: 'acme/absent', code: 'E_NOT_FOUND' }] },
      });
      expect(logged).toEqual([
        expect.stringMatching(
          /^the organisation policy requires acme\/absent, which could not be installed or updated: .+ \(E_NOT_FOUND\)$/,
        ),
      ]);
      // Doctor ran after the apply, on the home as the policy left it: the missing one is a finding.
      expect(outcome.doctor).toMatchObject({
        ok: true,
        value: { problems: [expect.objectContaining({ kind: 'policy', id: 'acme/absent', severity: 'error' })] },
      });
      const order = events.filter((e) => e.endsWith(':done') || e === 'policy-changed');
      // policy-changed comes as the apply ends (lastApply is already set when a UI asks), doctor after it.
      expect(order).toEqual(['policy-changed', 'policy.apply:done', 'doctor.run:done']);

      const status = await service.api.policy.show();
      expect(status).toMatchObject({
        ok: true,
        value: {
          error: null,
          policy: { organisation: 'Acme IT', required: ['acme/present', 'acme/absent'] },
          lastApply: { error: null, result: { failed: [{ id: 'acme/absent' }] } },
        },
      });
      expect(await service.api.installs.overview()).toMatchObject({ ok: true, value: [{ id: 'acme/present', version: '1.0.0' }] });
    } finally {
      await service.close();
    }
  });
});
