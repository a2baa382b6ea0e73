/**
 * What a host passes to `new Arcotheon(options)` (host contract "Embedding", DESIGN §7), and the
 * default remotes those options imply.
 */
import type { AuthorizeFn } from '../cache/authorize.js';
import type { FetchLike } from '../cache/fetch.js';
import type { ArchiveLimits } from '../format/archive/limits.js';
import { AdcapError } from '../errors.js';
import { shippedRemote } from '../registry/embedded.js';
import { normalizeRemoteUrl, type RemoteConfig } from '../registry/remotes.js';
import type { HostEnvironment } from '../resolve/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { EnablementHook } from './enablement.js';
import type { LoadPolicyOptions } from './policy.js';

/** Who the host is (spec §11): its platform and agent id and version, checked against each capability's compat. */
export interface HostInfo {
  /** `${os}-${arch}`; defaults to this process's. */
  platform?: string;
  /** The host's agent id and version, checked against each capability's `compat.agents` ranges. */
  agent: { id: string; version: string };
}

/** What a host passes to `new Arcotheon(options)` (host contract "Embedding", DESIGN §7). */
export interface ArcotheonOptions {
  /** The home directory (DESIGN §6), inside the host app's data directory. */
  home: string;
  /**
   * Pinned root keys (base64) for default remotes that do not carry their own, and for the
   * registry the SDK ships when `remotes` is left out (host contract: `ARCOTHEON_ROOT_KEYS`).
   */
  rootKeys?: readonly string[];
  /**
   * Remotes the host ships; config.json entries of the same name win. Left out, the
   * registry the SDK ships is the default remote; `[]` means none.
   */
  remotes?: Array<{ name: string; url: string; rootKeys?: readonly string[]; minSequence?: number; maxCatalogAgeMs?: number | null }>;
  /** Who the host is: its platform and agent (spec §11). */
  host: HostInfo;
  /**
   * spec §12: obtains authorisation for entitled downloads; null denies. It is asked only about
   * URLs on the installing registry, never about a URL a publisher chose.
   */
  authorize?: AuthorizeFn;
  /**
   * Origins such as `https://mirror.intranet:8443` that resource and shard sources may use
   * although they are on this computer or a private network (otherwise only
   * public https and the installing registry are fetched for a publisher).
   */
  sourceOrigins?: string[];
  /** The fetch used for registries and downloads (default the global `fetch`); tests and proxies pass their own. */
  fetch?: FetchLike;
  /** Ages, waits, sizes and counts that bound the store's work (each has a default). */
  limits?: {
    /** DESIGN §10 (default 30 days). */
    maxCatalogAgeMs?: number;
    /** Previous versions kept for rollback (default 2). */
    keepVersions?: number;
    /** How long to wait for another process's operation before E_LOCKED (default 30 s). */
    lockWaitMs?: number;
    /**
     * A stored catalogue checked longer ago than this is fetched again before it is used, by
     * search, install, doctor and each tool run (default 1 hour).
     */
    refreshAfterMs?: number;
    archive?: Partial<ArchiveLimits>;
    /** The most one tool's `storage:data` folder may hold, in bytes (default 1 GiB; SECURITY.md "Tool data quota"). */
    toolDataBytes?: number;
  };
  /** Interpreter versions to assume instead of probing this computer (tests, hosts that ship their own). */
  runtimes?: HostEnvironment['runtimes'];
  /**
   * How tools are sandboxed (DESIGN §5). By default the platform's sandbox (bubblewrap, sandbox-exec)
   * and E_SANDBOX_UNAVAILABLE without one; `use` replaces it with the host's own. `optOut` names
   * capabilities the host ships itself, which then always run without a sandbox (host contract:
   * "only for capabilities it ships itself"; the host carries that risk).
   */
  sandbox?: SandboxChoice;
  /**
   * The host's tier check, called before each tool run (host contract "Free and Pro": the SDK
   * trusts the host here). Return false (or a promise of false) to refuse the run: E_ENTITLEMENT.
   */
  checkTier?: (capability: { id: string; version: string; tier: 'free' | 'pro' }) => boolean | Promise<boolean>;
  /** The clock (default `new Date()`), for catalogue ages and recorded times. */
  now?: () => Date;
  /**
   * Where the organisation policy is read from (docs/admin.md). Default: ARCOTHEON_POLICY
   * in process.env, else the system location. A host that ships its own policy passes
   * `{ env: { ARCOTHEON_POLICY: path } }`.
   */
  policy?: LoadPolicyOptions;
  /**
   * Called after a capability is disabled or enabled, inside the home lock (skills are
   * unlinked from agents while a capability is disabled, and linked again when it is enabled).
   */
  onEnablement?: EnablementHook;
}

/** How an Arcotheon instance confines tools: the host's own sandbox, or whether it may run them unconfined. */
export interface SandboxChoice {
  /** The host's own sandbox, used instead of the platform's (see `Sandbox`). */
  use?: Sandbox;
  /**
   * Capabilities the host ships itself: their tools always run without a sandbox (`sandbox:
   * 'none'` in the result). Capability ids, or a predicate over the id.
   */
  optOut?: string[] | ((id: string) => boolean);
}

/**
 * The remotes an instance starts with: the host's (`remotes`), each with its own root keys or the
 * instance's, or the registry the SDK ships when the host names none. Every one needs a pinned key.
 */
export function defaultRemotesOf(options: ArcotheonOptions): RemoteConfig[] {
  const defaults: RemoteConfig[] =
    options.remotes === undefined
      ? shippedRemotes(options.rootKeys)
      : options.remotes.map((r) => ({
          name: r.name,
          url: normalizeRemoteUrl(r.url),
          rootKeys: [...(r.rootKeys ?? options.rootKeys ?? [])],
          ...(r.minSequence === undefined ? {} : { minSequence: r.minSequence }),
          ...(r.maxCatalogAgeMs === undefined ? {} : { maxCatalogAgeMs: r.maxCatalogAgeMs }),
        }));
  for (const remote of defaults) {
    if (remote.rootKeys.length === 0)
      throw new AdcapError('E_USAGE', `The default remote "${remote.name}" has no pinned root key; pass rootKeys.`);
  }
  return defaults;
}

/**
 * An instance that names no remotes starts on the registry the SDK ships. Root
 * keys the host pins (`rootKeys`, normally ARCOTHEON_ROOT_KEYS) replace the shipped pin's, so a
 * host that pins other keys gets a refused catalogue rather than an unpinned one.
 */
function shippedRemotes(rootKeys: readonly string[] | undefined): RemoteConfig[] {
  const remote = shippedRemote();
  if (remote === null) return [];
  return [{ ...remote, rootKeys: rootKeys === undefined || rootKeys.length === 0 ? remote.rootKeys : [...rootKeys] }];
}
