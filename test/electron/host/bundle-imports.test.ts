// MCP Bundles through the host API (docs/spec/mcp-runtime.md "MCP Bundles"), as the app's "Install
// from file…" uses it: a real .mcpb (the fixture server written with the official MCP SDK, packed
// with the official mcpb CLI) is uploaded, inspected, imported with the user's choices, planned and
// installed with { bundle }, then run under bubblewrap: the settings' values reach the secret store
// only once installed, the version is recorded as added by you, and the secret reaches the server.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Arcotheon } from '@arcotheon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostClient } from '../../../electron/common/index.js';
import { createHostService, type HostService } from '../../../electron/host/service.js';
import { writeZip } from '../../helpers/zip-writer.js';
import { mcpServerBundle } from '../../sdk/run/mcp-fixture.js';

const MCPB_CLI = fileURLToPath(new URL('../../../node_modules/@anthropic-ai/mcpb/dist/cli/cli.js', import.meta.url));
const SECRET = 'host-bundle-secret-5c2a';
const ID = 'acme-tools/fixture-server';

let work: string;
let packed: string;
const services: HostService[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'host-mcpb-'));
  const folder = join(work, 'bundle');
  await mkdir(join(folder, 'server'), { recursive: true });
  await copyFile((await mcpServerBundle()).file, join(folder, 'server', 'index.mjs'));
  await writeFile(
    join(folder, 'manifest.json'),
    JSON.stringify({
      manifest_version: '0.3',
      name: 'fixture-server',
      display_name: 'Fixture server',
      version: '1.0.0',
      description: 'Echo, read a file, fetch a URL.\nMore text.',
      author: { name: 'Acme Tools' },
      server: {
        type: 'node',
        entry_point: 'server/index.mjs',
        mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'], env: { API_KEY: '${user_config.api_key}' } },
      },
      tools: [{ name: 'echo', description: 'Says the text back.' }, { name: 'config_digest' }],
      user_config: {
        api_key: { type: 'string', title: 'API key', description: 'Your key.', sensitive: true, required: true },
        region: { type: 'string', title: 'Region', description: 'Where.', default: 'eu' },
        root: { type: 'directory', title: 'Folder', description: 'Where it reads files.' },
      },
    }),
  );
  packed = join(work, 'fixture.mcpb');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [MCPB_CLI, 'pack', folder, packed], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', resolve);
  });
  expect(code).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const s of services) await s.close();
});

async function service(options: Parameters<typeof createHostService>[1] = {}): Promise<{ api: HostClient; home: string }> {
  const home = await mkdtemp(join(work, 'home-'));
  const s = createHostService(new Arcotheon({ home, remotes: [], host: { agent: { id: 'arcotheon', version: '1.0.0' } } }), {
    configDir: join(home, 'config'),
    ...options,
  });
  services.push(s);
  return { api: s.api, home };
}

/** Sends a file as the page does (sideload.begin/chunk/commit); returns its handle. */
async function upload(api: HostClient, file: string, name: string): Promise<string> {
  const bytes = await readFile(file);
  const begun = await api.sideload.begin({ name, size: bytes.length });
  if (!begun.ok) throw new Error(begun.error.message);
  for (let offset = 0; offset < bytes.length; offset += begun.value.chunkBytes) {
    const chunk = bytes.subarray(offset, offset + begun.value.chunkBytes);
    const sent = await api.sideload.chunk(begun.value.upload, offset, chunk.toString('base64'));
    if (!sent.ok) throw new Error(sent.error.message);
  }
  const committed = await api.sideload.commit(begun.value.upload);
  if (!committed.ok) throw new Error(committed.error.message);
  return committed.value.file;
}

const secretsOf = async (home: string): Promise<Record<string, string>> =>
  (JSON.parse(await readFile(join(home, 'secrets.json'), 'utf8').catch(() => '{"values":{}}')) as { values: Record<string, string> })
    .values;

