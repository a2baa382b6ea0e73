/**
 * No sandbox: the host opted out (host contract "Sandbox expectations": only for capabilities the
 * host ships itself; the host carries the risk). The tool still gets the minimal environment of
 * DESIGN §5 (env:read is applied), but nothing else is enforced: it can read and write whatever
 * the user can, and reach the network.
 */
import path from 'node:path';
import { sandboxEnv } from './common.js';
import { interpretGrants, type Sandbox, type SandboxSpec, type OwnedWrappedCommand } from './sandbox.js';

/** No confinement: tools run as plain child processes. Only for hosts that opt out (E_SANDBOX_UNAVAILABLE otherwise). */
export class NoSandbox implements Sandbox {
  /** Always `'none'`, as tool results report it. */
  readonly name = 'none' as const;

  /** Always true: running unconfined needs nothing. */
  available(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** The tool's own command with the minimal environment its grants allow, and no confinement. */
  wrap(spec: SandboxSpec): Promise<OwnedWrappedCommand> {
    const grants = interpretGrants(spec.grants, spec.home);
    const env = sandboxEnv(spec, grants, { home: path.resolve(spec.home), tmp: spec.tmpDir });
    const hostPath = spec.env.PATH;
    if (hostPath !== undefined) env.PATH = hostPath;
    return Promise.resolve({
      command: spec.command,
      args: [...spec.args],
      env,
      cwd: spec.cwd ?? spec.capabilityDir,
      cleanup: () => Promise.resolve(),
    });
  }
}
