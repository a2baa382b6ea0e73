/**
 * Who may use the `arcotheon ui` API (SECURITY.md "The local UI server"; docs/host-api.md).
 *
 * No long-lived secret ever goes on a command line, where every local user can read it in /proc:
 *
 * - A **sign-in code** is random, works once and for a few minutes (`codeTtlMs`). The address
 *   `http://127.0.0.1:<port>/signin?code=…` exchanges it for a session; a second use is refused,
 *   and (as RFC 6749 §4.1.2 asks of a reused authorization code) it also ends the session the
 *   first use started, in case the first use was not the user's.
 * - A **session** is a random secret in an `HttpOnly`, `SameSite=Strict` cookie named after the
 *   port (`arcotheon_session_<port>`: cookies are not port-scoped, so the name binds it). Every tab
 *   of that browser sends it. The server keeps only its SHA-256, with the port, in
 *   `<home>/ui/sessions.json` (mode 0600, written atomically), so a server restarted on the same
 *   home and port honours it; the same file remembers the port, which a restart tries first.
 *   A session ends after `idleMs` without use or `maxAgeMs` after sign-in.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface UiSessionsOptions {
  /** Where sessions are kept across restarts (absent: in memory only). */
  file?: string;
  /** How long a sign-in code works (default 5 minutes). */
  codeTtlMs?: number;
  /** A session unused this long ends (default 12 hours). */
  idleMs?: number;
  /** A session ends this long after sign-in whatever its use (default 7 days). */
  maxAgeMs?: number;
  log?: (message: string) => void;
}

export type SignInOutcome =
  { kind: 'signed-in'; cookie: string } | { kind: 'already-signed-in' } | { kind: 'used' } | { kind: 'expired' } | { kind: 'unknown' };

interface Code {
  expiresAt: number;
  /** The session the code started (its hash), once used. */
  session: string | null;
}

interface Session {
  port: number;
  created: number;
  lastUsed: number;
  /** lastUsed as last written to the file (the file is rewritten at most every few minutes per use). */
  saved: number;
}

interface SessionFile {
  version: 1;
  lastPort: number | null;
  sessions: Array<{ hash: string; port: number; created: string; lastUsed: string }>;
}

const MAX_CODES = 64;
const MAX_SESSIONS = 64;
/** A used code is remembered this long after it expired, so a late reuse is still recognised. */
const USED_CODE_MEMORY_MS = 60 * 60 * 1000;
const SAVE_LAST_USED_EVERY_MS = 10 * 60 * 1000;

const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** The session cookie of the server on `port` (the port is in the name: cookies are not port-scoped). */
export const sessionCookieName = (port: number): string => `arcotheon_session_${port}`;

