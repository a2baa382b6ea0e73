/**
 * What the Electron window adds to the host API (DESIGN §2): native pickers, files and
 * links the operating system hands to the app, and the prompt for a secret a tool needs. These
 * methods are answered by the main process itself (they need its dialogs, its window and
 * `safeStorage`); every other call goes through to the host service in the utility process.
 *
 * The preload exposes `window.arcotheon = { call, subscribe, desktop }`: `call`/`subscribe` are
 * the two primitives `createHostClient` needs (host.ts in the renderer), `desktop` is the small
 * typed bridge below. The browser transport has no `desktop`: the renderer shows its typed-path
 * and upload forms there instead.
 *
 * Types and plain data only (the renderer imports this file).
 */
import { args, nullable, string, type ArgsSchema } from './schema.js';
import type { Result, SideloadFile, WorkspaceHandle } from './types.js';
import type { CallFn, SubscribeFn } from './client.js';

/**
 * Something the operating system asked the app to open. Neither kind installs anything: the
 * renderer shows the verified install dialog (plan, signer, warnings) and the user decides.
 */
export type OpenRequest =
  /** An `arcotheon://install/<publisher>/<name>[@range]` link; `spec` is `publisher/name[@range]`. */
  | { kind: 'install'; spec: string }
  /** A `.adcap` file opened from the file manager, already handed to the host as a sideload. */
  | { kind: 'sideload'; file: SideloadFile }
  /** A file or link that could not be opened; `message` says why, for a notice. */
  | { kind: 'refused'; message: string };

/** A tool needs the value of an `env:read:<variable>` grant the app does not hold yet. */
export interface SecretRequest {
  request: string;
  capability: string;
  tool: string;
  variable: string;
  /** Whether the answer is kept (encrypted with the OS keychain) or used for this run only. */
  kept: boolean;
  /** Why values are not kept, in the first prompt that asks without keeping. */
  notice?: string;
}

export type DesktopEvent = { type: 'open'; request: OpenRequest } | { type: 'secret'; request: SecretRequest };

const requestId = string({ pattern: /^sr_[A-Za-z0-9_-]{16,64}$/, what: 'a secret request id' });
/** A secret is one line of at most 16 KiB (API keys, tokens); null declines. */
const secretValue = nullable(string({ min: 1, max: 16_384, pattern: /^[^\r\n\0]+$/, what: 'a one-line secret value' }));

/** The main process's own methods: argument schemas, checked by the IPC router like the host's. */
export const DESKTOP_METHODS = {
  /** The native folder picker; null when the user cancelled. The page never names the path. */
  'desktop.pickWorkspace': args([]),
  /** The native file picker for a `.adcap` file, sent to the host as a sideload; null when cancelled. */
  'desktop.pickSideload': args([]),
  /** Files and links that arrived before the page listened (the file that launched the app). */
  'desktop.takeOpenRequests': args([]),
  /** The user's answer to a `secret` event: the value (kept with safeStorage) or null to decline. */
  'desktop.provideSecret': args([requestId, secretValue]),
} as const satisfies Record<string, ArgsSchema<unknown[]>>;

export type DesktopMethod = keyof typeof DESKTOP_METHODS;

export function isDesktopMethod(value: unknown): value is DesktopMethod {
  return typeof value === 'string' && Object.hasOwn(DESKTOP_METHODS, value);
}

export interface DesktopBridge {
  pickWorkspace(): Promise<Result<WorkspaceHandle | null>>;
  pickSideload(): Promise<Result<SideloadFile | null>>;
  takeOpenRequests(): Promise<Result<OpenRequest[]>>;
  provideSecret(request: string, value: string | null): Promise<Result<null>>;
  /** Open requests and secret prompts; returns the function that stops listening. */
  subscribe(listener: (event: DesktopEvent) => void): () => void;
}

/** `window.arcotheon` in the Electron window. */
export interface PreloadBridge {
  call: CallFn;
  subscribe: SubscribeFn;
  desktop: DesktopBridge;
}

/** Channel names between the preload and the main process (one place, both sides import it). */
export const IPC = {
  /** invoke(method, args) -> Result: host and desktop methods. */
  call: 'arcotheon:call',
  /** main -> window: a HostEvent. */
  hostEvent: 'arcotheon:host-event',
  /** main -> window: a DesktopEvent. */
  desktopEvent: 'arcotheon:desktop-event',
} as const;
