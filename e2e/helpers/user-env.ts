// The environment of a user's own run, for the specs that run what the README tells a user to run:
// no ARCOTHEON_* variable (the product's defaults, the built-in registry), and this Node.js first
// on PATH. With a `home`, the user's HOME and data folder are that folder (so nothing lands in the
// machine's real ones); npm's cache stays the machine's, where npm finds packages as for a user.
import { delimiter, dirname, join } from 'node:path';

export function userEnv(home?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ARCOTHEON_')) env[key] = value;
  env['PATH'] = `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`;
  if (home === undefined) return env;
  return {
    ...env,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    npm_config_update_notifier: 'false',
    npm_config_cache: process.env['npm_config_cache'] ?? join(process.env['HOME'] ?? home, '.npm'),
  };
}
