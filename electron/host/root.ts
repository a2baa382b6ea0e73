/**
 * The one composition root of the host (DESIGN §2): the SDK's `Arcotheon` over a home, the host
 * service over it, and the start-up work (the organisation policy applied, then, for the desktop
 * app, doctor once; docs/admin.md, host/startup.ts). The Electron utility process (utility.ts) and
 * `arcotheon ui` (cli.ts) both start the host here and differ only in what they pass: the desktop
 * app's secret channel to the main process, and whether doctor runs at start-up.
 */
import { Arcotheon } from '@arcotheon/sdk';
import { loadEmbeddedRemote } from '@arcotheon/sdk/internal';
import { createHostService, type HostService, type HostServiceOptions } from './service.js';
import { startUp, type StartUpOutcome } from './startup.js';

export interface HostRootOptions {
  /** The Arcotheon home (DESIGN §6). */
  home: string;
  /** The app's version: the agent version the SDK checks compatibility against (spec §11), and host.info's. */
  appVersion: string;
  /**
   * Read for the embedded registry (ARCOTHEON_EMBEDDED_REGISTRY; "" means no default remote) and
   * the organisation policy (ARCOTHEON_POLICY).
   */
  env: NodeJS.ProcessEnv;
  /** Run doctor once after the policy is applied (the desktop app; its banner shows what it found). */
  doctorAtStart: boolean;
  /** One line per thing start-up could not do (terminal control characters replaced). */
  log?: (message: string) => void;
  /** What the service takes besides the app's version (secret sources, sideload cap, ...). */
  service?: Omit<HostServiceOptions, 'appVersion'>;
}

export interface HostRoot {
  service: HostService;
  /** Start-up, in the background: the host serves meanwhile, and the UI follows it through events. */
  startup: Promise<StartUpOutcome>;
}

/** Opens the home, builds the host service over it and begins start-up. */
export async function startHost(options: HostRootOptions): Promise<HostRoot> {
  const embedded = await loadEmbeddedRemote(options.env);
  const arc = new Arcotheon({
    home: options.home,
    host: { agent: { id: 'arcotheon', version: options.appVersion } },
    // As adcap does: no embedded registry means no default remote (an empty list, not a missing
    // one, which would make the SDK fall back to the registry it ships).
    remotes: embedded === null ? [] : [embedded],
    policy: { env: options.env },
  });
  const service = createHostService(arc, { ...options.service, appVersion: options.appVersion });
  const startup = startUp(service, { doctor: options.doctorAtStart, ...(options.log === undefined ? {} : { log: options.log }) });
  return { service, startup };
}
