/**
 * Which sandbox runs a tool, and what it returned (host contract "Sandbox expectations"; DESIGN §5):
 * - a capability the host opted out (`sandbox.optOut`, for capabilities it ships itself) always runs
 *   without a sandbox: NoSandbox, reported as `sandbox: 'none'`;
 * - else the host's own sandbox (`sandbox.use`) when it gave one, else the platform's
 *   (E_SANDBOX_UNAVAILABLE without one: never a silent fallback to running unconfined);
 * - whatever a sandbox's wrap() returns is checked before anything is spawned: a command, string
 *   arguments and the complete environment. Nothing of this process's environment is ever added:
 *   a wrap() that returns no environment is refused (E_HOST_CALLBACK), not run with ours.
 */
import { AdcapError } from '../errors.js';
import { NoSandbox } from '../sandbox/none.js';
import type { Sandbox, SandboxSpec, WrappedCommand } from '../sandbox/sandbox.js';
import { defaultSandbox } from '../sandbox/select.js';
import type { RunContext } from './context.js';
import { callHost } from '../util/host-call.js';

export async function chooseSandbox(arc: Pick<RunContext, 'sandboxChoice' | 'home'>, id: string): Promise<Sandbox> {
  const choice = arc.sandboxChoice;
  const optOut = choice.optOut;
  const optedOut =
    typeof optOut === 'function' ? (await callHost('sandbox.optOut', () => optOut(id))) === true : (optOut ?? []).includes(id);
  if (optedOut) return new NoSandbox();
  const use = choice.use;
  if (use !== undefined) {
    const works =
      use.available === undefined
        ? true
        : await callHost(`sandbox "${String(use.name)}" available()`, () => (use.available as () => boolean | Promise<boolean>).call(use));
    if (works !== true) {
      throw new AdcapError(
        'E_SANDBOX_UNAVAILABLE',
        `The sandbox "${String(use.name)}" the host chose does not work on this computer, so tools cannot run; fix it or choose another.`,
        {
          details: { sandbox: String(use.name) },
        },
      );
    }
    return use;
  }
  // A probe that succeeded is remembered in the home with the machine facts it holds for
  // (bubblewrap.ts probeFacts): the next process skips starting bwrap once just to see it works.
  return defaultSandbox(process.platform, { probeRecord: arc.home.sandboxProbeFile });
}

/** Calls `sandbox.wrap(spec)` and checks the result (E_HOST_CALLBACK naming what is wrong). */
export async function wrapChecked(sandbox: Sandbox, spec: SandboxSpec): Promise<WrappedCommand> {
  const name = String(sandbox.name);
  const value: unknown = await callHost(`sandbox "${name}" wrap()`, () => sandbox.wrap(spec));
  const wrong = (problem: string): AdcapError =>
    new AdcapError(
      'E_HOST_CALLBACK',
      `The sandbox "${name}" returned an unusable command from wrap(): ${problem}. Tools cannot run until the host fixes it.`,
      {
        details: { callback: 'sandbox.wrap', sandbox: name },
      },
    );
  if (typeof value !== 'object' || value === null) throw wrong('it must return { command, args, env, cleanup? }');
  const w = value as Record<string, unknown>;
  if (typeof w.command !== 'string' || w.command === '') throw wrong('"command" must be a non-empty string');
  if (!Array.isArray(w.args) || !w.args.every((a) => typeof a === 'string')) throw wrong('"args" must be an array of strings');
  if (typeof w.env !== 'object' || w.env === null || Array.isArray(w.env)) {
    throw wrong('"env" must be the complete environment for the tool (an object of strings); the SDK never adds its own');
  }
  for (const [key, val] of Object.entries(w.env)) {
    if (typeof val !== 'string' || key === '' || key.includes('=') || key.includes('\0') || val.includes('\0'))
      throw wrong(`"env" has an entry ${JSON.stringify(key)} that is not a NAME=string pair`);
  }
  if (w.cwd !== undefined && (typeof w.cwd !== 'string' || w.cwd === '')) throw wrong('"cwd" must be a path');
  // 'ignore' keeps a descriptor number free (the SDK's bubblewrap uses it to line up descriptors it
  // closes before the tool starts).
  if (
    w.stdioExtra !== undefined &&
    (!Array.isArray(w.stdioExtra) || !w.stdioExtra.every((fd) => fd === 'ignore' || (Number.isSafeInteger(fd) && (fd as number) >= 0)))
  ) {
    throw wrong('"stdioExtra" must be an array of open file descriptors (or "ignore")');
  }
  if (w.cleanup !== undefined && typeof w.cleanup !== 'function') throw wrong('"cleanup" must be a function');
  return value as WrappedCommand;
}

/** Runs a wrapped command's cleanup(), if it has one; its failure is not the run's. */
export async function cleanupWrapped(wrapped: WrappedCommand | undefined): Promise<void> {
  if (wrapped?.cleanup === undefined) return;
  try {
    await wrapped.cleanup();
  } catch {
    // A failing cleanup leaves temp files behind; it does not change the tool's result.
  }
}
