import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentCache } from '../sdk/src/cache/content-cache.js';
import { RegistryClient } from '../sdk/src/registry/client/registry-client.js';
import type { TopLevelPayload } from '../sdk/src/registry/layout-v2.js';
import { LifecycleRegistry } from '../test/helpers/lifecycle-registry.js';
import { testTls, trustingFetch } from '../test/helpers/tls.js';
import { assertBuilt, BIN } from './helpers/adcap.js';

/**
 * A built registry served by a real nginx over TLS (docs/deploy.md), with the server
 * block of docs/deploy/nginx-registry.conf: the recipe in docs/deploy.md is the one tested here.
 * The built `adcap` (real child processes, trusting the test CA through NODE_EXTRA_CA_CERTS)
 * adds the remote (its v1/ URL; the client reads the v2/ layout beside it), searches, installs,
 * refreshes after a publish (the bytes fetched asserted from nginx's log), updates, and resumes a
 * broken download with an HTTP Range request; a v1-only client reads the same tree.
 */

const NGINX = process.env['ARCOTHEON_NGINX'] ?? '/usr/sbin/nginx';
const recipe = join(import.meta.dirname, '..', 'docs', 'deploy', 'nginx-registry.conf');

let work: string;
let home: string;
let port: number;
let nginx: ChildProcess | undefined;
let reg: LifecycleRegistry;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function adcap(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, '--home', home, ...args], {
    encoding: 'utf8',
    // Not a user's run: no built-in registry, so the test's own (or none) is the only one.
    env: { ...process.env, ARCOTHEON_EMBEDDED_REGISTRY: '', NODE_EXTRA_CA_CERTS: testTls().caPath },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T>(...args: string[]): T {
  const r = adcap(...args, '--json');
  if (r.code !== 0) throw new Error(`adcap ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** One request to the nginx under test, trusting the test CA; the body is drained and dropped. */
function head(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'HEAD', headers, ca: testTls().caPem }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function accessLog(): Promise<Array<{ request: string; status: number; range: string; bytes: number }>> {
  const text = await readFile(join(work, 'access.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [request = '', status = '0', range = '-', bytes = '0'] = line.split('\t');
      return { request, status: Number(status), range, bytes: Number(bytes) };
    });
}

async function startNginx(): Promise<void> {
  const tls = testTls();
  port = await freePort();
  const server = (await readFile(recipe, 'utf8'))
    .replaceAll('@LISTEN@', `127.0.0.1:${port}`)
    .replaceAll('@NAME@', '127.0.0.1')
    .replaceAll('@CERT@', join(tls.dir, 'server.pem'))
    .replaceAll('@KEY@', join(tls.dir, 'server.key'))
    .replaceAll('@ROOT@', reg.registry.dir);
  // The test's own main configuration: one foreground process as the current user (CI runs as
  // root, and nginx workers would otherwise drop to a user who cannot read the temp folders),
  // every path inside the test folder, and an access log that records status and Range.
  const temp = join(work, 'nginx-temp');
  await mkdir(temp, { recursive: true });
  const conf = [
    'daemon off;',
    'master_process off;',
    `pid ${join(work, 'nginx.pid')};`,
    `error_log ${join(work, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    `  client_body_temp_path ${temp}/body; proxy_temp_path ${temp}/proxy; fastcgi_temp_path ${temp}/fastcgi;`,
    `  uwsgi_temp_path ${temp}/uwsgi; scgi_temp_path ${temp}/scgi;`,
    "  log_format ranges '$request\\t$status\\t$http_range\\t$body_bytes_sent';",
    `  access_log ${join(work, 'access.log')} ranges;`,
    server,
    '}',
    '',
  ].join('\n');
  await writeFile(join(work, 'nginx.conf'), conf);
  const check = spawnSync(NGINX, ['-t', '-p', work, '-c', join(work, 'nginx.conf')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t refused the recipe: ${check.stderr}`);
  const child = spawn(NGINX, ['-p', work, '-c', join(work, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  nginx = child;
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await head('/v1/catalog.json')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads your files.' };

beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-nginx-'));
  home = join(work, 'home');
  reg = await LifecycleRegistry.create();
  await reg.publishAll([{ id: 'acme/app', version: '1.0.0', permissions: [fsRead], tool: true }]);
  await startNginx();
  const added = adcap('remote', 'add', 'web', `https://127.0.0.1:${port}/v1/`, '--root-key', reg.registry.rootKey.publicKey);
  expect(added.code, added.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (nginx !== undefined && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx?.once('exit', resolve));
    nginx.kill('SIGQUIT');
    await exited;
  }
  await rm(work, { recursive: true, force: true });
  await rm(reg.registry.dir, { recursive: true, force: true });
});

describe('a registry served by nginx (docs/deploy.md recipe)', () => {
  it('serves v1/, with the caching headers the recipe promises', async () => {
    const catalogue = await head('/v1/catalog.json');
    expect(catalogue.headers['cache-control']).toBe('no-cache');
    // JSON is compressed for clients that accept it (the SDK's fetch does); archives never are.
    expect((await head('/v1/catalog.json', { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    const doc = await head('/v1/packages/acme/app.json');
    expect(doc.status).toBe(200);
    expect(doc.headers['cache-control']).toBe('no-cache');
    const packageDoc = JSON.parse(await readFile(reg.registry.path('v1/packages/acme/app.json'), 'utf8')) as {
      versions: Record<string, { archive: { sha256: string } }>;
    };
    const blob = await head(`/v1/blobs/sha256/${packageDoc.versions['1.0.0']?.archive.sha256 ?? ''}.adcap`);
    expect(blob.status).toBe(200);
    expect(blob.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(
      (await head(`/v1/blobs/sha256/${packageDoc.versions['1.0.0']?.archive.sha256 ?? ''}.adcap`, { 'accept-encoding': 'gzip' })).headers[
        'content-encoding'
      ],
    ).toBeUndefined();
    // The registry's source of truth and dot-files are not served.
    expect((await head('/registry.json')).status).toBe(404);
    expect((await head('/publishers/acme.json')).status).toBe(404);
    expect((await head('/v1/.adcap-registry.lock')).status).toBe(404);
  });

  it('serves v2/ beside v1/ (docs/scaling.md): the top level revalidated, content-addressed files immutable', async () => {
    const top = JSON.parse(await readFile(reg.registry.path('v2/catalog.json'), 'utf8')) as { payload: TopLevelPayload };
    expect((await head('/v2/catalog.json')).headers['cache-control']).toBe('no-cache');
    const node = await head(`/v2/${top.payload.nodes[0]?.[0] ?? ''}`);
    expect(node.status).toBe(200);
    expect(node.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const pack = await head(`/v2/${top.payload.search[0]?.[0] ?? ''}`, { 'accept-encoding': 'gzip' });
    expect(pack.status).toBe(200);
    expect(pack.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pack.headers['content-encoding']).toBeUndefined();
    const segments = top.payload.segments ?? [];
    expect(segments.length).toBeGreaterThan(0);
    const wire = await head(`/v2/${segments[0]?.[0] ?? ''}`, { 'accept-encoding': 'gzip' });
    expect(wire.status).toBe(200);
    expect(wire.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(wire.headers['content-encoding']).toBeUndefined();
    // The cold start (remote add) read the wire segments, and no search pack.
    const cold = (await accessLog()).map((line) => line.request);
    expect(cold.filter((request) => request.startsWith('GET /v2/index/')).length).toBe(segments.length);
    expect(cold.filter((request) => request.startsWith('GET /v2/search/'))).toEqual([]);
    expect((await head('/v2/.retired.json')).status).toBe(404);
    expect((await head('/v2/nodes/not-a-hash.json')).status).toBe(404);
    // The client added the v1/ URL and reads v2/ (remote show says which).
    const shown = adcap('remote', 'show', 'web');
    expect(shown.stdout).toContain('layout: v2');
  });

  it('searches, installs and runs from it', async () => {
    expect(json<Array<{ id: string }>>('search', 'acme').map((h) => h.id)).toEqual(['acme/app']);
    const installed = json<{ installed: Array<{ id: string; version: string }> }>('install', 'acme/app', '--yes');
    expect(installed.installed).toEqual([{ id: 'acme/app', version: '1.0.0' }]);
    // `run --json` prints the tool's output object itself.
    // A folder beside the home: a workspace that holds the Arcotheon home is refused (SECURITY.md).
    const workspace = join(work, 'workspace');
    await mkdir(workspace, { recursive: true });
    expect(json<unknown>('run', 'acme/app', 'main', '--input', '{"hello":"nginx"}', '--workspace', workspace)).toEqual({ hello: 'nginx' });
  });

  it('updates to a newly published version, resuming a broken download with a Range request', async () => {
    // 1.1.0 is big enough that a half-written download is worth resuming.
    const file = await reg.publish({ id: 'acme/app', version: '1.1.0', permissions: [fsRead], tool: true, padding: 2 * 1024 * 1024 });
    await reg.registry.build();
    const bytes = await readFile(file);
    const sha = createHash('sha256').update(bytes).digest('hex');
    // A download that broke halfway: the content cache keeps it at cache/tmp/<sha>.partial.
    const half = Math.floor(bytes.length / 2);
    await mkdir(join(home, 'cache', 'tmp'), { recursive: true });
    await writeFile(join(home, 'cache', 'tmp', `${sha}.partial`), bytes.subarray(0, half));

    const before = (await accessLog()).length;
    const refreshed = json<Array<{ changed: boolean; layout: string; downloadedBytes: number }>>('remote', 'update', 'web');
    expect(refreshed).toMatchObject([{ changed: true, layout: 'v2' }]);
    // A refresh after one publish follows changed pins only: the top level, one node, one bin.
    const refresh = (await accessLog()).slice(before);
    expect(refresh.map((line) => line.request.replace(/[0-9a-f]{64}/, '<sha>'))).toEqual([
      'GET /v2/catalog.json HTTP/1.1',
      'GET /v2/nodes/<sha>.json HTTP/1.1',
      'GET /v2/bins/<sha>.json HTTP/1.1',
    ]);
    expect(refresh.every((line) => line.status === 200)).toBe(true);
    expect(refresh.reduce((sum, line) => sum + line.bytes, 0)).toBeLessThan(64 * 1024);
    expect(refreshed[0]?.downloadedBytes).toBeLessThan(64 * 1024);
    const updated = json<{ applied: boolean }>('update', '--yes');
    expect(updated.applied).toBe(true);
    expect(json<Array<{ id: string; version: string }>>('list').map((c) => [c.id, c.version])).toEqual([['acme/app', '1.1.0']]);

    const blobRequests = (await accessLog()).filter((line) => line.request.includes(`/v1/blobs/sha256/${sha}.adcap`));
    expect(blobRequests.map(({ request, status, range }) => ({ request, status, range }))).toEqual([
      { request: `GET /v1/blobs/sha256/${sha}.adcap HTTP/1.1`, status: 206, range: `bytes=${half}-` },
    ]);
    const doctor = adcap('doctor');
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  });

  it('a v1-only client (as a 1.0 client reads) still searches and downloads from the same tree, asking only for v1/', async () => {
    const oldHome = join(work, 'v1-home');
    const before = (await accessLog()).length;
    const client = new RegistryClient({
      home: oldHome,
      remote: { name: 'web', url: `https://127.0.0.1:${port}/v1/`, rootKeys: [reg.registry.rootKey.publicKey] },
      fetch: trustingFetch(),
      layout: 'v1',
    });
    const loaded = await client.update();
    expect(loaded.layout).toBe('v1');
    expect((await client.search('acme')).map((hit) => [hit.id, hit.latest])).toEqual([['acme/app', '1.1.0']]);
    const archive = await client.downloadArchive('acme/app', '1.1.0', {
      cache: new ContentCache(join(oldHome, 'cache'), { fetch: trustingFetch() }),
    });
    expect(archive.manifest.version).toBe('1.1.0');
    const requests = (await accessLog()).slice(before).map((line) => line.request);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((request) => request.includes(' /v1/'))).toBe(true);
  });
});
