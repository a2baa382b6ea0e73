import { symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestPathToSegments, serveRegistry, type ServedRegistry } from '../../../../sdk/src/registry/builder/serve.js';
import { TestRegistry } from '../../../helpers/test-registry.js';

let reg: TestRegistry;
let served: ServedRegistry;
let blobPath: string;

beforeEach(async () => {
  reg = await TestRegistry.create();
  await reg.addPublisher('acme');
  const { entry } = await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
  blobPath = `/v1/blobs/sha256/${entry.archive.sha256}.adcap`;
  await reg.build();
  await writeFile(join(reg.tempDir, 'secret.txt'), 'outside the tree');
  await symlink(join(reg.tempDir, 'secret.txt'), reg.path('v1/escape.txt'));
  served = await serveRegistry(reg.dir);
});
afterEach(async () => {
  await served.close();
  await reg.cleanup();
});

/** A raw request (fetch would normalise "..", which is exactly what must be tested). */
function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const url = new URL(served.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('registry serve (DESIGN §11)', () => {
  it('listens on 127.0.0.1 and serves the catalogue as JSON and blobs as octet-stream', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(served.remoteUrl).toBe(`${served.url}v1/`);
    const catalogue = await get('/v1/catalog.json');
    expect(catalogue.status).toBe(200);
    expect(catalogue.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(catalogue.body).toEqual(await reg.read('v1/catalog.json'));
    const blob = await get(blobPath);
    expect(blob.headers['content-type']).toBe('application/octet-stream');
    expect(blob.body).toEqual(await reg.read(blobPath.slice(1)));
  });

  it('refuses directory traversal, encoded or not, hidden files and symlinks out of the tree', async () => {
    for (const path of [
      '/../secret.txt',
      '/v1/../../secret.txt',
      '/v1/%2e%2e/%2e%2e/secret.txt',
      '/v1%2f..%2f..%2fsecret.txt',
      '/v1/escape.txt',
      '/.adcap-registry.lock',
      '/v1/',
      '/',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString()).not.toContain('outside the tree');
    }
    expect(requestPathToSegments('/a/%2e%2e/b')).toBeNull();
  });

  it('is read-only: methods other than GET and HEAD get 405', async () => {
    expect((await get('/v1/catalog.json', {}, 'PUT')).status).toBe(405);
    const head = await get('/v1/catalog.json', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('serves byte ranges of blobs (206, Content-Range) and 416 past the end', async () => {
    const whole = await reg.read(blobPath.slice(1));
    const part = await get(blobPath, { range: 'bytes=10-' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-${whole.length - 1}/${whole.length}`);
    expect(part.body).toEqual(whole.subarray(10));
    expect((await get(blobPath, { range: `bytes=${whole.length}-` })).status).toBe(416);
  });
});