/** The value of cookie `name` in a Cookie request header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export class UiSessions {
  private readonly codes = new Map<string, Code>();
  private readonly sessions = new Map<string, Session>();
  private readonly revokeListeners = new Set<(session: string) => void>();
  private port = 0;
  private remembered: number | null = null;
  private saving: Promise<void> = Promise.resolve();
  private readonly codeTtlMs: number;
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly log: (message: string) => void;

  private constructor(private readonly options: UiSessionsOptions) {
    this.codeTtlMs = options.codeTtlMs ?? 5 * 60 * 1000;
    this.idleMs = options.idleMs ?? 12 * 60 * 60 * 1000;
    this.maxAgeMs = options.maxAgeMs ?? 7 * 24 * 60 * 60 * 1000;
    this.log = options.log ?? (() => undefined);
  }

  /** Reads the sessions kept by an earlier server on this home (a missing or unreadable file is an empty one). */
  static async open(options: UiSessionsOptions): Promise<UiSessions> {
    const store = new UiSessions(options);
    const file = await store.readFile();
    store.remembered = file.lastPort;
    const now = Date.now();
    for (const entry of file.sessions) {
      const created = Date.parse(entry.created);
      const lastUsed = Date.parse(entry.lastUsed);
      if (Number.isNaN(created) || Number.isNaN(lastUsed)) continue;
      store.sessions.set(entry.hash, { port: entry.port, created, lastUsed, saved: lastUsed });
    }
    store.prune(now);
    return store;
  }

  /** The port the last server on this home listened on (a restart tries it first), or null. */
  rememberedPort(): number | null {
    return this.remembered;
  }

  /** Binds the store to the port the server listens on, and remembers it for the next start. */
  async listening(port: number): Promise<void> {
    this.port = port;
    if (this.remembered !== port) {
      this.remembered = port;
      await this.save();
    }
  }

  /** A new one-time sign-in code. */
  issueCode(): string {
    const code = randomBytes(32).toString('base64url');
    this.prune(Date.now());
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    this.codes.set(digest(code), { expiresAt: Date.now() + this.codeTtlMs, session: null });
    return code;
  }

  /**
   * Exchanges a sign-in code for a session. `presented` is the session cookie the request already
   * carries: a browser that is signed in is sent on without using the code.
   */
  async exchange(code: string, presented: string | null): Promise<SignInOutcome> {
    if (presented !== null && this.check(presented)) return { kind: 'already-signed-in' };
    const now = Date.now();
    const key = digest(code);
    const entry = this.codes.get(key);
    if (entry === undefined) return { kind: 'unknown' };
    if (entry.session !== null) {
      // RFC 6749 §4.1.2: a code used twice ends what its first use started.
      this.revoke(entry.session);
      await this.save();
      return { kind: 'used' };
    }
    if (entry.expiresAt <= now) return { kind: 'expired' };
    const secret = randomBytes(32).toString('base64url');
    const session = digest(secret);
    entry.session = session;
    this.sessions.set(session, { port: this.port, created: now, lastUsed: now, saved: now });
    this.prune(now);
    // The session is live at once; its record is written behind the answer (two disk syncs the page's
    // first load would wait for), and close() waits for it (flush). Lost by a crash before it lands,
    // the session only ends: the browser is told to sign in again. An ended session (above) is
    // written before the answer.
    void this.save();
    return { kind: 'signed-in', cookie: secret };
  }

  /** Whether `secret` (a session cookie's value) is a live session of this port; marks it used. */
  check(secret: string): boolean {
    return this.sessionOf(secret) !== null;
  }

  /** The hash of the live session `secret` names on this port, or null. Marks it used. */
  sessionOf(secret: string): string | null {
    if (secret.length === 0 || secret.length > 128) return null;
    const key = digest(secret);
    const session = this.sessions.get(key);
    const now = Date.now();
    if (session === undefined || session.port !== this.port || !this.live(session, now)) return null;
    session.lastUsed = now;
    if (now - session.saved > SAVE_LAST_USED_EVERY_MS) void this.save();
    return key;
  }

  /** Called with a session's hash when it is ended (its sockets must close). */
  onRevoke(listener: (session: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  /** Waits for pending writes of the session file. */
  async flush(): Promise<void> {
    await this.saving;
  }

  private revoke(session: string): void {
    if (!this.sessions.delete(session)) return;
    this.log('a sign-in address was used twice: the session it started was ended');
    for (const listener of this.revokeListeners) listener(session);
  }

  private live(session: Session, now: number): boolean {
    return now - session.lastUsed < this.idleMs && now - session.created < this.maxAgeMs;
  }

  private prune(now: number): void {
    for (const [key, code] of this.codes) {
      const forgetAt = code.session === null ? code.expiresAt : code.expiresAt + USED_CODE_MEMORY_MS;
      if (forgetAt <= now) this.codes.delete(key);
    }
    for (const [key, session] of this.sessions) if (!this.live(session, now)) this.sessions.delete(key);
    const excess = this.sessions.size - MAX_SESSIONS;
    if (excess > 0) {
      const oldest = [...this.sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed).slice(0, excess);
      for (const [key] of oldest) this.sessions.delete(key);
    }
  }

  private async readFile(): Promise<SessionFile> {
    const empty: SessionFile = { version: 1, lastPort: null, sessions: [] };
    if (this.options.file === undefined) return empty;
    let text: string;
    try {
      text = await readFile(this.options.file, 'utf8');
    } catch {
      return empty;
    }
    try {
      const parsed = JSON.parse(text) as Partial<SessionFile>;
      const sessions = Array.isArray(parsed.sessions)
        ? parsed.sessions.filter(
            (s): s is SessionFile['sessions'][number] =>
              typeof s === 'object' &&
              s !== null &&
              typeof s.hash === 'string' &&
              /^[0-9a-f]{64}$/.test(s.hash) &&
              Number.isInteger(s.port) &&
              typeof s.created === 'string' &&
              typeof s.lastUsed === 'string',
          )
        : [];
      const lastPort = Number.isInteger(parsed.lastPort) && (parsed.lastPort as number) > 0 ? (parsed.lastPort as number) : null;
      return { version: 1, lastPort, sessions };
    } catch {
      this.log(`ignored an unreadable ${this.options.file} (the browser signs in again)`);
      return empty;
    }
  }

  /** Writes this port's sessions, keeping other ports' entries (another server may share the home). */
  private save(): Promise<void> {
    const file = this.options.file;
    if (file === undefined) return Promise.resolve();
    this.saving = this.saving.then(async () => {
      try {
        const now = Date.now();
        const others = (await this.readFile()).sessions.filter((s) => s.port !== this.port && now - Date.parse(s.lastUsed) < this.idleMs);
        const mine = [...this.sessions].map(([hash, s]) => {
          s.saved = s.lastUsed;
          return { hash, port: s.port, created: new Date(s.created).toISOString(), lastUsed: new Date(s.lastUsed).toISOString() };
        });
        const content: SessionFile = { version: 1, lastPort: this.remembered, sessions: [...others, ...mine] };
        await writePrivateFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`);
      } catch (error) {
        this.log(`could not save the UI sessions (${error instanceof Error ? error.message : String(error)}); a restart signs out`);
      }
    });
    return this.saving;
  }
}

/**
 * DESIGN §6 atomic write, private to the user: a temp file created with O_EXCL and mode 0600 in a
 * folder made 0700, fsync, rename over the target, fsync of the folder.
 */
export async function writePrivateFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const folder = await open(dir, constants.O_RDONLY).catch(() => null);
  await folder
    ?.sync()
    .catch(() => undefined)
    .finally(() => void folder.close().catch(() => undefined));
}
