import { loadEmbeddedRemote } from '../registry/embedded.js';
import { Arcotheon } from '../store/arcotheon.js';
import { sdkPackageVersion } from '../util/sdk-version.js';
import type { CliContext } from './context.js';

/**
 * The `Arcotheon` instance behind the host commands of `adcap` (install, run, …). The CLI is a
 * host like any other (host contract "Embedding"): its agent id is "arcotheon", the id capabilities
 * list in compat.agents for the reference app and CLI, and the embedded example registry is its
 * default remote when config.json has none of that name.
 */
const CLI_AGENT_ID = 'arcotheon';

export async function openArcotheon(ctx: CliContext): Promise<Arcotheon> {
  const embedded = await loadEmbeddedRemote(ctx.io.env);
  return new Arcotheon({
    home: ctx.home(),
    host: { agent: { id: CLI_AGENT_ID, version: sdkVersion() } },
    // The organisation policy, from the CLI's environment (ARCOTHEON_POLICY) or the system location.
    policy: { env: ctx.io.env, platform: ctx.io.platform },
    // An empty list, not a missing one: ARCOTHEON_EMBEDDED_REGISTRY="" means no default remote at all.
    remotes: embedded === null ? [] : [embedded],
  });
}

/** The SDK's version (sdk/package.json). */
export function sdkVersion(): string {
  return sdkPackageVersion();
}
