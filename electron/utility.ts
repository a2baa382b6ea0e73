/**
 * The utility process (DESIGN §2; issue 14 "Processes"): the SDK and the host service run here,
 * off the main process, so hashing, downloads and tool runs never block the window. Forked by
 * main.ts with `utilityProcess.fork`; talks to main only over `process.parentPort`
 * (utility/serve.ts). On start-up it runs doctor once, so revoked or broken installs show as the
 * UI's banner (the renderer reads the operation's result and `installs.overview`).
 *
 * Environment set by main.ts: ARCOTHEON_HOME (optional; else the same per-user folder as the
 * CLI) and ARCOTHEON_EMBEDDED_REGISTRY (the bundled example registry).
 */
import { Arcotheon } from '@arcotheon/sdk';
import { loadEmbeddedRemote } from '@arcotheon/sdk/internal';
import { createHostService } from './host/service.js';
import { defaultHome } from './main/paths.js';
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
const service = createHostService(arc, { secrets: secrets.source, appVersion: process.env.ARCOTHEON_APP_VERSION ?? '0.0.0' });
serveOverPort(service, port, secrets);

// Start-up check (issue 14): findings reach the window as the operation's events and result.
void service.dispatch('doctor.run', []);
