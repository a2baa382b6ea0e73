// The hostile probe through runTool, under real bubblewrap: it tries to read a
// secret in $HOME, write outside the workspace, write its own directory, reach a listener on
// 127.0.0.1, read an environment variable it was not granted, and escape with unshare/mount.
// Every attempt fails; each grant lifts exactly its own restriction and nothing else. A control
// run without a sandbox shows the file and network attempts work on this host (it never tries
// unshare/mount: unsandboxed, as root, those would change the host).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { NoSandbox } from '../../../sdk/src/sandbox/none.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const ID = 'acme/probe';
const GRANTS: Record<string, string[]> = {
  none: [],
  ws_read: ['fs:read:workspace'],
  ws_write: ['fs:write:workspace'],
  env: ['env:read:GRANTED_TOKEN'],
  net: ['net:connect'],
  data: ['storage:data'],
};
/** What each grant may lift, and nothing more. */
const LIFTS: Record<string, string[]> = {
  none: [],
  ws_read: ['readWorkspace'],
  ws_write: ['readWorkspace', 'writeWorkspace'],
  env: ['readEnv'],
  net: ['connectDirect'],
  data: ['writeToolData'],
};
const ATTEMPTS = [
  'readSecret',
  'writeOutside',
  'writeOwnDir',
  'readWorkspace',
  'writeWorkspace',
  'writeToolData',
  'readEnv',
  'readOtherEnv',
  'connectDirect',
  'unshareUser',
  'unshareMount',
  'mountTmpfs',
];

let h: RunHome;
let arc: Arcotheon;
let workspace: string;
let outside: string;
let userHome: string;
let secret: string;
let mountPoint: string;
let server: net.Server;
let port: number;
const savedHome = process.env.HOME;

beforeAll(async () => {
  h = await RunHome.create();
  // A user home of our own holding a secret; the sandbox hides whatever os.homedir() is.
  userHome = join(h.root, 'userhome');
  secret = join(userHome, '.ssh', 'id_ed25519');
  mkdirSync(join(userHome, '.ssh'), { recursive: true });
  writeFileSync(secret, 'PRIVATE KEY', { mode: 0o600 });
  process.env.HOME = userHome;
  workspace = join(h.root, 'workspace');
  outside = join(h.root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  mountPoint = join(h.root, 'mnt');
  mkdirSync(mountPoint);
  writeFileSync(join(workspace, 'input.txt'), 'workspace input');
  server = net.createServer((s) => s.end('listener-says-hi\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
  arc = h.arc();
  await h.install(
    {
      id: ID,
      permissions: [
        { id: 'fs:read', scope: 'workspace', reason: 'reads' },
        { id: 'fs:write', scope: 'workspace', reason: 'writes' },
        { id: 'env:read', scope: 'GRANTED_TOKEN', reason: 'token' },
        { id: 'net:connect', reason: 'network' },
        { id: 'storage:data', reason: 'data' },
      ],
      tools: Object.entries(GRANTS).map(([name, permissions]) => nodeTool(name, 'probe-tool.mjs', { permissions, timeoutMs: 60_000 })),
      files: { 'tools/probe-tool.mjs': 'probe-tool.mjs', 'tools/probe.mjs': 'probe.mjs', 'tool.txt': { text: 'tool file' } },
    },
    arc,
  );
});
afterAll(async () => {
  process.env.HOME = savedHome;
  await new Promise((resolve) => server.close(resolve));
  await h.remove();
});

type Results = Record<string, { ok: boolean; detail: string | null }>;

async function probe(tool: string, on: Arcotheon = arc, escape = true): Promise<Results> {
  const input = {
    secret,
    outside,
    port,
    envName: 'GRANTED_TOKEN',
    otherEnvName: 'OTHER_SECRET',
    toolData: storeOf(on).home.toolDataDir(ID, tool),
    // The escape attempts target a folder of the test, never a host path: run unsandboxed as
    // root, `mount` would succeed on the host (the control below never asks for them).
    ...(escape ? { unshare: true, mountTarget: mountPoint } : {}),
  };
  const env = { ...process.env, GRANTED_TOKEN: 'granted-value', OTHER_SECRET: 'other-value' };
  const result = await runTool(on, ID, tool, input, { workspace, env });
  return result.output['results'] as Results;
}

describe('the hostile probe through runTool', () => {
  it('control: without a sandbox the file and network attempts work on this host', async () => {
    const open = h.arc({ sandbox: { use: new NoSandbox() } });
    const r = await probe('net', open, false);
    expect(r['readSecret']?.ok).toBe(true);
    expect(r['writeOutside']?.ok).toBe(true);
    expect(r['connectDirect']?.ok).toBe(true);
    // Unconfined, the probe also wrote into its installed folder; the runs below would refuse the
    // changed install (spec §4, the pre-run file check), so what it added goes again.
    expect(r['writeOwnDir']?.ok).toBe(true);
    const dir = await arc.installedDir(ID);
    for (const name of readdirSync(dir)) if (name.startsWith('probe-')) rmSync(join(dir, name));
  });

  for (const tool of Object.keys(GRANTS)) {
    const name =
      tool === 'none'
        ? 'no grant: every attempt fails'
        : `${(GRANTS[tool] ?? []).join(', ')} lifts exactly ${(LIFTS[tool] ?? []).join(', ')}`;
    it(name, async () => {
      const r = await probe(tool);
      const worked = Object.fromEntries(ATTEMPTS.map((a) => [a, r[a]?.ok ?? false]));
      const expected = Object.fromEntries(ATTEMPTS.map((a) => [a, (LIFTS[tool] ?? []).includes(a)]));
      expect(worked).toEqual(expected);
      expect(r['readOwnDir']?.ok).toBe(true); // spec §6: its own directory is always readable
      if (tool === 'env') expect(r['readEnv']?.detail).toBe('granted-value');
    });
  }
});
