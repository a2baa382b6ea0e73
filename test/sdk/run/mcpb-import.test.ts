// MCP Bundle import end to end: the fixture server written with the official
// MCP SDK, packed with the official `mcpb` CLI, imported with `adcap import`, installed with
// `adcap install`, run with `adcap run` under real bubblewrap; and bundles that must be refused.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importMcpBundle } from '../../../sdk/src/run/mcpb-import.js';
import { rejection } from '../../helpers/errors.js';
import { ADCAP_FIXTURE, bundleTs } from '../../helpers/spawn-ts.js';
import { writeZip } from '../../helpers/zip-writer.js';
import { mcpServerBundle } from './mcp-fixture.js';
import { RunHome } from './run-fixture.js';

const MCPB_CLI = fileURLToPath(new URL('../../../node_modules/@anthropic-ai/mcpb/dist/cli/cli.js', import.meta.url));
const SECRET = 'mcpb-secret-7d1f-never-printed';

let h: RunHome;
let server: string;
let adcap: string;
let packed: string;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], stdin = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // The user's own API_KEY stays out: env:read values then come from <home>/secrets.json.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: h.root };
    const child = spawn(command, args, { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const cli = (args: string[], stdin = ''): Promise<Ran> => run(process.execPath, [adcap, ...args, '--home', h.home], stdin);

function bundleManifest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifest_version: '0.3',
    name: 'fixture-server',
    display_name: 'Fixture server',
    version: '1.0.0',
    description: 'Echo, read a file, fetch a URL.',
    author: { name: 'Acme Tools' },
    server: {
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'], env: { API_KEY: '${user_config.api_key}' } },
    },
    tools_generated: true,
    user_config: {
      api_key: { type: 'string', title: 'API key', description: 'Your key for the service', sensitive: true, required: true },
      root: { type: 'directory', title: 'Folder', description: 'Where it reads files' },
    },
    compatibility: { platforms: ['linux', 'darwin'], runtimes: { node: '>=18' } },
    ...extra,
  };
}

/** A bundle folder with the fixture server, packed with the official mcpb CLI. */
async function pack(name: string, manifest: Record<string, unknown>): Promise<string> {
  const folder = join(h.root, 'bundles', name);
  await mkdir(join(folder, 'server'), { recursive: true });
  await copyFile(server, join(folder, 'server', 'index.mjs'));
  await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const out = join(h.root, `${name}.mcpb`);
  const packing = await run(process.execPath, [MCPB_CLI, 'pack', folder, out]);
  expect(packing.code, packing.stderr).toBe(0);
  return out;
}

beforeAll(async () => {
  h = await RunHome.create();
  server = (await mcpServerBundle()).file;
  adcap = await bundleTs(ADCAP_FIXTURE);
  packed = await pack('fixture', bundleManifest());
}, 120_000);
afterAll(async () => {
  await h.remove();
});