describe('MCP Bundles through the host API', () => {
  it('inspects a bundle without starting it: server, tools, settings (the secret marked), folders', async () => {
    const { api } = await service();
    const file = await upload(api, packed, 'fixture.mcpb');
    const inspected = await api.sideload.inspectBundle(file);
    if (!inspected.ok) throw new Error(inspected.error.message);
    expect(inspected.value).toMatchObject({
      file: 'fixture.mcpb',
      title: 'Fixture server',
      summary: 'Echo, read a file, fetch a URL.',
      author: 'Acme Tools',
      suggestedId: ID,
      server: { type: 'node', entry: 'server/index.mjs' },
      tools: [{ name: 'echo', description: 'Says the text back.' }, { name: 'config_digest' }],
      toolsGenerated: false,
      folders: [{ title: 'Folder', description: 'Where it reads files.' }],
      valuesKept: true,
    });
    expect(inspected.value.inputs).toEqual([
      { variable: 'API_KEY', title: 'API key', description: 'Your key.', sensitive: true, required: true, type: 'string' },
      {
        variable: 'MCPB_REGION',
        title: 'Region',
        description: 'Where.',
        sensitive: false,
        required: false,
        type: 'string',
        defaultValue: 'eu',
      },
    ]);
  });

  it('a file that is not a zip is refused with a sentence', async () => {
    const { api } = await service();
    const notZip = join(work, 'not.mcpb');
    await writeFile(notZip, 'not a zip');
    const file = await upload(api, notZip, 'not.mcpb');
    expect(await api.sideload.inspectBundle(file)).toMatchObject({
      ok: false,
      error: { code: 'E_TAR', message: expect.stringContaining('is not a readable zip archive') },
    });
  });

  it('a hostile bundle (zip slip, a symbolic link, an unknown manifest_version) is refused when read, with a sentence', async () => {
    const { api } = await service();
    const manifest = JSON.stringify({ manifest_version: '0.3', name: 'x', version: '1.0.0', description: 'x', server: {} });
    const cases: Array<[string, Buffer, string]> = [
      [
        'slip.mcpb',
        writeZip([
          { name: 'manifest.json', data: manifest },
          { name: 'server/../../../evil', data: 'x' },
        ]),
        'E_PATH',
      ],
      [
        'link.mcpb',
        writeZip([
          { name: 'manifest.json', data: manifest },
          { name: 'server/index.js', data: '/etc/shadow', mode: 0o120777 },
        ]),
        'E_ENTRY_TYPE',
      ],
      ['future.mcpb', writeZip([{ name: 'manifest.json', data: manifest.replace('"0.3"', '"9.0"') }]), 'E_SCHEMA'],
    ];
    for (const [name, bytes, code] of cases) {
      const path = join(work, name);
      await writeFile(path, bytes);
      const file = await upload(api, path, name);
      const inspected = await api.sideload.inspectBundle(file);
      expect(inspected, name).toMatchObject({ ok: false, error: { code } });
      if (!inspected.ok) expect(inspected.error.message.length, name).toBeGreaterThan(20);
      expect(await api.sideload.importBundle(file, { noNet: true }), name).toMatchObject({ ok: false, error: { code } });
    }
  });

  it('refuses a missing required value and a setting the bundle does not have', async () => {
    const { api } = await service();
    const file = await upload(api, packed, 'fixture.mcpb');
    expect(await api.sideload.importBundle(file, { noNet: true })).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringContaining('"API key" is required') },
    });
    expect(await api.sideload.importBundle(file, { noNet: true, values: { API_KEY: 'x', HOME: '/' } })).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringContaining('no setting "HOME"') },
    });
    expect(await api.sideload.importBundle(file, { noNet: true, values: { API_KEY: 'two\nlines' } })).toMatchObject({
      ok: false,
      error: { code: 'E_USAGE', message: expect.stringContaining('one line') },
    });
  });

  it('imports with a listed host, plans as added by you, stores the secret once installed; it reaches the server', async () => {
    const { api, home } = await service();
    const file = await upload(api, packed, 'fixture.mcpb');
    const imported = await api.sideload.importBundle(file, { allowNet: ['allowed.example'], values: { API_KEY: SECRET } });
    if (!imported.ok) throw new Error(imported.error.message);
    expect(imported.value).toMatchObject({ id: ID, version: '1.0.0', keyCreated: true });
    expect([...imported.value.undeclared].sort()).toEqual(['fetch_url', 'read_file']);
    expect(imported.value.tools.map((t) => t.name)).toEqual(['echo', 'config_digest']);

    const plan = await api.installs.plan({ bundle: imported.value.bundle });
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.items[0]?.source).toMatchObject({ kind: 'file', unsigned: false, unknownSigner: false, addedByYou: true });
    expect(plan.value.newPermissions.map((p) => p.grant).sort()).toEqual([
      'env:read:API_KEY',
      'env:read:MCPB_REGION',
      'fs:read:workspace',
      'fs:write:workspace',
      'net:connect:allowed.example',
    ]);
    expect(await secretsOf(home)).toEqual({});

    const started = await api.installs.install({ bundle: imported.value.bundle }, { approvedDigest: plan.value.digest });
    const done = await api.operations.wait(started);
    if (!done.ok) throw new Error(done.error.message);
    expect(await secretsOf(home)).toEqual({ [`${ID} API_KEY`]: SECRET });
    const detail = await api.installs.detail(ID);
    if (!detail.ok) throw new Error(detail.error.message);
    expect(JSON.stringify(detail.value)).toContain('added by you from fixture.mcpb');
    // The handle is spent: a second install of it is refused.
    expect(await api.installs.plan({ bundle: imported.value.bundle })).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });

    const ran = await api.operations.wait(await api.run.tool(ID, 'config_digest', {}));
    if (!ran.ok) throw new Error(ran.error.message);
    expect(ran.value.output).toEqual({ digest: createHash('sha256').update(SECRET).digest('hex') });
    expect(JSON.stringify(ran.value)).not.toContain(SECRET);
  }, 120_000);

  it('a host without a value store (secretStore: null; the app asks at the first run) neither asks for nor stores values', async () => {
    const { api, home } = await service({ secretStore: null });
    const file = await upload(api, packed, 'fixture.mcpb');
    const inspected = await api.sideload.inspectBundle(file);
    expect(inspected).toMatchObject({ ok: true, value: { valuesKept: false } });
    const imported = await api.sideload.importBundle(file, { noNet: true });
    if (!imported.ok) throw new Error(imported.error.message);
    const plan = await api.installs.plan({ bundle: imported.value.bundle });
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.newPermissions.some((p) => p.grant.startsWith('net:connect'))).toBe(false);
    const done = await api.operations.wait(
      await api.installs.install({ bundle: imported.value.bundle }, { approvedDigest: plan.value.digest }),
    );
    expect(done.ok).toBe(true);
    expect(await secretsOf(home)).toEqual({});
  }, 120_000);
});
