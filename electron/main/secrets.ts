/**
 * The desktop app's secrets for env:read permissions (DESIGN §5 "the app asks you for
 * its value"): values are encrypted with Electron's `safeStorage` (the OS keychain: Keychain on
 * macOS, DPAPI on Windows, libsecret/kwallet on Linux) and kept in one file of ciphertexts. The
 * first time a granted tool needs a value the window asks the user; the answer is stored and
 * handed only to that capability's tool run. Values are never logged and never sent to the page.
 */
import { randomBytes } from 'node:crypto';
import { FileSecretStore, type SecretStore } from '@arcotheon/sdk';
import { VARIABLE_NAME } from '@arcotheon/sdk/internal';
import type { SecretRequest } from '../common/desktop.js';

/** What main.ts passes in: Electron's `safeStorage`, narrowed to what is used. */
export interface Encryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(cipher: Buffer): string;
  /** Linux only: the backend in use ("basic_text", "gnome_libsecret", "kwallet5", ...; "unknown" before ready). */
  getSelectedStorageBackend?(): string;
}

/**
 * Said once, in the first prompt, when values cannot be kept (SECURITY.md "The desktop app").
 * Electron's `basic_text` backend "encrypts" with a key built into Chromium, so its ciphertext is
 * as readable as plain text to anyone who can read the file.
 */
export const NOT_KEPT_NOTICE =
  'This computer has no keychain Arcotheon can use (no GNOME Keyring or KWallet is running), so Arcotheon does not save ' +
  'secret values: it asks for a value each time a tool needs it. Start or install a keyring to have values remembered.';

/**
 * A SecretStore whose file holds only ciphertexts (base64 of `safeStorage.encryptString`), in the
 * same 0600 JSON layout as the CLI's store. When the OS offers no encryption (a Linux session
 * without a keyring), nothing is stored: the value is used for this run and asked again next time.
 */
export class SafeSecretStore implements SecretStore {
  readonly #file: FileSecretStore;
  readonly #crypto: Encryptor;

  readonly #platform: NodeJS.Platform;

  constructor(file: string, crypto: Encryptor, platform: NodeJS.Platform = process.platform) {
    this.#file = new FileSecretStore(file);
    this.#crypto = crypto;
    this.#platform = platform;
  }

  get file(): string {
    return this.#file.file;
  }

  /**
   * Whether values survive a restart: the OS offers real encryption. On Linux, safeStorage reports
   * encryption available with its `basic_text` fallback too (a key built into Chromium, so no
   * protection at all); that, or a backend not known yet, counts as none.
   */
  get persistent(): boolean {
    if (!this.#crypto.isEncryptionAvailable()) return false;
    if (this.#platform !== 'linux' || this.#crypto.getSelectedStorageBackend === undefined) return true;
    const backend = this.#crypto.getSelectedStorageBackend();
    return backend !== 'basic_text' && backend !== 'unknown';
  }

  async get(capability: string, variable: string): Promise<string | undefined> {
    const sealed = await this.#file.get(capability, variable);
    if (sealed === undefined || !this.persistent) return undefined;
    try {
      return this.#crypto.decryptString(Buffer.from(sealed, 'base64'));
    } catch {
      // Sealed under another OS account or keyring: as if absent, so the user is asked again.
      return undefined;
    }
  }

  async set(capability: string, variable: string, value: string): Promise<void> {
    if (!this.persistent) {
      // A value kept under an earlier backend is not left behind when the user gives a new one.
      await this.#file.delete(capability, variable);
      return;
    }
    await this.#file.set(capability, variable, this.#crypto.encryptString(value).toString('base64'));
  }

  delete(capability: string, variable: string): Promise<boolean> {
    return this.#file.delete(capability, variable);
  }

  list(): Promise<Array<{ capability: string; variable: string }>> {
    return this.#file.list();
  }
}

interface SecretBrokerOptions {
  store: SecretStore;
  /** Shows the prompt in the window; false when there is no window to ask in. */
  ask(request: SecretRequest): boolean;
  /** How long a prompt waits for the user (default 10 minutes); then the tool runs without it. */
  timeoutMs?: number;
}

/**
 * Answers the utility process's `secret` messages: the stored value, else one prompt in the
 * window (answered through `desktop.provideSecret`), stored when given. One prompt per
 * capability and variable at a time; a declined or unanswered prompt leaves the variable unset.
 */
export class SecretBroker {
  readonly #options: SecretBrokerOptions;
  readonly #waiting = new Map<string, { key: string; resolve: (value: string | null) => void; timer: NodeJS.Timeout }>();
  readonly #inFlight = new Map<string, Promise<string | null>>();
  #toldNotKept = false;

  constructor(options: SecretBrokerOptions) {
    this.#options = options;
  }

  resolve(request: { capability: string; tool: string; variable: string }): Promise<string | null> {
    if (!VARIABLE_NAME.test(request.variable)) return Promise.resolve(null);
    const key = `${request.capability} ${request.variable}`;
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const work = this.#lookup(key, request).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, work);
    return work;
  }

  async #lookup(key: string, request: { capability: string; tool: string; variable: string }): Promise<string | null> {
    const stored = await this.#options.store.get(request.capability, request.variable);
    if (stored !== undefined) return stored;
    const id = `sr_${randomBytes(18).toString('base64url')}`;
    const answer = new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => this.#settle(id, null), this.#options.timeoutMs ?? 600_000);
      timer.unref();
      this.#waiting.set(id, { key, resolve, timer });
    });
    // A store that cannot keep values (SafeSecretStore without a real keychain) says so in the first prompt only.
    const kept = (this.#options.store as { persistent?: boolean }).persistent ?? true;
    const notice = !kept && !this.#toldNotKept ? { notice: NOT_KEPT_NOTICE } : {};
    const asked = this.#options.ask({ request: id, ...request, kept, ...notice });
    if (asked && !kept) this.#toldNotKept = true;
    if (!asked) this.#settle(id, null);
    const value = await answer;
    if (value !== null) await this.#options.store.set(request.capability, request.variable, value);
    return value;
  }

  /** The page's answer; false for an unknown or already answered request. */
  provide(request: string, value: string | null): boolean {
    return this.#settle(request, value);
  }

  /** The window went away: every open prompt is declined. */
  declineAll(): void {
    for (const id of [...this.#waiting.keys()]) this.#settle(id, null);
  }

  /** Open prompt ids (for tests and the window's reload). */
  get pending(): string[] {
    return [...this.#waiting.keys()];
  }

  #settle(id: string, value: string | null): boolean {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return false;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(value);
    return true;
  }
}
