/**
 * docs/skills.md: a private repository without credentials is a coded error at once, never a
 * password prompt that waits: a real HTTPS server (the test CA) answers git's first request with
 * 401, as a forge does for a private repository.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCommit } from '../../../sdk/src/add/git.js';
import { TestServer } from '../../helpers/test-server.js';
import { testTls } from '../../helpers/tls.js';

let server: TestServer;
let work: string;
let caBefore: string | undefined;
beforeAll(async () => {
  server = await TestServer.start();
  work = await mkdtemp(join(tmpdir(), 'adcap-git-'));
  server.route('/acme/private.git/info/refs', (_req, res) => {
    res.statusCode = 401;
    res.setHeader('www-authenticate', 'Basic realm="private"');
    res.end('authentication required');
  });
  // git verifies the test server against the test CA; a user's git uses the system's CAs.
  caBefore = process.env.GIT_SSL_CAINFO;
  process.env.GIT_SSL_CAINFO = testTls().caPath;
});
afterAll(async () => {
  if (caBefore === undefined) delete process.env.GIT_SSL_CAINFO;
  else process.env.GIT_SSL_CAINFO = caBefore;
  await server.close();
  await rm(work, { recursive: true, force: true });
});

describe('git fetch of a private repository without credentials', () => {
  it('is E_DOWNLOAD saying it asks for credentials, without waiting for a prompt', async () => {
    const started = Date.now();
    await expect(fetchCommit(server.url('/acme/private.git'), undefined, join(work, 'clone'))).rejects.toMatchObject({
      code: 'E_DOWNLOAD',
      message: expect.stringMatching(/asks for credentials: it is private or does not exist\. Set up git's access/) as unknown,
    });
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(server.requests.some((r) => r.path === '/acme/private.git/info/refs')).toBe(true);
  });
});
