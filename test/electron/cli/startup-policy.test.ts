// `arcotheon ui` applies the organisation policy once at start-up (electron/host/startup.ts):
// a required capability is installed, a blocked one that was installed is disabled, and the outcome
// is what policy.show answers over the WebSocket. A policy that cannot be applied is not fatal: the
// UI keeps serving, policy.show carries the E_POLICY error (the renderer's banner), stderr says why.
// Real parts: a signed registry over file://, the CLI from source as a child process, a WebSocket.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi } from '../../../electron/cli.js';
import type { PolicyStatusData } from '../../../electron/common/types.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { callOver, connectApi, signIn, startUiProcess, stopUiProcess } from '../../helpers/ui-process.js';

let reg: LifecycleRegistry;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'arcotheon-ui-policy-'));
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/must-have', version: '1.0.0' },
    { id: 'acme/banned', version: '1.0.0' },
  ]);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Asks policy.show over the socket until the start-up apply has finished. */
async function appliedStatus(port: number, cookie: string): Promise<PolicyStatusData> {
  const ws = await connectApi(port, cookie);
  try {
    const deadline = Date.now() + 30_000;
    for (let id = 1; Date.now() < deadline; id++) {
      const answer = await callOver(ws, id, 'policy.show', []);
      if (!answer.ok) throw new Error(JSON.stringify(answer.error));
      const status = answer.value as PolicyStatusData;
      if (status.lastApply !== null) return status;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the start-up policy apply did not finish in 30 s');
  } finally {
    ws.close();
  }
}

describe('arcotheon ui applies the organisation policy at start-up', () => {
  it('installs what the policy requires and disables what it blocks, and says so through policy.show', async () => {
    const home = join(work, 'home-applied');
    // Installed before the policy came: it must end up disabled by the policy, its files kept.
    await reg.arcotheon(home).install('acme/banned', { approve: () => true });
    const policyFile = join(work, 'policy-applied.json');
    await writeFile(
      policyFile,
      JSON.stringify({
        policy: 1,
        organisation: 'Acme IT',
        remotes: [{ name: 'test', url: reg.registry.v1Url, rootKeys: [reg.registry.rootKey.publicKey] }],
        required: ['acme/must-have'],
        blocked: ['acme/banned'],
      }),
    );
    // Not a user's run: no built-in registry, and the policy under test (a user's comes from the system file, docs/admin.md).
    const ui = await startUiProcess({ args: ['--home', home], env: { ARCOTHEON_POLICY: policyFile, ARCOTHEON_EMBEDDED_REGISTRY: '' } });
    try {
      const status = await appliedStatus(ui.port, ui.cookie);
      expect(status.error).toBeNull();
      expect(status.policy).toMatchObject({
        path: policyFile,
        source: 'environment',
        organisation: 'Acme IT',
        required: ['acme/must-have'],
        blocked: ['acme/banned'],
        remotes: ['test'],
      });
      expect(status.lastApply?.error).toBeNull();
      expect(status.lastApply?.result).toMatchObject({
        installed: [{ id: 'acme/must-have', version: '1.0.0' }],
        disabled: [{ id: 'acme/banned', rule: 'acme/banned' }],
        failed: [],
      });

      // The home, read by a separate SDK instance: the outcome is on disk, not only in the host's memory.
      const list = await reg.arcotheon(home).list();
      expect(list.find((c) => c.id === 'acme/must-have')).toMatchObject({ version: '1.0.0' });
      expect(list.find((c) => c.id === 'acme/banned')).toMatchObject({ version: '1.0.0', disabled: { by: 'policy', rule: 'acme/banned' } });
    } finally {
      expect((await stopUiProcess(ui)).code).toBe(0);
    }
  }, 60_000);

  it('keeps serving when the policy is invalid, with the E_POLICY error in policy.show and on stderr', async () => {
    const policyFile = join(work, 'policy-invalid.json');
    await writeFile(policyFile, '{"policy": 1, "sideloading": false}');
    const home = join(work, 'home-invalid');
    const logged: string[] = [];
    // Not a user's run: no built-in registry, and the policy under test (a user's comes from the system file, docs/admin.md).
    const ui = await startUi({ home, port: 0, open: false, env: { ARCOTHEON_POLICY: policyFile, ARCOTHEON_EMBEDDED_REGISTRY: '' } }, (m) =>
      logged.push(m),
    );
    try {
      const outcome = await ui.startup;
      expect(outcome.policy).toMatchObject({ ok: false, error: { code: 'E_POLICY' } });
      expect(outcome.doctor).toBeNull();
      expect(logged.join('\n')).toMatch(/the organisation policy could not be applied: .*does not match the policy schema.*\(E_POLICY\)/);
      const status = await appliedStatus(ui.web.port, await signIn(ui.url));
      expect(status.policy).toBeNull();
      expect(status.error).toMatchObject({ code: 'E_POLICY', message: expect.stringContaining(policyFile) });
      expect(status.lastApply).toMatchObject({ result: null, error: { code: 'E_POLICY' } });
      // Still serving: read-only work answers.
      expect(await ui.service.api.installs.overview()).toEqual({ ok: true, value: [] });
    } finally {
      await ui.stop();
    }
  });

  it('applies nothing and reports no policy when none is in force', async () => {
    // Not a user's run: no built-in registry, so the test's own (or none) is the only one.
    const ui = await startUi({ home: join(work, 'home-none'), port: 0, open: false, env: { ARCOTHEON_EMBEDDED_REGISTRY: '' } });
    try {
      const outcome = await ui.startup;
      expect(outcome.policy).toMatchObject({ ok: true, value: { policy: null, installed: [], disabled: [], failed: [] } });
      const status = await appliedStatus(ui.web.port, await signIn(ui.url));
      expect(status).toMatchObject({ policy: null, error: null, lastApply: { error: null } });
    } finally {
      await ui.stop();
    }
  });
});
