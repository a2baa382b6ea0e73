/**
 * Choosing the sandbox for a platform (host contract "Sandbox expectations"; DESIGN §5, §9
 * E_SANDBOX_UNAVAILABLE). A missing sandbox is an error unless the host opted out: never a silent
 * fallback to running unconfined.
 */
import { AdcapError } from '../errors.js';
import { BubblewrapSandbox, type BubblewrapOptions } from './bubblewrap.js';
import { NoSandbox } from './none.js';
import type { Sandbox } from './sandbox.js';
import { SandboxExecSandbox } from './sandbox-exec.js';

/** Options of `defaultSandbox()`. */
export interface DefaultSandboxOptions extends BubblewrapOptions {
  /**
   * The host runs tools unconfined when no sandbox works. Only for capabilities the host ships
   * itself; the host carries the risk.
   */
  optOut?: boolean;
  /** The sandbox-exec program to use on macOS (default /usr/bin/sandbox-exec). */
  sandboxExecPath?: string;
}

/**
 * The platform's sandbox when it works here (bubblewrap on Linux, sandbox-exec on macOS);
 * E_SANDBOX_UNAVAILABLE otherwise, unless the host opts out.
 */
export async function defaultSandbox(platform: NodeJS.Platform = process.platform, options: DefaultSandboxOptions = {}): Promise<Sandbox> {
  let candidate: BubblewrapSandbox | SandboxExecSandbox | null = null;
  let missing: string;
  if (platform === 'linux') {
    candidate = new BubblewrapSandbox(options);
    missing =
      'bubblewrap does not work on this machine: install bubblewrap 0.8 or newer ' +
      '(package "bubblewrap") and make sure unprivileged user namespaces are enabled';
  } else if (platform === 'darwin') {
    candidate =
      options.sandboxExecPath === undefined
        ? new SandboxExecSandbox()
        : new SandboxExecSandbox({ sandboxExecPath: options.sandboxExecPath });
    missing = '/usr/bin/sandbox-exec does not work on this Mac';
  } else if (platform === 'win32') {
    missing = 'Windows has no native sandbox for tools yet';
  } else {
    missing = `there is no sandbox for the ${platform} platform`;
  }
  if (candidate !== null && (await candidate.available())) return candidate;
  if (options.optOut === true) return new NoSandbox();
  throw new AdcapError(
    'E_SANDBOX_UNAVAILABLE',
    `Tools cannot run because ${missing}; fix that, or (for capabilities the host ships itself) let the host opt out of sandboxing.`,
    { details: { platform } },
  );
}
