import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_IDS, Arcotheon, generateKey } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHostClient, type HostClient } from '../../../electron/common/client.js';
import { HOST_METHODS, type HostMethod } from '../../../electron/common/methods.js';
import type { Result } from '../../../electron/common/types.js';
import type { HostEvent } from '../../../electron/common/events.js';
import { apiUrl, connectHostSocket, type HostSocket, type WebSocketLike } from '../../../electron/common/ws-transport.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { startWebHost, type WebHost } from '../../../electron/web.js';
import { buildCapability, LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { signIn } from '../../helpers/ui-process.js';

/**
 * Every method of the host API contract, called through the typed client (createHostClient) over
 * the browser transport (connectHostSocket) and a real WebSocket to a real host service, on a temp
 * home and a real signed test registry. Every call is recorded; the last test fails when a method
 * of the table (HOST_METHODS) was never called here, so a new method needs a test here too.
 */
let reg: LifecycleRegistry;
let service: HostService;
let web: WebHost;
let socket: HostSocket;
let client: HostClient;
let home: string;
const events: HostEvent[] = [];
const called = new Set<HostMethod>();

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

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
  home = await mkdtemp(join(tmpdir(), 'adcap-client-ws-'));
  service = createHostService(new Arcotheon(reg.options(home)), { appVersion: '9.9.9', maxSideloadBytes: 8 * 1024 * 1024 });
  web = await startWebHost({ service });
  // Signed in as a browser is: the one-time address's cookie goes with the upgrade.
  const cookie = await signIn(web.signInUrl());
  socket = await connectHostSocket(
    apiUrl(web.origin),
    (url) => new WebSocket(url, { origin: web.origin, headers: { Cookie: cookie } }) as unknown as WebSocketLike,
  );
  // Record which methods went over the wire.
  client = createHostClient(async (method, args) => {
    called.add(method);
    return socket.call(method, args);
  }, socket.subscribe);
  client.events.subscribe((event) => events.push(event));
});

afterAll(async () => {
  socket.close();
  await web.close();
  await service.close();
});

