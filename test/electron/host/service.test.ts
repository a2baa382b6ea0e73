import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOST_METHODS } from '../../../electron/common/methods.js';
import type { HostEvent } from '../../../electron/common/events.js';
import type { CatalogueIndexPage } from '../../../electron/common/types.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';

/**
 * The host service as a transport calls it (electron IPC, the `arcotheon ui` WebSocket): method
 * names and JSON arguments in, plain Results and events out, over a real SDK instance and a real
 * signed test registry.
 */
let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/lib', version: '1.0.0' },
    {
      id: 'acme/echo',
      version: '1.0.0',
      dependencies: { 'acme/lib': '^1.0.0' },
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads your files.' }],
      tool: true,
    },
  ]);
});

/** Long methods return { operation } at once; this waits for the operation's own Result. */
async function finished(host: HostService, started: Promise<{ ok: boolean; value?: unknown }>): Promise<unknown> {
  const value = await started;
  if (!value.ok) return value;
  // operations.wait answers with the operation's own Result.
  return host.dispatch('operations.wait', [(value.value as { operation: string }).operation]);
}

async function service(): Promise<{ host: HostService; events: HostEvent[] }> {
  const home = await mkdtemp(join(tmpdir(), 'adcap-host-service-'));
  const host = createHostService(new Arcotheon(reg.options(home)));
  const events: HostEvent[] = [];
  host.subscribe((event) => events.push(event));
  return { host, events };
}

describe('host service', () => {
  it('describes every method once, as namespace.name', () => {
    expect(new Set(HOST_METHODS).size).toBe(HOST_METHODS.length);
    for (const method of HOST_METHODS) expect(method).toMatch(/^[a-z]+\.[a-zA-Z]+$/);
  });

  it("sends Discover's index and shows the catalogue", async () => {
    const { host } = await service();
    const found = await host.dispatch('catalogue.index', [{}]);
    if (!found.ok) throw new Error(found.error.message);
    const page = found.value as CatalogueIndexPage;
    const echo = page.rows.find((row) => row[0] === 'acme/echo');
    expect(echo?.[4]).toBe('1.0.0');
    expect(page.remotes[echo?.[8] ?? -1]).toBe('test');
    const shown = await host.dispatch('catalogue.show', ['acme/echo']);
    expect(shown).toMatchObject({
      ok: true,
      value: { id: 'acme/echo', versions: { '1.0.0': expect.objectContaining({ version: '1.0.0' }) } },
    });
  });

  it('installs only the plan whose digest the user approved, then tells every UI to refresh', async () => {
    const { host, events } = await service();
    const planned = await host.dispatch('installs.plan', ['acme/echo']);
    if (!planned.ok) throw new Error(planned.error.message);
    const plan = planned.value as { digest: string; newPermissions: Array<{ text: string }> };
    expect(plan.newPermissions.map((p) => p.text)).toEqual([expect.stringMatching(/folder you choose/)]);

    const refused = await finished(host, host.dispatch('installs.install', ['acme/echo', { approvedDigest: '0'.repeat(64) }]));
    expect(refused).toMatchObject({ ok: false, error: { code: 'E_DENIED', message: expect.stringMatching(/plan changed/) } });
    expect(events.filter((e) => e.type === 'installed-changed')).toEqual([]);

    const installed = await finished(host, host.dispatch('installs.install', ['acme/echo', { approvedDigest: plan.digest }]));
    expect(installed).toMatchObject({ ok: true, value: { applied: true, installed: [{ id: 'acme/lib' }, { id: 'acme/echo' }] } });
    // The call's own installed-changed has been sent when it answers. The home's watch (so that
    // another process's changes reach the page too) adds its own once the state files have been quiet
    // for 200 ms, which a loaded machine can reach while the install is still running (a fresh
    // clone's npm test saw 3), so the count is at least one, not exactly one.
    expect(events.filter((e) => e.type === 'installed-changed').length).toBeGreaterThanOrEqual(1);
    expect(
      events.some(
        (e) => e.type === 'progress' && e.method === 'installs.install' && e.phase === 'download' && e.item === 'acme/echo@1.0.0',
      ),
    ).toBe(true);
    expect(await host.dispatch('installs.overview', [])).toMatchObject({
      ok: true,
      value: [{ id: 'acme/echo', grants: ['fs:read:workspace'] }, { id: 'acme/lib' }],
    });
  });

  it('runs a granted tool, and refuses it once the grant is revoked', async () => {
    const { host } = await service();
    const planned = await host.dispatch('installs.plan', ['acme/echo']);
    if (!planned.ok) throw new Error(planned.error.message);
    await finished(
      host,
      host.dispatch('installs.install', ['acme/echo', { approvedDigest: (planned.value as { digest: string }).digest }]),
    );
    // Runs take a workspace handle the user confirmed, never a path.
    const confirmed = await host.dispatch('workspaces.confirm', [await mkdtemp(join(tmpdir(), 'adcap-host-ws-'))]);
    if (!confirmed.ok) throw new Error(confirmed.error.message);
    const workspace = (confirmed.value as { handle: string }).handle;
    const ran = await finished(host, host.dispatch('run.tool', ['acme/echo', 'main', { hello: 'world' }, { workspace }]));
    expect(ran).toMatchObject({ ok: true, value: { output: { hello: 'world' }, tool: 'main' } });
    expect(await host.dispatch('installs.revokeGrant', ['acme/echo', 'fs:read:workspace'])).toEqual({ ok: true, value: [] });
    const refused = await finished(host, host.dispatch('run.tool', ['acme/echo', 'main', {}, { workspace }]));
    expect(refused).toMatchObject({ ok: false, error: { code: 'E_NOT_GRANTED' } });
  });

  it('returns SDK failures as codes and sentences, not exceptions', async () => {
    const { host } = await service();
    expect(await host.dispatch('installs.rollback', ['acme/echo'])).toMatchObject({
      ok: false,
      error: { code: 'E_NOT_INSTALLED', message: expect.stringMatching(/\.$/) },
    });
    expect(await host.dispatch('catalogue.show', ['acme/nothing'])).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });

  it('refuses what a transport must never pass through: unknown methods and malformed arguments', async () => {
    const { host } = await service();
    expect(await host.dispatch('installs.__proto__', [])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('constructor', [])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('installs.overview', 'not an array')).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    // An install without an approval digest never reaches the SDK.
    expect(await host.dispatch('installs.install', ['acme/echo'])).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringContaining('approvedDigest') },
    });
    expect(await host.dispatch('installs.grant', ['acme/echo', 42])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await host.dispatch('run.tool', ['acme/echo'])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
  });

  it('stops sending events to a listener that unsubscribed', async () => {
    const { host } = await service();
    const seen: HostEvent[] = [];
    const stop = host.subscribe((e) => seen.push(e));
    stop();
    const planned = await host.dispatch('installs.plan', ['acme/lib']);
    if (!planned.ok) throw new Error(planned.error.message);
    await finished(host, host.dispatch('installs.install', ['acme/lib', { approvedDigest: (planned.value as { digest: string }).digest }]));
    expect(seen).toEqual([]);
  });
});
