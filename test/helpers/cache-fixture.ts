import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { ContentCache } from '../../sdk/src/cache/content-cache.js';
import { TestServer } from './test-server.js';
import { trustingFetch } from './tls.js';

export interface CacheFixture {
  server: TestServer;
  dir: string;
  cache: ContentCache;
}

/**
 * Registers the hooks the cache suites share: one HTTPS test server (test CA) per suite, and for
 * each test a fresh temp dir with a ContentCache that trusts the test CA and zeroed server stats.
 * `use` receives the current values before each test.
 */
export function useCacheFixture(prefix: string, use: (fixture: CacheFixture) => void): void {
  let server: TestServer;
  let dir: string;
  const fetch = trustingFetch();
  beforeAll(async () => {
    server = await TestServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    server.resetStats();
    use({ server, dir, cache: new ContentCache(join(dir, 'cache'), { fetch }) });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
}
