/**
 * Files and links handed to the app, from the first launch, a second launch (single-instance
 * hand-over) or macOS's open-file/open-url events, turned into `OpenRequest`s for the page's
 * install dialog. A link becomes a spec after strict parsing; a `.adcap` file is sent
 * to the host service as a sideload (the same path as a file the user picked), so the page only
 * ever sees a handle and the host verifies it before anything is shown. Nothing here installs.
 *
 * Requests that arrive before the page listens (the file that launched the app) wait in a short
 * queue the page takes with `desktop.takeOpenRequests`.
 */
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { OpenRequest } from '../common/desktop.js';
import type { HostMethod } from '../common/methods.js';
import type { Result, SideloadFile, SideloadUpload } from '../common/types.js';
import { isOpenedFile, openTargetsFromArgv, parseInstallLink, type OpenTarget } from './links.js';

/** The host service as main reaches it (the utility process). */
type HostCall = (method: HostMethod, args: unknown[]) => Promise<Result<unknown>>;

/** At most this many requests wait for the page; older ones are dropped first. */
export const OPEN_QUEUE_LIMIT = 16;

const refused = (message: string): OpenRequest => ({ kind: 'refused', message });

/**
 * Sends the file at `file` to the host as a sideload through the same `sideload.begin/chunk/commit`
 * methods the browser uses, so the host's size cap and verification apply unchanged.
 */
export async function sideloadFile(host: HostCall, file: string): Promise<Result<SideloadFile>> {
  const name = path.basename(file);
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile())
    return { ok: false, error: { code: 'E_NOT_FOUND', message: `${name} is not a file that can be opened.` } };
  if (info.size === 0) return { ok: false, error: { code: 'E_GZIP', message: `${name} is empty, so it is not an Arcotheon package.` } };
  const begun = (await host('sideload.begin', [{ name: name.slice(0, 255), size: info.size }])) as Result<SideloadUpload>;
  if (!begun.ok) return begun;
  const { upload, maxBytes, chunkBytes } = begun.value;
  if (info.size > maxBytes) {
    await host('sideload.abort', [upload]);
    return {
      ok: false,
      error: {
        code: 'E_LIMIT',
        message: `${name} is larger than the ${Math.floor(maxBytes / 1024 / 1024)} MiB a sideloaded package may be.`,
      },
    };
  }
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(chunkBytes);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, offset);
      if (bytesRead === 0) break;
      const sent = await host('sideload.chunk', [upload, offset, buffer.subarray(0, bytesRead).toString('base64')]);
      if (!sent.ok) {
        await host('sideload.abort', [upload]);
        return sent;
      }
      offset += bytesRead;
      if (offset > maxBytes) break;
    }
  } finally {
    await handle.close();
  }
  return (await host('sideload.commit', [upload])) as Result<SideloadFile>;
}

/** One target from the operating system, as the page will see it. */
export async function openRequestFor(host: HostCall, target: OpenTarget): Promise<OpenRequest> {
  if (target.kind === 'link') {
    const link = parseInstallLink(target.url);
    return link.ok ? { kind: 'install', spec: link.spec } : refused(link.message);
  }
  if (!isOpenedFile(target.path)) return refused('Arcotheon opens .adcap packages and .mcpb MCP Bundles only.');
  const sent = await sideloadFile(host, target.path);
  return sent.ok ? { kind: 'sideload', file: sent.value } : refused(sent.error.message);
}

interface OpenDispatcherOptions {
  host: HostCall;
  /** Sends a request to the page; called only while the page listens. */
  deliver(request: OpenRequest): void;
  /** Restores, shows and focuses the window (a second launch brings the first to the front). */
  focus(): void;
}

export class OpenDispatcher {
  readonly #options: OpenDispatcherOptions;
  #queue: OpenRequest[] = [];
  #listening = false;
  /** Serialises opens so requests reach the page in the order they arrived. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(options: OpenDispatcherOptions) {
    this.#options = options;
  }

  /** Opens targets in order; resolves when each has been delivered or queued. */
  open(targets: readonly OpenTarget[]): Promise<void> {
    const next = this.#chain.then(async () => {
      for (const target of targets) this.#push(await openRequestFor(this.#options.host, target));
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /**
   * A second launch (`app.on('second-instance')`): the first instance comes to the front and
   * takes over the files and links of the second one's command line.
   */
  secondInstance(argv: readonly string[], cwd: string, skip: number): Promise<void> {
    this.#options.focus();
    return this.open(openTargetsFromArgv(argv, cwd, { skip }));
  }

  /** The page asks for what arrived before it listened; from now on requests are pushed. */
  take(): OpenRequest[] {
    this.#listening = true;
    const queued = this.#queue;
    this.#queue = [];
    return queued;
  }

  /** Whether the page took its requests since it last loaded (it handles desktop events). */
  get listening(): boolean {
    return this.#listening;
  }

  /** The page reloaded or navigated: queue again until it asks. */
  pageGone(): void {
    this.#listening = false;
  }

  #push(request: OpenRequest): void {
    if (this.#listening) {
      this.#options.deliver(request);
      return;
    }
    this.#queue.push(request);
    if (this.#queue.length > OPEN_QUEUE_LIMIT) this.#queue.splice(0, this.#queue.length - OPEN_QUEUE_LIMIT);
  }
}
