import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrlAllowed, fetchCapped, isLoopbackHost, openSource, parseContentRange, resolveUrl } from '../../../sdk/src/cache/fetch.js';
import { isAdcapError } from '../../../sdk/src/errors.js';
import { exited, spawnTs } from '../../helpers/spawn-ts.js';
import { TestServer } from '../../helpers/test-server.js';
import { testTls, trustingFetch } from '../../helpers/tls.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAdcapError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('checkUrlAllowed', () => {
  it('accepts https and file URLs', () => {
    expect(checkUrlAllowed('https://cdn.example.com/a.json').protocol).toBe('https:');
    expect(checkUrlAllowed('file:///tmp/a.json').protocol).toBe('file:');
  });

  it('accepts plain http only on loopback (127.0.0.0/8, ::1, localhost)', () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://127.255.3.4/x', 'http://localhost/x', 'http://[::1]:9/x', 'http://LOCALHOST/x']) {
      expect(checkUrlAllowed(url).protocol).toBe('http:');
    }
  });

  it('refuses plain http to any other host with E_DOWNLOAD and a sentence saying what to use', () => {
    for (const url of [
      'http://example.com/x',
      'http://10.0.0.1/x',
      'http://128.0.0.1/x',
      'http://127.0.0.1.example.com/x',
      'http://[::2]/x',
    ]) {
      let caught: unknown;
      try {
        checkUrlAllowed(url);
      } catch (error) {
        caught = error;
      }
      expect(isAdcapError(caught, 'E_DOWNLOAD')).toBe(true);
      expect((caught as Error).message).toMatch(/plain http is allowed only for loopback.*use an https:\/\/ URL/);
    }
  });

  it('refuses other schemes and malformed URLs', () => {
    for (const url of ['ftp://example.com/x', 'data:text/plain,hi', 'javascript:alert(1)', 'not a url', '/relative/path']) {
      expect(() => checkUrlAllowed(url)).toThrow(expect.objectContaining({ code: 'E_DOWNLOAD' }) as Error);
    }
  });

  it('never repeats user info from the URL in its message', () => {
    expect(() => checkUrlAllowed('http://user:s3cret@example.com/x')).toThrow(/^(?!.*s3cret).*$/);
  });

  it('normalises IPv4 spellings before deciding loopback', () => {
    expect(isLoopbackHost(new URL('http://0x7f.0.0.1/').hostname)).toBe(true);
    expect(isLoopbackHost(new URL('http://2130706433/').hostname)).toBe(true);
    expect(isLoopbackHost('127.0.0.1.nip.io')).toBe(false);
  });
});

describe('resolveUrl and parseContentRange', () => {
  it('resolves a shard path beside its map', () => {
    expect(resolveUrl('https://a.example/maps/v1/map.json', 'shards/00.jsonl')).toBe('https://a.example/maps/v1/shards/00.jsonl');
    expect(resolveUrl('file:///srv/map.json', 'shards/x.bin')).toBe('file:///srv/shards/x.bin');
  });

  it('parses Content-Range strictly', () => {
    expect(parseContentRange('bytes 10-19/20')).toEqual({ start: 10, end: 19, total: 20 });
    expect(parseContentRange('bytes 10-19/*')).toEqual({ start: 10, end: 19, total: null });
    expect(parseContentRange('bytes 10-19/15')).toBeNull();
    expect(parseContentRange('bytes 19-10/20')).toBeNull();
    expect(parseContentRange('items 0-1/2')).toBeNull();
    expect(parseContentRange(null)).toBeNull();
  });
});

