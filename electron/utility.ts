/**
 * The utility process (DESIGN §2): the SDK and the host service run here,
 * off the main process, so hashing, downloads and tool runs never block the window. Forked by
 * main.ts with `utilityProcess.fork`; talks to main only over `process.parentPort`
 * (utility/serve.ts). On start-up it applies the organisation policy and then runs
 * doctor once (host/startup.ts), so a policy that could not be applied and revoked or broken
 * installs show as the UI's banners (the renderer reads policy.show and `installs.overview`).
 *
 * Environment set by main.ts: ARCOTHEON_HOME (optional; else the same per-user folder as the
 * CLI) and ARCOTHEON_EMBEDDED_REGISTRY (the bundled example registry).
 */
import { startHost } from './host/root.js';
import { defaultHome } from './shared/paths.js';
import { SecretChannel, serveOverPort, type ParentPortLike } from './utility/serve.js';

const port = process.parentPort as ParentPortLike | undefined;
if (port === undefined) {
  console.error('electron/utility.ts runs only as an Electron utility process (utilityProcess.fork).');
  process.exit(2);
}

const secrets = new SecretChannel((message) => port.postMessage(message));
// Start-up (docs/admin.md): the organisation policy is applied, then doctor checks the home; the
// outcomes reach the window as the operations' events and results (policy.show, the banner).
const { service } = await startHost({
  home: defaultHome(process.env, process.platform),
  appVersion: process.env.ARCOTHEON_APP_VERSION ?? '0.0.0',
  env: process.env,
  doctorAtStart: true,
  log: (message) => console.error(`arcotheon: ${message}`),
  // Granted env:read values come from main's keychain store, asking the user the first time; an
  // imported MCP Bundle's settings given at install go to the same store.
  service: { secrets: secrets.source, secretStore: secrets.store },
});
serveOverPort(service, port, secrets);
