/**
 * `arcotheon ui` as a real child process on a fresh temp home: its first stdout line (a one-time
 * sign-in address), signed in the way a browser does (following that address and keeping the
 * session cookie it sets), its stderr, and how it exited. Also a raw TCP client for the
 * hostile-client tests, which send bytes no WebSocket library would.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { bundleTs } from './spawn-ts.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(REPO, 'node_modules', '.bin', 'arcotheon');

export interface UiProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** The first sign-in address it printed (already used when `cookie` is set). */
  url: string;
  port: number;
  /** The `Cookie` header of the session that following `url` started (empty with `signIn: false`). */
  cookie: string;
  home: string;
  /** Presses Enter on its stdin and resolves with the new sign-in address it prints. */
  newAddress(): Promise<string>;
  stderr(): string;
  /** Resolves with the exit code and signal once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

export async function startUiProcess(
  options: {
    bin?: boolean;
    args?: string[];
    env?: NodeJS.ProcessEnv;
    home?: string;
    open?: boolean;
    signIn?: boolean;
    prefix?: string[];
  } = {},
): Promise<UiProcess> {
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'arcotheon-ui-')));
  const args = ['ui', '--home', home, ...(options.open === true ? [] : ['--no-open']), ...(options.args ?? [])];
  // `prefix` runs it under another program (prlimit, for the descriptor-limit test).
  const [command, ...commandArgs] =
    options.bin === true ? [BIN, ...args] : [process.execPath, await bundleTs(join(REPO, 'test', 'fixtures', 'arcotheon-ui.ts')), ...args];
  const prefix = options.prefix ?? [];
  const child = spawn(
    prefix[0] ?? (command as string),
    [...prefix.slice(1), ...(prefix.length > 0 ? [command as string] : []), ...commandArgs],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    },
  );
  let stderr = '';
  let stdout = '';
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    }),
  );
  child.stdin.on('error', () => undefined);
  const waiting: Array<(line: string) => void> = [];
  const lines: string[] = [];
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
      const line = stdout.slice(0, nl);
      stdout = stdout.slice(nl + 1);
      const next = waiting.shift();
      if (next === undefined) lines.push(line);
      else next(line);
    }
  });
  const nextLine = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const ready = lines.shift();
      if (ready !== undefined) return resolve(ready);
      const timer = setTimeout(() => reject(new Error(`arcotheon ui printed no address in time; stderr: ${stderr}`)), 30_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then(({ code }) => {
        clearTimeout(timer);
        reject(new Error(`arcotheon ui exited (${code}) before printing an address; stderr: ${stderr}`));
      });
    });
  const firstLine = await nextLine();
  const match = SIGN_IN_URL.exec(firstLine);
  if (match === null) throw new Error(`unexpected first line: ${firstLine}`);
  const port = Number(match[1]);
  return {
    child,
    url: firstLine,
    port,
    cookie: options.signIn === false ? '' : await signIn(firstLine),
    home,
    newAddress: () => {
      child.stdin.write('\n');
      return nextLine();
    },
    stderr: () => stderr,
    exited,
    alive: () => exitInfo === null,
  };
}

export async function stopUiProcess(ui: UiProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (ui.alive()) ui.child.kill('SIGTERM');
  return ui.exited;
}

/** What `arcotheon ui` prints and opens: a one-time sign-in address. */
export const SIGN_IN_URL = /^http:\/\/127\.0\.0\.1:(\d+)\/signin\?code=([A-Za-z0-9_-]{43})$/;

export interface SignInAnswer {
  status: number;
  location: string | null;
  /** The `name=value` of the cookie it set, or null. */
  setCookie: string | null;
  /** The whole Set-Cookie header (its attributes), or null. */
  setCookieHeader: string | null;
  body: string;
}

/** GETs a sign-in address as a browser's navigation would, sending `cookie` when the browser has one. */
export function followSignIn(url: string, cookie?: string): Promise<SignInAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: cookie === undefined ? {} : { Cookie: cookie } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        const header = res.headers['set-cookie']?.[0] ?? null;
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location ?? null,
          setCookie: header === null ? null : (header.split(';')[0] as string),
          setCookieHeader: header,
          body,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Follows a one-time sign-in address and returns the session's `Cookie` header value. */
export async function signIn(url: string): Promise<string> {
  const answer = await followSignIn(url);
  if (answer.status !== 303 || answer.setCookie === null) throw new Error(`sign-in refused (${answer.status}): ${answer.body}`);
  return answer.setCookie;
}

/** A real WebSocket client with the session cookie and the UI's Origin, as the page opens it. */
export function connectApi(port: number, cookie: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { origin: `http://127.0.0.1:${port}`, headers: { Cookie: cookie } });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** One call over a WebSocket, waiting for the reply with that id. */
export function callOver(
  ws: WebSocket,
  id: number,
  method: string,
  args: unknown[],
): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData): void => {
      const message = JSON.parse(data.toString()) as { id?: unknown; result?: { ok: boolean } };
      if (message.id === id) {
        ws.off('message', onMessage);
        resolve(message.result as { ok: boolean });
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, args }));
  });
}

/** Proves the server still serves: a fresh client connects and gets an answer. */
export async function stillServes(port: number, cookie: string): Promise<boolean> {
  const ws = await connectApi(port, cookie);
  try {
    const result = await callOver(ws, 1, 'workspaces.list', []);
    return result.ok;
  } finally {
    ws.close();
  }
}

export function rawSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The upgrade request a browser sends, with or without the session cookie. */
export function upgradeRequest(port: number, cookie: string | null): string {
  return (
    `GET /api HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
    `${cookie === null ? '' : `Cookie: ${cookie}\r\n`}Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`
  );
}

/** Opens a raw socket and completes the WebSocket handshake, leaving the frames to the test. */
export async function rawWebSocket(port: number, cookie: string): Promise<Socket> {
  const socket = await rawSocket(port);
  socket.write(upgradeRequest(port, cookie));
  await new Promise<void>((resolve, reject) => {
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.off('data', onData);
        if (head.startsWith('HTTP/1.1 101')) resolve();
        else reject(new Error(head.split('\r\n')[0]));
      }
    };
    socket.on('data', onData);
  });
  return socket;
}

/**
 * Resolves with the first server text frame whose JSON message has `id`. Server frames are not
 * masked (RFC 6455 §5.2); one chunk from the socket may hold several frames (an event pushed beside
 * the reply) or part of one, so they are parsed out of the bytes, not taken a chunk each.
 */
export function replyWithId(socket: Socket, id: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (buffered.length < 2) return;
        const opcode = (buffered[0] as number) & 0x0f;
        let length = (buffered[1] as number) & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffered.length < 4) return;
          length = buffered.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffered.length < 10) return;
          length = Number(buffered.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffered.length < offset + length) return;
        const payload = buffered.subarray(offset, offset + length);
        buffered = buffered.subarray(offset + length);
        if (opcode !== 0x1) continue;
        const message = JSON.parse(payload.toString()) as { id?: unknown };
        if (message.id === id) {
          socket.off('data', onData);
          resolve(message);
          return;
        }
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`the server closed the connection before answering request ${id}`)));
  });
}

/** A client-to-server text frame (masked, as RFC 6455 §5.3 requires of clients). */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x81, 0x80 | length])
      : length < 65536
        ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), bigLength(length)]);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([header, mask, masked]);
}

function bigLength(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/** Resolves when the socket closes (the server dropped it), or with false after `ms`. */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on('error', () => undefined);
    socket.resume();
  });
}