describe('fetchCapped over HTTPS with the test CA', () => {
  let server: TestServer;
  const fetch = trustingFetch();

  beforeAll(async () => {
    server = await TestServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('returns the body of a small document', async () => {
    server.serveBytes('/doc.json', Buffer.from('{"ok":true}'));
    const body = await fetchCapped(server.url('/doc.json'), { maxBytes: 1024, fetch });
    expect(body.toString()).toBe('{"ok":true}');
  });

  it('refuses a body that is exactly one byte over the cap', async () => {
    server.serveBytes('/big.json', Buffer.alloc(1025, 0x20));
    expect(await codeOf(fetchCapped(server.url('/big.json'), { maxBytes: 1024, fetch }))).toMatch(
      /^E_DOWNLOAD: .*larger than the 1024-byte limit/,
    );
    expect((await fetchCapped(server.url('/big.json'), { maxBytes: 1025, fetch })).length).toBe(1025);
  });

  it('stops an endless body without Content-Length at the cap, quickly', async () => {
    server.serveEndless('/endless');
    const started = Date.now();
    expect(await codeOf(fetchCapped(server.url('/endless'), { maxBytes: 100_000, fetch }))).toMatch(/^E_DOWNLOAD: .*100000-byte limit/);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Backpressure bounds what the server managed to write before the client hung up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.statsFor('/endless').bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('stops an endless body whose Content-Length lies (claims small)', async () => {
    server.serveEndless('/liar', { contentLength: 10 });
    // A lying small Content-Length makes the HTTP client stop at 10 bytes; the cap still holds either way.
    const result = await fetchCapped(server.url('/liar'), { maxBytes: 100_000, fetch }).then(
      (body) => body.length,
      (error: unknown) => (isAdcapError(error, 'E_DOWNLOAD') ? -1 : Number.NaN),
    );
    expect(result === 10 || result === -1).toBe(true);
  });

  it('refuses early when Content-Length already exceeds the cap', async () => {
    server.serveBytes('/declared', Buffer.alloc(4096), {});
    expect(await codeOf(fetchCapped(server.url('/declared'), { maxBytes: 100, fetch }))).toMatch(/^E_DOWNLOAD/);
  });

  it('reports HTTP errors with the status and a hint', async () => {
    expect(await codeOf(fetchCapped(server.url('/missing'), { maxBytes: 100, fetch }))).toMatch(
      /^E_DOWNLOAD: .*HTTP 404 \(not found on this mirror\)/,
    );
  });

  it('follows a redirect only to an allowed URL', async () => {
    server.route('/to-http', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://example.com/doc.json');
      res.end();
    });
    server.route('/to-doc', (_req, res) => {
      res.statusCode = 301;
      res.setHeader('location', '/doc.json');
      res.end();
    });
    expect(await codeOf(fetchCapped(server.url('/to-http'), { maxBytes: 100, fetch }))).toMatch(
      /^E_DOWNLOAD: .*redirected to a refused URL; only https, file and loopback http URLs are followed/,
    );
    expect((await fetchCapped(server.url('/to-doc'), { maxBytes: 100, fetch })).toString()).toBe('{"ok":true}');
  });

  it('drops caller headers when a redirect leaves the origin', async () => {
    const other = await TestServer.start();
    try {
      other.route('/echo', (req, res) => {
        res.end(JSON.stringify({ auth: req.headers.authorization ?? null }));
      });
      server.route('/cross', (_req, res) => {
        res.statusCode = 307;
        res.setHeader('location', other.url('/echo'));
        res.end();
      });
      const body = await fetchCapped(server.url('/cross'), { maxBytes: 1000, fetch, headers: { authorization: 'Bearer secret' } });
      expect(JSON.parse(body.toString())).toEqual({ auth: null });
    } finally {
      await other.close();
    }
  });

  it('fails a server whose certificate is not trusted (the default fetch does not know the test CA)', async () => {
    expect(await codeOf(fetchCapped(server.url('/doc.json'), { maxBytes: 1024 }))).toMatch(/^E_DOWNLOAD: Downloading .* failed/);
  });

  it('trusts the test CA through NODE_EXTRA_CA_CERTS with the plain global fetch (child process)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arcotheon-fetch-child-'));
    try {
      const script = join(dir, 'child.mts');
      const fetchModule = fileURLToPath(new URL('../../../sdk/src/cache/fetch.ts', import.meta.url));
      await writeFile(
        script,
        `import { fetchCapped } from ${JSON.stringify(fetchModule)};\n` +
          `const body = await fetchCapped(process.argv[2], { maxBytes: 1024 });\n` +
          `process.stdout.write('BODY ' + body.toString() + '\\n');\n`,
      );
      const child = await spawnTs(script, [server.url('/doc.json')], { env: { ...process.env, NODE_EXTRA_CA_CERTS: testTls().caPath } });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await exited(child);
      expect({ code, out, err: code === 0 ? '' : err }).toEqual({ code: 0, out: 'BODY {"ok":true}\n', err: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('fetchCapped over loopback HTTP and file://', () => {
  it('reads loopback http', async () => {
    const server = await TestServer.start({ protocol: 'http' });
    try {
      server.serveBytes('/a', Buffer.from('plain'));
      expect((await fetchCapped(server.url('/a'), { maxBytes: 10 })).toString()).toBe('plain');
    } finally {
      await server.close();
    }
  });

  it('reads file:// with the same cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arcotheon-fetch-file-'));
    try {
      await writeFile(join(dir, 'small.json'), '{"a":1}');
      await writeFile(join(dir, 'big.json'), Buffer.alloc(2048));
      expect((await fetchCapped(pathToFileURL(join(dir, 'small.json')).href, { maxBytes: 100 })).toString()).toBe('{"a":1}');
      expect(await codeOf(fetchCapped(pathToFileURL(join(dir, 'big.json')).href, { maxBytes: 100 }))).toMatch(
        /^E_DOWNLOAD: .*100-byte limit/,
      );
      expect(await codeOf(fetchCapped(pathToFileURL(join(dir, 'none.json')).href, { maxBytes: 100 }))).toMatch(
        /^E_DOWNLOAD: .*cannot be read/,
      );
      const partial = await openSource(pathToFileURL(join(dir, 'small.json')).href, { start: 3 });
      expect(partial.status).toBe(206);
      expect(partial.contentRange).toEqual({ start: 3, end: 6, total: 7 });
      const chunks: Buffer[] = [];
      for await (const chunk of partial.chunks()) chunks.push(Buffer.from(chunk));
      expect(Buffer.concat(chunks).toString()).toBe('":1}');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