describe('adcap import of an MCP Bundle packed with the official mcpb CLI', () => {
  it('imports, installs and runs: echo through adcap run, the sandbox and the proxy refuse, the secret stays secret', async () => {
    const out = join(h.root, 'fixture.adcap');
    const imported = await cli(['import', packed, '-o', out, '--allow-net', 'allowed.example', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const plan = JSON.parse(imported.stdout) as {
      id: string;
      tools: string[];
      permissions: string[];
      inputs: Array<{ variable: string; sensitive: boolean }>;
    };
    expect(plan.id).toBe('acme-tools/fixture-server');
    expect(plan.tools.sort()).toEqual(['config_digest', 'echo', 'fetch_url', 'read_file']);
    expect(plan.permissions).toEqual(['env:read:API_KEY', 'fs:read:workspace', 'fs:write:workspace', 'net:connect:allowed.example']);
    expect(plan.inputs).toEqual([expect.objectContaining({ variable: 'API_KEY', sensitive: true })]);

    const installed = await cli(['install', out, '--allow-unsigned', '--yes']);
    expect(installed.code, installed.stderr).toBe(0);

    const echo = await cli(['run', plan.id, 'echo', '--input', '{"text":"hello"}', '--json']);
    expect(echo.code, echo.stderr).toBe(0);
    expect(JSON.parse(echo.stdout)).toMatchObject({ text: 'echo: hello' });

    const workspace = join(h.root, 'workspace');
    await mkdir(workspace, { recursive: true });
    const outside = join(h.root, 'outside.txt');
    await writeFile(outside, 'not for the server');
    const read = await cli(['run', plan.id, 'read_file', '--input', JSON.stringify({ path: outside }), '--workspace', workspace]);
    expect(read.code).not.toBe(0);
    expect(read.stderr).toContain('E_TOOL');
    expect(read.stderr).toContain('ENOENT');

    const fetched = await cli(['run', plan.id, 'fetch_url', '--input', '{"url":"http://not-granted.example/"}', '--json']);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect((JSON.parse(fetched.stdout) as { text: string }).text).toMatch(/^HTTP 403 /);

    const stored = await cli(['secret', 'set', plan.id, 'API_KEY'], `${SECRET}\n`);
    expect(stored.code, stored.stderr).toBe(0);
    const digest = await cli(['run', plan.id, 'config_digest', '--json']);
    expect(digest.code, digest.stderr).toBe(0);
    expect(JSON.parse(digest.stdout)).toEqual({ digest: createHash('sha256').update(SECRET).digest('hex') });
    for (const r of [imported, installed, echo, read, fetched, stored, digest]) expect(r.stdout + r.stderr).not.toContain(SECRET);
    const auditDir = join(h.home, 'audit');
    for (const file of await readdir(auditDir)) expect(await readFile(join(auditDir, file), 'utf8')).not.toContain(SECRET);
  }, 180_000);

  it('--no-net declares no network; no --allow-net declares net:connect with no scope (any server)', async () => {
    const none = await importMcpBundle(packed, { out: join(h.root, 'none.adcap'), noNet: true });
    expect((none.manifest.permissions ?? []).some((p) => p.id === 'net:connect')).toBe(false);
    const any = await importMcpBundle(packed, { out: join(h.root, 'any.adcap') });
    expect(any.manifest.permissions).toContainEqual(expect.objectContaining({ id: 'net:connect' }));
    expect(any.manifest.permissions?.find((p) => p.id === 'net:connect')?.scope).toBeUndefined();
  }, 120_000);

  it('a bundle that declares its tools gets those only; one its server does not list is refused (E_TOOL)', async () => {
    const declared = await pack('declared', bundleManifest({ tools_generated: false, tools: [{ name: 'echo', description: 'Echo.' }] }));
    const imported = await importMcpBundle(declared, { out: join(h.root, 'declared.adcap'), noNet: true });
    expect((imported.manifest.tools ?? []).map((t) => t.name)).toEqual(['echo']);
    expect(imported.undeclared.sort()).toEqual(['config_digest', 'fetch_url', 'read_file']);
    const wrong = await pack('wrong', bundleManifest({ tools_generated: false, tools: [{ name: 'teleport' }] }));
    const error = await rejection(importMcpBundle(wrong, { out: join(h.root, 'wrong.adcap'), noNet: true }));
    expect(error.code).toBe('E_TOOL');
    expect(error.message).toContain('"teleport"');
  }, 120_000);
});

describe('adcap add file.mcpb', () => {
  it('imports the bundle, signs it with your own key, installs it, and its tools run', async () => {
    const added = await cli(['add', packed, '--yes', '--id', 'me/fixture', '--allow-net', 'allowed.example']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('signed with your own key');
    expect(added.stderr).toContain('adcap secret set me/fixture API_KEY');
    const echo = await cli(['run', 'me/fixture', 'echo', '--input', '{"text":"added"}', '--json']);
    expect(echo.code, echo.stderr).toBe(0);
    expect(JSON.parse(echo.stdout)).toMatchObject({ text: 'echo: added' });
    // Installed with the user's own key trusted for this file only, and recorded as added by you from the bundle.
    const listed = await cli(['list']);
    const line = listed.stdout.split('\n').find((l) => l.startsWith('me/fixture@'));
    expect(line).toContain(`[added by you from ${packed}]`);
    expect(line).not.toContain('unsigned');
    // adcap update leaves it alone (its new version comes as a new file) and says so when named.
    const update = await cli(['update', 'me/fixture', '--yes']);
    expect(update.code).not.toBe(0);
    expect(update.stderr).toContain('adcap add <file.mcpb>');
  }, 180_000);

  it('adcap mcp gives an MCP client the tools of the imported server, which it reaches confined', async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [adcap, 'mcp', 'me/fixture', '--home', h.home],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: h.root },
        stderr: 'pipe',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['me__fixture__config_digest', 'me__fixture__echo', 'me__fixture__fetch_url', 'me__fixture__read_file']);
      const echo = await client.callTool({ name: 'me__fixture__echo', arguments: { text: 'through adcap mcp' } });
      expect(echo.isError).not.toBe(true);
      expect(echo.structuredContent).toMatchObject({ text: 'echo: through adcap mcp' });
      // The sandbox still decides: a host the import did not allow gets the proxy's refusal.
      const fetched = await client.callTool({ name: 'me__fixture__fetch_url', arguments: { url: 'http://not-granted.example/' } });
      expect(JSON.stringify(fetched.structuredContent)).toMatch(/HTTP 403 /);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('hostile MCP Bundles', () => {
  it('an unknown manifest_version is refused, naming the versions read', async () => {
    const file = join(h.root, 'future.mcpb');
    await writeFile(file, writeZip([{ name: 'manifest.json', data: JSON.stringify(bundleManifest({ manifest_version: '9.0' })) }]));
    const error = await rejection(importMcpBundle(file, { out: join(h.root, 'future.adcap'), noNet: true }));
    expect(error.code).toBe('E_SCHEMA');
    expect(error.message).toContain('"9.0"');
    expect(error.message).toContain('0.2, 0.3, 0.4');
  });

  it('a server that lists a tool the bundle does not declare: the tool is left out, never exposed', async () => {
    const manifest = bundleManifest({ tools_generated: false, tools: [{ name: 'echo' }] });
    (manifest['server'] as { mcp_config: { args: string[] } }).mcp_config.args.push('--extra-tool');
    const file = await pack('extra', manifest);
    const imported = await importMcpBundle(file, { out: join(h.root, 'extra.adcap'), noNet: true });
    expect((imported.manifest.tools ?? []).map((t) => t.name)).toEqual(['echo']);
    expect(imported.undeclared).toContain('exfiltrate');
  }, 120_000);

  it('a server that never answers initialize: the import stops at its timeout (E_TIMEOUT)', async () => {
    const manifest = bundleManifest();
    (manifest['server'] as { mcp_config: { args: string[] } }).mcp_config.args.push('--mute');
    const file = await pack('mute', manifest);
    const error = await rejection(importMcpBundle(file, { out: join(h.root, 'mute.adcap'), noNet: true, timeoutMs: 2_000 }));
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.message).toContain('initialize');
  }, 120_000);

  it('a bundle that holds capability.json is refused (E_PATH)', async () => {
    const file = join(h.root, 'sneaky.mcpb');
    await writeFile(
      file,
      writeZip([
        { name: 'manifest.json', data: JSON.stringify(bundleManifest()) },
        { name: 'capability.json', data: '{}' },
      ]),
    );
    expect((await rejection(importMcpBundle(file, { out: join(h.root, 'sneaky.adcap'), noNet: true }))).code).toBe('E_PATH');
  });

  it('zip slip and symbolic links in a bundle are refused before anything is written', async () => {
    const slip = join(h.root, 'slip.mcpb');
    await writeFile(
      slip,
      writeZip([
        { name: 'manifest.json', data: '{}' },
        { name: 'server/../../../x', data: 'x' },
      ]),
    );
    expect((await rejection(importMcpBundle(slip, { out: join(h.root, 'slip.adcap'), noNet: true }))).code).toBe('E_PATH');
    const link = join(h.root, 'link.mcpb');
    await writeFile(
      link,
      writeZip([
        { name: 'manifest.json', data: '{}' },
        { name: 'server/index.mjs', data: '/etc/shadow', mode: 0o120777 },
      ]),
    );
    expect((await rejection(importMcpBundle(link, { out: join(h.root, 'link.adcap'), noNet: true }))).code).toBe('E_ENTRY_TYPE');
  });
});
