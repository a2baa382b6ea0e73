// The one composition root (electron/host/root.ts): what the Electron utility process and
// `arcotheon ui` both start. Real parts: a signed registry over file:// named by an
// embedded-remote.json pin (ARCOTHEON_EMBEDDED_REGISTRY), a policy file (ARCOTHEON_POLICY), the SDK
// and the host service; docs/admin.md "Applying the policy".
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost } from '../../../electron/host/root.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

let reg: LifecycleRegistry;
let work: string;
let pin: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'arcotheon-root-'));
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/present', version: '1.0.0' }]);
  pin = join(work, 'embedded-remote.json');
  await writeFile(pin, JSON.stringify({ name: 'bundled', url: reg.registry.v1Url, rootKeys: [reg.registry.rootKey.publicKey] }));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('startHost', () => {
  it('opens the home with the pinned registry and the policy of its environment, applies the policy, then runs doctor', async () => {
    const policy = join(work, 'policy.json');
    await writeFile(policy, JSON.stringify({ policy: 1, organisation: 'Acme IT', required: ['acme/present'] }));
    const logged: string[] = [];
    const { service, startup } = await startHost({
      home: join(work, 'home-a'),
      appVersion: '9.9.9',
      // The app's environment as a packaged app or an organisation sets it: the pinned registry and the policy file.
      env: { ARCOTHEON_EMBEDDED_REGISTRY: pin, ARCOTHEON_POLICY: policy },
      doctorAtStart: true,
      log: (m) => logged.push(m),
    });
    try {
      const outcome = await startup;
      expect(outcome.policy).toMatchObject({ ok: true, value: { failed: [] } });
      expect(outcome.doctor).toMatchObject({ ok: true, value: { fixed: false } });
      expect(logged).toEqual([]);
      expect(await service.api.remotes.list()).toMatchObject({ ok: true, value: [{ name: 'bundled', url: reg.registry.v1Url }] });
      expect(await service.api.installs.overview()).toMatchObject({ ok: true, value: [{ id: 'acme/present', version: '1.0.0' }] });
      expect(await service.api.host.info()).toMatchObject({ ok: true, value: { appVersion: '9.9.9' } });
      expect(await service.api.policy.show()).toMatchObject({ ok: true, value: { policy: { organisation: 'Acme IT' }, error: null } });
    } finally {
      await service.close();
    }
  });

  it('without doctor at start-up; an empty ARCOTHEON_EMBEDDED_REGISTRY means no default remote at all', async () => {
    const { service, startup } = await startHost({
      home: join(work, 'home-b'),
      appVersion: '1.0.0',
      // No default remote, and a policy path with no file: what a user who turned both off runs.
      env: { ARCOTHEON_EMBEDDED_REGISTRY: '', ARCOTHEON_POLICY: join(work, 'no-policy-here.json') },
      doctorAtStart: false,
    });
    try {
      const outcome = await startup;
      expect(outcome.doctor).toBeNull();
      expect(await service.api.remotes.list()).toEqual({ ok: true, value: [] });
    } finally {
      await service.close();
    }
  });
});
