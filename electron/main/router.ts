/**
 * The main process's IPC router (STYLE "GitHub Desktop ... one typed map"): every
 * message from the window is checked in this order before anything runs:
 *   1. the sender: the app's own window, its main frame, the app:// origin (policy.ts);
 *   2. the method: one of the shared host API table (electron/common/methods.ts) or one of the
 *      main process's own desktop methods (electron/common/desktop.ts), nothing else;
 *   3. the arguments: the table's schemas.
 * Host methods then go to the utility process; desktop methods are answered here. A refusal is a
 * Result with a stable code, never a thrown error (errors lose their fields across IPC).
 *
 * Also the main side of the utility channel: request ids, pending calls, and what happens to them
 * when the utility process exits.
 */
import { DESKTOP_METHODS, isDesktopMethod, type DesktopMethod, type OpenRequest } from '../common/desktop.js';
import { checkArguments, isHostMethod, type HostMethod } from '../common/methods.js';
import type { ErrorCode, Result, SideloadFile, WorkspaceHandle } from '../common/types.js';
import type { HostEvent } from '../common/events.js';
import { isTrustedSender, type SenderInfo } from './policy.js';
import { parseFromUtility, type ToUtility } from '../shared/utility-protocol.js';

const failure = (code: ErrorCode, message: string): Result<never> => ({ ok: false, error: { code, message } });

/** What main answers itself (native dialogs, OS hand-over, secret prompts). */
export interface DesktopHandlers {
  pickWorkspace(): Promise<Result<WorkspaceHandle | null>>;
  pickSideload(): Promise<Result<SideloadFile | null>>;
  takeOpenRequests(): Result<OpenRequest[]>;
  provideSecret(request: string, value: string | null): Result<null>;
}

interface RouterOptions {
  /** Forwards a checked host call to the utility process. */
  host(method: HostMethod, args: unknown[]): Promise<Result<unknown>>;
  desktop: DesktopHandlers;
  /** The WebContents id of the app's window; null before it exists or after it closed. */
  windowWebContentsId(): number | null;
  /** Told about every refusal (method name and reason only: arguments may hold secrets). */
  onRefused?(reason: string): void;
}

type Router = (sender: SenderInfo, method: unknown, args: unknown) => Promise<Result<unknown>>;

export function createIpcRouter(options: RouterOptions): Router {
  const refuse = (code: ErrorCode, message: string): Result<never> => {
    options.onRefused?.(message);
    return failure(code, message);
  };
  return async (sender, method, args) => {
    if (!isTrustedSender(sender, options.windowWebContentsId())) {
      return refuse('E_DENIED', 'Only the Arcotheon window may call the Arcotheon host; this frame was refused.');
    }
    if (!Array.isArray(args)) return refuse('E_USAGE', 'The arguments of a host call must be an array.');
    if (isDesktopMethod(method)) {
      const problem = DESKTOP_METHODS[method].check(args, 'args');
      if (problem !== null) return refuse('E_USAGE', `${method}: ${problem}.`);
      return runDesktop(options.desktop, method, args);
    }
    if (!isHostMethod(method)) {
      const name = typeof method === 'string' ? method.slice(0, 64).replace(/[^\w.-]/g, '?') : typeof method;
      return refuse('E_USAGE', `"${name}" is not a method of the Arcotheon host API.`);
    }
    const problem = checkArguments(method, args);
    if (problem !== null) return refuse('E_USAGE', problem);
    return options.host(method, args);
  };
}

function runDesktop(desktop: DesktopHandlers, method: DesktopMethod, args: unknown[]): Promise<Result<unknown>> | Result<unknown> {
  switch (method) {
    case 'desktop.pickWorkspace':
      return desktop.pickWorkspace();
    case 'desktop.pickSideload':
      return desktop.pickSideload();
    case 'desktop.takeOpenRequests':
      return desktop.takeOpenRequests();
    case 'desktop.provideSecret':
      return desktop.provideSecret(args[0] as string, args[1] as string | null);
  }
}

interface UtilityChannelOptions {
  /** `child.postMessage`. */
  post(message: ToUtility): void;
  /** A HostEvent from the service, for the window. */
  onEvent(event: HostEvent): void;
  /** A tool needs a secret: resolve with its value, or null. */
  onSecret(request: { capability: string; tool: string; variable: string }): Promise<string | null>;
  /**
   * Keep a value the user gave at install (an MCP Bundle's setting) for `capability`'s `variable`;
   * resolves with whether it is kept (false without a keychain: the app then asks at the first run).
   */
  onSecretStore?(request: { capability: string; variable: string; value: string }): Promise<boolean>;
}

/**
 * The main side of the utility channel. `call` resolves with the service's Result; when the
 * utility process exits, every pending call resolves with E_IO and later calls wait for
 * `restarted()` (main.ts forks a new one).
 */
export class UtilityChannel {
  readonly #options: UtilityChannelOptions;
  readonly #pending = new Map<number, (result: Result<unknown>) => void>();
  #next = 0;
  #ready: Promise<void>;
  #markReady!: () => void;
  #up = false;

  constructor(options: UtilityChannelOptions) {
    this.#options = options;
    this.#ready = new Promise((resolve) => (this.#markReady = resolve));
  }

  /** Resolves once the service said it is ready. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  call(method: HostMethod, args: unknown[]): Promise<Result<unknown>> {
    return this.#ready.then(
      () =>
        new Promise<Result<unknown>>((resolve) => {
          const id = ++this.#next;
          this.#pending.set(id, resolve);
          try {
            this.#options.post({ kind: 'call', id, method, args });
          } catch (error) {
            this.#pending.delete(id);
            resolve(
              failure('E_IO', `The Arcotheon service could not be reached (${error instanceof Error ? error.message : String(error)}).`),
            );
          }
        }),
    );
  }

  /** `child.on('message')`: anything malformed is dropped. */
  receive(raw: unknown): void {
    const message = parseFromUtility(raw);
    if (message === null) return;
    switch (message.kind) {
      case 'ready':
        this.#up = true;
        this.#markReady();
        return;
      case 'result': {
        const resolve = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        resolve?.(message.result);
        return;
      }
      case 'event':
        this.#options.onEvent(message.event);
        return;
      case 'secret': {
        const { id, capability, tool, variable } = message;
        void this.#options
          .onSecret({ capability, tool, variable })
          .catch(() => null)
          .then((value) => {
            try {
              this.#options.post({ kind: 'secret-answer', id, value });
            } catch {
              // The utility process is gone; its run failed with it.
            }
          });
        return;
      }
      case 'secret-store': {
        const { id, capability, variable, value } = message;
        void (this.#options.onSecretStore?.({ capability, variable, value }) ?? Promise.resolve(false))
          .catch(() => false)
          .then((kept) => {
            try {
              this.#options.post({ kind: 'secret-stored', id, kept });
            } catch {
              // The utility process is gone.
            }
          });
        return;
      }
    }
  }

  /** `child.on('exit')`: pending calls fail with a sentence; new calls wait for the next `ready`. */
  exited(code: number): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of pending)
      resolve(
        failure('E_IO', `The Arcotheon service stopped (exit code ${code}) while working on this; it restarts by itself, so try again.`),
      );
    if (this.#up) {
      this.#up = false;
      this.#ready = new Promise((resolve) => (this.#markReady = resolve));
    }
  }
}
