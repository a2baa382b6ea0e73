// What runTool refuses before anything starts (spec §6, §7, §13; host contract "Free and Pro",
// "Sandbox expectations"). A refused run never starts a process, so its error carries no stderr.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { revokeVersion } from '../../../sdk/src/registry/builder/maintain.js';
import { AuditLog } from '../../../sdk/src/run/audit.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Sandbox } from '../../../sdk/src/sandbox/sandbox.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;

beforeAll(async () => {
  h = await RunHome.create();
});
afterAll(async () => {
  await h.remove();
});

async function lastAuditLine(home: RunHome): Promise<Record<string, unknown>> {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = join(home.home, 'audit');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
  const lines = (await readFile(join(dir, files.at(-1) as string), 'utf8')).trim().split('\n');
  return JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
}

describe('runTool refuses before starting', () => {
  it('not granted: a tool whose declared permission is not granted is E_NOT_GRANTED, audited, never started', async () => {
    const arc = h.arc();
    await h.install(
      {
        id: 'acme/granted',
        permissions: [
          { id: 'fs:read', scope: 'workspace', reason: 'reads your files' },
          { id: 'storage:data', reason: 'keeps a cache' },
        ],
        tools: [nodeTool('reader', 'echo.mjs', { permissions: ['fs:read:workspace', 'storage:data'] }), nodeTool('plain', 'echo.mjs')],
        files: { 'tools/echo.mjs': 'echo.mjs' },
      },
      arc,
    );
    const ok = await runTool(arc, 'acme/granted', 'reader', {});
    expect(ok.grantsUsed).toEqual(['fs:read:workspace', 'storage:data']);
    expect((ok.output['context'] as { toolDataDir: string }).toolDataDir).toBe(storeOf(arc).home.toolDataDir('acme/granted', 'reader'));

    await arc.revokeGrant('acme/granted', 'storage:data');
    const error = await rejectionOf(runTool(arc, 'acme/granted', 'reader', {}));
    expect(error.code).toBe('E_NOT_GRANTED');
    expect(error.message).toContain('storage:data');
    expect(error.details?.['missing']).toEqual(['storage:data']);
    expect(error.details?.['stderr']).toBeUndefined();
    expect(await lastAuditLine(h)).toMatchObject({ name: 'reader', outcome: 'error', errorCode: 'E_NOT_GRANTED', grantsUsed: [] });
    // A tool that needs nothing still runs.
    expect((await runTool(arc, 'acme/granted', 'plain', {})).output['tool']).toBe('plain');
  });

  it('revoked: a version its registry revoked is refused from the stored catalogue (E_REVOKED)', async () => {
    const reg = await TestRegistry.create();
    const h = await RunHome.create(); // its own home: the registry goes away at the end
    try {
      await reg.addPublisher('acme');
      const file = await h.build({ id: 'acme/revocable', tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, [
        reg.keyOf('acme'),
      ]);
      await publishPackage(reg.dir, file);
      await reg.build();
      const arc = h.arc({ remotes: [{ name: 'test', url: reg.v1Url, rootKeys: [reg.rootKey.publicKey] }] });
      await arc.install('acme/revocable', { approve: () => true });
      expect((await runTool(arc, 'acme/revocable', 'echo', {})).output['tool']).toBe('echo');

      await revokeVersion(reg.dir, 'acme/revocable', '1.0.0', 'leaks credentials');
      await reg.build();
      // The host learns of it with its next catalogue fetch (spec §13); the run itself stays offline.
      await (await storeOf(arc).sources.client('test')).update();
      await arc.packageDoc('acme/revocable');
      const error = await rejectionOf(runTool(arc, 'acme/revocable', 'echo', {}));
      expect(error.code).toBe('E_REVOKED');
      expect(error.message).toContain('leaks credentials');
    } finally {
      await reg.cleanup();
      await h.remove();
    }
  });

  it(
    'tier hook: called before each run with the tier; false refuses a pro ' +
      'capability and a free one with E_ENTITLEMENT, never E_DENIED',
    async () => {
      const calls: Array<{ id: string; version: string; tier: string }> = [];
      let allow = true;
      const arc = h.arc({
        checkTier: (c) => {
          calls.push(c);
          return allow;
        },
      });
      await h.install(
        {
          id: 'acme/pro',
          distribution: { tier: 'pro', access: 'public' },
          tools: [nodeTool('echo', 'echo.mjs')],
          files: { 'tools/echo.mjs': 'echo.mjs' },
        },
        arc,
      );
      await h.install({ id: 'acme/free', tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
      expect((await runTool(arc, 'acme/pro', 'echo', {})).output['tool']).toBe('echo');
      expect(calls).toEqual([{ id: 'acme/pro', version: '1.0.0', tier: 'pro' }]);
      allow = false;
      const pro = await rejectionOf(runTool(arc, 'acme/pro', 'echo', {}));
      expect(pro.code).toBe('E_ENTITLEMENT');
      expect(pro.message).toContain('Pro');
      const free = await rejectionOf(runTool(arc, 'acme/free', 'echo', {}));
      expect(free.code).toBe('E_ENTITLEMENT');
      expect(calls).toHaveLength(3);
    },
  );

  it('runtime version: a node or python range this host does not satisfy is E_RUNTIME_UNSUPPORTED naming the version found', async () => {
    const arc = h.arc();
    await h.install(
      {
        id: 'acme/future',
        tools: [
          {
            name: 'newnode',
            description: 'Needs a future node.',
            runtime: { type: 'node', entry: 'tools/echo.mjs', version: '>=99' },
            inputSchema: { type: 'object' },
          },
          {
            name: 'oldpy',
            description: 'Needs python 2.',
            runtime: { type: 'python', entry: 'tools/echo.py', version: '<3' },
            inputSchema: { type: 'object' },
          },
        ],
        files: { 'tools/echo.mjs': 'echo.mjs', 'tools/echo.py': 'echo.py' },
      },
      arc,
    );
    const node = await rejectionOf(runTool(arc, 'acme/future', 'newnode', {}));
    expect(node.code).toBe('E_RUNTIME_UNSUPPORTED');
    expect(node.message).toContain(`Node.js ${process.versions.node}`);
    expect(node.details).toMatchObject({ required: '>=99', found: process.versions.node });
    const py = await rejectionOf(runTool(arc, 'acme/future', 'oldpy', {}));
    expect(py.code).toBe('E_RUNTIME_UNSUPPORTED');
    expect(py.message).toMatch(/Python 3\.\d+\.\d+/);
  });

  it('reserved runtimes: wasm and http tools are refused with a clear E_RUNTIME_UNSUPPORTED (mcp: mcp-runtime.test.ts)', async () => {
    const arc = h.arc();
    const reserved = ['wasm', 'http'] as const;
    await h.install(
      {
        id: 'acme/reserved',
        tools: reserved.map((type) => ({
          name: `via_${type}`,
          description: `A ${type} tool.`,
          runtime: { type },
          inputSchema: { type: 'object' },
        })),
      },
      arc,
    );
    for (const type of reserved) {
      const error = await rejectionOf(runTool(arc, 'acme/reserved', `via_${type}`, {}));
      expect(error.code).toBe('E_RUNTIME_UNSUPPORTED');
      expect(error.message).toContain(`"${type}" runtime, which is reserved`);
    }
  });

  it('platforms: a tool limited to other platforms is E_INCOMPATIBLE', async () => {
    const arc = h.arc();
    await h.install(
      {
        id: 'acme/maconly',
        tools: [nodeTool('echo', 'echo.mjs', { platforms: ['darwin-arm64'] })],
        files: { 'tools/echo.mjs': 'echo.mjs' },
      },
      arc,
    );
    const error = await rejectionOf(runTool(arc, 'acme/maconly', 'echo', {}));
    expect(error.code).toBe('E_INCOMPATIBLE');
    expect(error.message).toContain('darwin-arm64');
  });

  it('missing sandbox: a sandbox that does not work is E_SANDBOX_UNAVAILABLE, never a silent unsandboxed run', async () => {
    const broken: Sandbox = {
      name: 'bubblewrap',
      available: () => Promise.resolve(false),
      wrap: () => Promise.reject(new Error('must not be called')),
    };
    const arc = h.arc({ sandbox: { use: broken } });
    await h.install({ id: 'acme/nosandbox', tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
    const error = await rejectionOf(runTool(arc, 'acme/nosandbox', 'echo', {}));
    expect(error.code).toBe('E_SANDBOX_UNAVAILABLE');
  });

  it('a workspace that is not a folder is refused before the run', async () => {
    const arc = h.arc();
    await h.install({ id: 'acme/ws', tools: [nodeTool('echo', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
    const error = await rejectionOf(runTool(arc, 'acme/ws', 'echo', {}, { workspace: join(h.root, 'no-such-folder') }));
    expect(error.code).toBe('E_IO');
    await mkdir(join(h.root, 'ws'));
    expect((await runTool(arc, 'acme/ws', 'echo', {}, { workspace: join(h.root, 'ws') })).output['tool']).toBe('echo');
    expect((await new AuditLog(storeOf(arc).home.auditDir).verify()).lines).toBeGreaterThan(0);
  });
});