describe('the host API through the typed client over a real WebSocket', () => {
  it('host and catalogue', async () => {
    expect(value(await client.host.info())).toMatchObject({
      appVersion: '9.9.9',
      home,
      limits: { maxSideloadBytes: 8 * 1024 * 1024, sideloadChunkBytes: 1024 * 1024 },
    });
    expect(Object.keys(value(await client.catalogue.show('acme/echo')).versions)).toEqual(['1.0.0']);

    const detail = value(await client.catalogue.detail('acme/echo'));
    expect(detail).toMatchObject({
      id: 'acme/echo',
      version: '1.0.0',
      publisher: { id: 'acme', verified: true },
      versions: [{ version: '1.0.0', prerelease: false, yanked: null, revoked: null, latest: true, installed: false }],
      permissions: [
        {
          id: 'fs:read',
          scope: 'workspace',
          grant: 'fs:read:workspace',
          text: expect.stringMatching(/folder you choose/),
          risk: 'low',
          reason: 'Reads your files.',
        },
      ],
      dependencies: [{ id: 'acme/lib', range: '^1.0.0' }],
      compatible: { ok: true, reason: null },
      signers: [{ status: 'active' }],
      installed: null,
    });
    // From the verified archive: the tool's input schema and the readme text.
    expect(detail.package?.tools).toEqual([
      expect.objectContaining({ name: 'main', inputSchema: { type: 'object' }, runtime: 'node', permissions: ['fs:read:workspace'] }),
    ]);
    expect(detail.package?.readme).toBe('# acme/echo 1.0.0\n');
    // The search index Discover loads once and searches as the user types, in pages of one revision.
    const index = value(await client.catalogue.index({}));
    expect(index.total).toBe(index.rows.length);
    const echo = index.rows.find((row) => row[0] === 'acme/echo');
    expect(echo?.[4]).toBe('1.0.0');
    expect(index.remotes[echo?.[8] ?? -1]).toBe('test');
    expect(index.publishers[echo?.[7] ?? -1]).toMatchObject({ id: 'acme', verified: true });
    const second = value(await client.catalogue.index({ revision: index.revision, offset: 1, limit: 1 }));
    expect(second).toMatchObject({ revision: index.revision, offset: 1, total: index.total, publishers: [] });
    expect(second.rows).toEqual(index.rows.slice(1, 2));
    // What this computer knows beyond the catalogue: nothing installed yet; the echo's contents were read above.
    const known = value(await client.catalogue.known({}));
    expect(known.revision).toBe(index.revision);
    expect(known.installed).toEqual([]);
    expect(known.learned).toContainEqual(expect.objectContaining({ id: 'acme/echo', tools: 1 }));
    // The cards' verdicts: the one of each page; an id nothing lists is left out.
    const risks = value(await client.catalogue.risks({ ids: ['acme/echo', 'acme/nothing'] }));
    expect(risks.verdicts).toEqual([
      { id: 'acme/echo', level: 'low', reason: expect.stringMatching(/^Low: it may read files in /), incomplete: false },
    ]);
    expect(risks.verdicts[0]?.reason).toBe(detail.risk.reason);
  });

  it('plan, install as an operation with progress, and the installed views', async () => {
    const plan = value(await client.installs.plan('acme/echo'));
    expect(plan.newPermissions).toEqual([expect.objectContaining({ id: 'acme/echo', grant: 'fs:read:workspace', risk: 'low' })]);
    const started = value(await client.installs.install('acme/echo', { approvedDigest: plan.digest }));
    expect(started.operation).toMatch(/^op_/);
    const done = value(await client.operations.wait(started));
    expect(done).toMatchObject({ applied: true, installed: [{ id: 'acme/lib' }, { id: 'acme/echo' }] });
    const mine = events.filter((e) => 'operation' in e && e.operation === started.operation);
    expect(mine[0]).toMatchObject({ type: 'operation', state: 'running', method: 'installs.install' });
    // (The capability page already fetched the archive into the cache, so there is no download phase.)
    expect(mine.some((e) => e.type === 'progress' && e.item === 'acme/echo@1.0.0')).toBe(true);
    expect(mine.at(-1)).toMatchObject({ type: 'operation', state: 'done', result: { ok: true } });
    expect(events.some((e) => e.type === 'installed-changed')).toBe(true);

    expect(value(await client.installs.overview())).toEqual([
      expect.objectContaining({ id: 'acme/echo', health: 'ok', version: '1.0.0', updateAvailable: null, grants: ['fs:read:workspace'] }),
      expect.objectContaining({ id: 'acme/lib', health: 'ok', explicit: false }),
    ]);
    const detail = value(await client.installs.detail('acme/lib'));
    expect(detail).toMatchObject({ dependents: ['acme/echo'], rollback: null, versions: [{ version: '1.0.0', active: true }] });
    expect((await stat(detail.directory)).isDirectory()).toBe(true);
    expect(value(await client.installs.grants('acme/echo'))).toMatchObject({
      granted: ['fs:read:workspace'],
      permissions: [{ grant: 'fs:read:workspace', granted: true }],
    });
  });

  it('workspaces, runs, grants and the audit log', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'adcap-client-ws-folder-'));
    const workspace = value(await client.workspaces.confirm(folder));
    expect(workspace).toMatchObject({ path: folder, handle: expect.stringMatching(/^ws_/) });
    expect(value(await client.workspaces.list())).toEqual([workspace]);

    const ran = value(
      await client.operations.wait(value(await client.run.tool('acme/echo', 'main', { hello: 'world' }, { workspace: workspace.handle }))),
    );
    expect(ran).toMatchObject({ tool: 'main', output: { hello: 'world' }, grantsUsed: ['fs:read:workspace'] });
    const workflow = await client.perform('run.workflow', 'acme/echo', 'nothing', {});
    expect(workflow).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
    // A resume token that no workflow handed out (run-workflow.test.ts resumes a real one).
    const resumed = await client.perform('run.resumeWorkflow', `wfr_${'0'.repeat(32)}`, 'the answer');
    expect(resumed).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });

    expect(value(await client.installs.revokeGrant('acme/echo', 'fs:read:workspace'))).toEqual([]);
    expect(value(await client.installs.grant('acme/echo', 'fs:read:workspace'))).toEqual(['fs:read:workspace']);

    const audit = value(await client.audit.list({ limit: 10 }));
    expect(audit).toEqual([
      expect.objectContaining({
        event: 'tool',
        capability: 'acme/echo',
        tool: 'main',
        version: '1.0.0',
        outcome: 'ok',
        durationMs: expect.any(Number),
      }),
    ]);
    expect(value(await client.audit.verify())).toEqual({ ok: true, lines: audit.length, problem: null });

    expect(value(await client.installs.disable('acme/echo'))).toMatchObject({
      id: 'acme/echo',
      enabled: false,
      changed: true,
      disabled: { by: 'user' },
    });
    expect(value(await client.installs.overview())).toContainEqual(
      expect.objectContaining({ id: 'acme/echo', disabled: expect.objectContaining({ by: 'user' }) }),
    );
    expect(value(await client.installs.enable('acme/echo'))).toEqual({ id: 'acme/echo', enabled: true, changed: true });
    value(await client.workspaces.forget(workspace.handle));
    expect(value(await client.workspaces.list())).toEqual([]);
  });

  it('updates: checked with their permission difference, applied only with the approval digest', async () => {
    await reg.publishAll([
      {
        id: 'acme/echo',
        version: '2.0.0',
        dependencies: { 'acme/lib': '^1.0.0' },
        permissions: [
          { id: 'fs:read', scope: 'workspace', reason: 'Reads your files.' },
          { id: 'net:connect', scope: 'api.example.com', reason: 'Looks things up.' },
        ],
        tool: true,
      },
    ]);
    const check = value(await client.updates.check());
    expect(check.updates).toEqual([
      expect.objectContaining({
        id: 'acme/echo',
        from: '1.0.0',
        to: '2.0.0',
        needsApproval: true,
        changes: {
          added: [expect.objectContaining({ grant: 'net:connect:api.example.com', risk: 'medium', reason: 'Looks things up.' })],
          widened: [],
          removed: [],
        },
      }),
    ]);
    expect(check.allNeedsApproval).toBe(true);
    // Checking applied nothing.
    expect(value(await client.installs.overview()).find((c) => c.id === 'acme/echo')).toMatchObject({
      version: '1.0.0',
      health: 'update-available',
      updateAvailable: '2.0.0',
    });

    // Without the digest: not applied, needsApproval.
    expect(value(await client.perform('updates.apply', ['acme/echo']))).toMatchObject({ applied: false, needsApproval: true });
    expect(await client.perform('updates.apply', ['acme/echo'], { approvedDigest: '0'.repeat(64) })).toMatchObject({
      ok: false,
      error: { code: 'E_DENIED' },
    });
    const update = check.updates[0];
    if (update === undefined) throw new Error('no update');
    expect(value(await client.perform('updates.apply', ['acme/echo'], { approvedDigest: update.digest }))).toMatchObject({
      applied: true,
      installed: [{ id: 'acme/echo', version: '2.0.0' }],
    });

    const detail = value(await client.installs.detail('acme/echo'));
    expect(detail.versions.map((v) => [v.version, v.active])).toEqual([
      ['2.0.0', true],
      ['1.0.0', false],
    ]);
    expect(detail.rollback).toEqual({
      to: '1.0.0',
      direction: 'back',
      grants: ['fs:read:workspace'],
      grantsAdded: [],
      grantsRemoved: ['net:connect:api.example.com'],
      // The rollback dialog shows sentences, not ids: what 1.0.0 keeps, and what ends.
      permissions: [expect.objectContaining({ grant: 'fs:read:workspace', text: expect.stringMatching(/^Read files in /), granted: true })],
      removed: [expect.objectContaining({ grant: 'net:connect:api.example.com', text: 'Connect to api.example.com' })],
    });
    expect(value(await client.installs.rollback('acme/echo'))).toEqual({ id: 'acme/echo', from: '2.0.0', to: '1.0.0' });
    // Rolled back, the kept 2.0.0 is what installs.rollback goes to next: forward, an update again.
    const after = value(await client.installs.detail('acme/echo'));
    expect(after.version).toBe('1.0.0');
    expect(after.rollback).toMatchObject({
      to: '2.0.0',
      direction: 'forward',
      grants: ['fs:read:workspace', 'net:connect:api.example.com'],
      grantsAdded: ['net:connect:api.example.com'],
      grantsRemoved: [],
      removed: [],
    });
    expect(value(await client.installs.rollback('acme/echo'))).toEqual({ id: 'acme/echo', from: '1.0.0', to: '2.0.0' });
    expect(value(await client.installs.rollback('acme/echo'))).toEqual({ id: 'acme/echo', from: '2.0.0', to: '1.0.0' });
  });

  it('uninstall names the dependents it would break', async () => {
    const refused = await client.installs.uninstall('acme/lib');
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'E_DEPENDENTS', message: expect.stringContaining('acme/echo'), details: { dependents: ['acme/echo'] } },
    });
    expect(value(await client.installs.uninstall('acme/echo')).removed.sort()).toEqual(['acme/echo', 'acme/lib']);
  });

  it('sideload: the bytes over the socket, then a handle to plan and install (unsigned needs the extra yes)', async () => {
    const file = await buildCapability({ id: 'local/thing', version: '0.1.0' }, await mkdtemp(join(tmpdir(), 'adcap-sideload-src-')), []);
    const bytes = await readFile(file);
    const upload = value(await client.sideload.begin({ name: 'thing.adcap', size: bytes.length }));
    for (let offset = 0; offset < bytes.length; offset += upload.chunkBytes) {
      value(await client.sideload.chunk(upload.upload, offset, bytes.subarray(offset, offset + upload.chunkBytes).toString('base64')));
    }
    const sideloaded = value(await client.sideload.commit(upload.upload));
    expect(sideloaded).toMatchObject({ name: 'thing.adcap', size: bytes.length, file: expect.stringMatching(/^sl_/) });
    const plan = value(await client.installs.plan({ sideload: sideloaded.file }));
    expect(plan.warnings).toEqual([expect.stringMatching(/UNSIGNED/)]);
    expect(await client.perform('installs.install', { sideload: sideloaded.file }, { approvedDigest: plan.digest })).toMatchObject({
      ok: false,
      error: { code: 'E_DENIED' },
    });
    expect(
      value(await client.perform('installs.install', { sideload: sideloaded.file }, { approvedDigest: plan.digest, allowUnsigned: true })),
    ).toMatchObject({ applied: true });
    expect(value(await client.installs.overview())).toEqual([expect.objectContaining({ id: 'local/thing', origin: 'unsigned' })]);

    // An MCP Bundle is read through the same handle (test/electron/host/bundle-imports.test.ts has
    // the whole import): a .adcap is not a zip, so both bundle methods refuse it with a sentence.
    expect(await client.sideload.inspectBundle(sideloaded.file)).toMatchObject({ ok: false, error: { code: 'E_TAR' } });
    expect(await client.sideload.importBundle(sideloaded.file, { noNet: true })).toMatchObject({ ok: false, error: { code: 'E_TAR' } });
    expect(await client.installs.plan({ bundle: 'mb_0123456789abcdefghij' })).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });

    const dropped = value(await client.sideload.begin({ name: 'other.adcap', size: 10 }));
    value(await client.sideload.abort(dropped.upload));
    expect(await client.sideload.commit(dropped.upload)).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });

  it('doctor, cache, sandbox', async () => {
    const dry = value(await client.perform('doctor.run', { fix: true, dryRun: true }));
    expect(dry).toMatchObject({ dryRun: true, fixed: false, checked: { packages: 1 } });
    const report = value(await client.perform('doctor.run'));
    expect(report).toMatchObject({ dryRun: false, fixed: false });
    for (const problem of report.problems) expect(['error', 'warning', 'info']).toContain(problem.severity);

    expect(value(await client.cache.info()).bytes).toBeGreaterThan(0);
    expect(value(await client.perform('cache.gc'))).toMatchObject({ removed: expect.any(Number), kept: expect.any(Number) });
    const sandbox = value(await client.sandbox.status());
    expect(sandbox.platforms.map((p) => p.platform)).toEqual(['linux', 'darwin', 'win32']);
    expect(sandbox.platforms.filter((p) => p.current)).toHaveLength(1);
  });

  it('remotes: status with last-verified time, refresh, add with a key the catalogue must verify, remove', async () => {
    expect(value(await client.remotes.list())).toEqual([expect.objectContaining({ name: 'test' })]);
    const [status] = value(await client.remotes.status());
    expect(status).toMatchObject({ name: 'test', builtIn: true, error: null, capabilities: 2 });
    expect(Date.parse(status?.lastVerifiedAt ?? '')).not.toBeNaN();
    expect(value(await client.perform('remotes.refresh', null))).toHaveLength(1);

    // The same registry under a new name, pinned to a key that did not sign it: refused, not kept.
    const wrong = await client.remotes.add('mirror', reg.registry.v1Url, [generateKey().publicKey]);
    expect(wrong).toMatchObject({ ok: false, error: { code: 'E_CATALOG' } });
    expect(value(await client.remotes.list()).map((r) => r.name)).toEqual(['test']);
    value(await client.remotes.add('mirror', reg.registry.v1Url, [reg.registry.rootKey.publicKey]));
    expect(value(await client.remotes.status()).map((r) => [r.name, r.builtIn])).toEqual([
      ['mirror', false],
      ['test', true],
    ]);
    expect(value(await client.remotes.remove('mirror'))).toBeNull();
    expect(events.some((e) => e.type === 'remotes-changed')).toBe(true);
  });

  it('operations: listed for the tray; a finished one cannot be cancelled', async () => {
    const list = value(await client.operations.list());
    expect(list.length).toBeGreaterThan(5);
    const finished = list.find((o) => o.label === 'Install acme/echo' && o.state === 'done');
    expect(finished).toMatchObject({ label: 'Install acme/echo', cancellable: true, result: { ok: true } });
    expect(value(await client.operations.cancel(finished?.operation ?? ''))).toEqual({ cancelled: false });
  });

  it(
    'agents: the agents table over the wire, and coded refusals for a capability ' +
      'that is no longer installed (links and MCP lines: agents.test.ts)',
    async () => {
      const agents = value(await client.agents.list());
      // The SDK's agents table as it is (electron/common restates it: test/electron/common/agent-id-parity.test.ts).
      expect(agents.map((a) => a.id)).toEqual([...AGENT_IDS]);
      expect(await client.agents.mcp(['acme/echo'])).toMatchObject({ ok: false, error: { code: 'E_NOT_INSTALLED' } });
      expect(await client.agents.link('acme/echo', 'claude-code')).toMatchObject({ ok: false, error: { code: 'E_NOT_INSTALLED' } });
      expect(await client.agents.unlink('acme/echo', null)).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
    },
  );

  it(
    'policy: none in force here; applying it changes nothing, and policy.show then has ' +
      'the outcome (with a policy: test/electron/cli/startup-policy.test.ts)',
    async () => {
      expect(value(await client.policy.show())).toEqual({ policy: null, error: null, lastApply: null });
      const applied = value(await client.operations.wait(value(await client.policy.apply())));
      expect(applied).toEqual({ policy: null, disabled: [], enabled: [], installed: [], updated: [], awaitingApproval: [], failed: [] });
      expect(value(await client.policy.show())).toMatchObject({
        policy: null,
        error: null,
        lastApply: { at: expect.any(String), result: applied, error: null },
      });
      expect(events.some((e) => e.type === 'policy-changed')).toBe(true);
    },
  );

  it('called every method of the table', () => {
    expect([...HOST_METHODS].filter((m) => !called.has(m))).toEqual([]);
  });
});
