/**
 * The utility process (DESIGN §2; issue 14 "Processes"): the SDK and the host service run here,
 * off the main process, so hashing, downloads and tool runs never block the window. Forked by
 * main.ts with `utilityProcess.fork`; talks to main only over `process.parentPort`
 * (utility/serve.ts). On start-up it applies the organisation policy (issue 17) and then runs
 * doctor once (host/startup.ts), so a policy that could not be applied and revoked or broken
 * installs show as the UI's banners (the renderer reads policy.show and `installs.overview`).
 *
 * Environment set by main.ts: ARCOTHEON_HOME (optional; else the same per-user folder as the
 * CLI) and ARCOTHEON_EMBEDDED_REGISTRY (the bundled example registry).
 */
import { Arcotheon } from '@arcotheon/sdk';
import { loadEmbeddedRemote } from '@arcotheon/sdk/internal';
import { createHostService } from './host/service.js';
import { startUp } from './host/startup.js';
import { defaultHome } from './shared/paths.js';
import { SecretChannel, serveOverPort, type ParentPortLike } from './utility/serve.js';

const port = process.parentPort as ParentPortLike | undefined;
if (port === undefined) {
  console.error('electron/utility.ts runs only as an Electron utility process (utilityProcess.fork).');
  process.exit(2);
}

const embedded = await loadEmbeddedRemote(process.env);
const arc = new Arcotheon({
  home: defaultHome(process.env, process.platform),
  host: { agent: { id: 'arcotheon', version: process.env.ARCOTHEON_APP_VERSION ?? '0.0.0' } },
  ...(embedded === null ? {} : { remotes: [embedded] }),
});
const secrets = new SecretChannel((message) => port.postMessage(message));
const service = createHostService(arc, {
  secrets: secrets.source,
  // An imported MCP Bundle's settings given at install go to main's keychain store.
  secretStore: secrets.store,
  appVersion: process.env.ARCOTHEON_APP_VERSION ?? '0.0.0',
});
serveOverPort(service, port, secrets);

// Start-up (issues 14 and 17): the organisation policy is applied, then doctor checks the home;
// the outcomes reach the window as the operations' events and results (policy.show, the banner).
void startUp(service, { doctor: true, log: (message) => console.error(`arcotheon: ${message}`) });
