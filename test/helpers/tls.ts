/**
 * A throw-away test CA and a server certificate for 127.0.0.1 / localhost / ::1, made with the
 * system's openssl once per test process, or again when the test file that made it removed its
 * temp dir (in a temp dir removed at exit).
 *
 * Making fetch trust it:
 * - `trustingFetch()` returns a `fetch` (same shape as the global one) built on node:https with the
 *   test CA, for injecting into the SDK (`new ContentCache(dir, { fetch })`, `fetchCapped(url, { fetch })`).
 * - A child process started with `NODE_EXTRA_CA_CERTS=<caPath>` trusts it with the plain global fetch
 *   (Node reads that variable only at start, so it cannot be set from inside a running test).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  dir: string;
  /** PEM of the test CA; the file at `caPath` is what NODE_EXTRA_CA_CERTS should point to. */
  caPem: string;
  caPath: string;
  certPem: string;
  keyPem: string;
}

let cached: TestTls | undefined;

export function testTls(): TestTls {
  // Test files share a worker process (vitest isolate: false) and each has its own TMPDIR, removed
  // after the file: a CA made by an earlier file is reused only while its folder is still there.
  if (cached !== undefined && existsSync(cached.caPath)) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'arcotheon-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  run([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Arcotheon Test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  run([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  ]);
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
      '',
    ].join('\n'),
  );
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  ]);
  cached = {
    dir,
    caPath: join(dir, 'ca.pem'),
    caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    certPem: readFileSync(join(dir, 'server.pem'), 'utf8'),
    keyPem: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
  return cached;
}

/**
 * A minimal WHATWG-style fetch on node:https/node:http that trusts the test CA (in addition to
 * nothing else: a certificate from any other CA fails, which is what tests want). Supports the
 * subset the SDK uses: GET, headers, AbortSignal, redirect: 'manual' (redirects are never followed).
 */
export function trustingFetch(ca: string = testTls().caPem): typeof globalThis.fetch {
  const impl = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const headers = new Headers(init.headers);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const options: RequestOptions = {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers.entries()),
        ca,
        signal,
      };
      const onResponse = (res: IncomingMessage): void => {
        const status = res.statusCode ?? 500;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
        }
        const nullBody = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
        if (nullBody) res.resume();
        const body = nullBody ? null : bodyStream(res);
        resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      };
      const req = url.protocol === 'https:' ? httpsRequest(url, options, onResponse) : httpRequest(url, options, onResponse);
      req.on('error', reject);
      req.end();
    });
  };
  return impl as typeof globalThis.fetch;
}

/**
 * The response body as a web stream that hands over every byte received before reporting a broken
 * connection (Readable.toWeb errors the stream at once and drops what is queued, which would make
 * the byte counts of resume tests depend on timing).
 */
function bodyStream(res: IncomingMessage): ReadableStream<Uint8Array> {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  res.on('data', (chunk: Buffer) => {
    queue.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    queued += chunk.byteLength;
    if (queued > 8 * 1024 * 1024) res.pause();
    notify();
  });
  res.on('end', () => {
    ended = true;
    notify();
  });
  res.on('error', (error) => {
    failure ??= error;
    notify();
  });
  res.on('close', () => {
    if (!res.complete) failure ??= new Error('the connection closed before the body was complete');
    notify();
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queue.length === 0 && !ended && failure === null) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        const chunk = queue.shift();
        if (chunk !== undefined) {
          queued -= chunk.byteLength;
          if (res.isPaused() && queued < 1024 * 1024) res.resume();
          controller.enqueue(chunk);
        } else if (failure !== null) {
          controller.error(failure);
        } else {
          controller.close();
        }
      },
      cancel() {
        res.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
