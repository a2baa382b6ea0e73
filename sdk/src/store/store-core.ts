/**
 * The parts of a store that every lifecycle module shares (DESIGN §6-§7): the home layout, the
 * content cache, the registry sources, the host's options, the host environment and the home lock.
 * The `Arcotheon` facade makes one and hands it to planning, applying, grants, rollback, removal and
 * discovery, and it is what run/, doctor and the policy read (the narrow views of store-view.ts and
 * run/context.ts); hosts never see it (`storeOf` in arcotheon.ts, `@arcotheon/sdk/internal`).
 */
import type { AuthorizeFn } from '../cache/authorize.js';
import { ContentCache } from '../cache/content-cache.js';
import type { SourcePolicy } from '../cache/source-policy.js';
import { isAdcapError } from '../errors.js';
import type { ArchiveLimits } from '../format/archive/limits.js';
import { DEFAULT_TOOL_DATA_QUOTA } from './tool-data.js';
import type { Manifest } from '../format/manifest-types.js';
import { hostPlatform } from '../resolve/compat.js';
import { detectRuntimes } from '../resolve/runtimes.js';
import type { HostEnvironment } from '../resolve/types.js';
import { withLock } from '../util/lock.js';
import { HomeLayout } from './home.js';
import { installedState, readInstalledManifest } from './installed.js';
import type { EnablementHook } from './enablement.js';
import { defaultRemotesOf, type ArcotheonOptions, type SandboxChoice } from './options.js';
import { loadPolicy, type LoadedPolicy } from './policy.js';
import { policyForReading, policyRemotes } from './policy-enforce.js';
import { RegistrySources } from './sources.js';
import type { InstallSource, PackageState } from './state.js';
import type { InstalledView, PolicyView } from './store-view.js';
import { recoverOperations } from './transaction.js';

export class StoreCore implements InstalledView, PolicyView {
  readonly home: HomeLayout;
  readonly cache: ContentCache;
  readonly sources: RegistrySources;
  private readonly options: ArcotheonOptions;
  private hostEnv: Promise<HostEnvironment> | undefined;

  /** `options` were checked by the facade (arguments.ts). */
  constructor(options: ArcotheonOptions) {
    this.options = options;
    this.home = new HomeLayout(options.home);
    this.cache = new ContentCache(this.home.cacheDir, options.fetch === undefined ? {} : { fetch: options.fetch });
    const defaults = defaultRemotesOf(options);
    this.sources = new RegistrySources({
      home: options.home,
      defaults,
      // When the policy lists registries, they are the ones in force; without that rule,
      // sideload: false or unsigned: false leave only the built-in ones (docs/admin.md).
      policyRemotes: async () => policyRemotes((await policyForReading(this)).loaded, defaults),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.limits?.maxCatalogAgeMs === undefined ? {} : { maxCatalogAgeMs: options.limits.maxCatalogAgeMs }),
      ...(options.limits?.refreshAfterMs === undefined ? {} : { refreshAfterMs: options.limits.refreshAfterMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /**
   * The environment for a resolution in which no candidate declares `compat.runtimes` (spec §11):
   * platform and agent, and no interpreters asked, since no answer of theirs could change the
   * outcome (planning.ts resolvePlan decides that). Interpreters the host named are passed on.
   */
  hostWithoutProbe(): HostEnvironment {
    return {
      platform: this.options.host.platform ?? hostPlatform(),
      agent: this.options.host.agent,
      runtimes: this.options.runtimes ?? {},
    };
  }

  /** The environment capabilities are checked against (spec §11), probed once. */
  hostEnvironment(): Promise<HostEnvironment> {
    this.hostEnv ??= (async () => ({
      ...this.hostWithoutProbe(),
      runtimes: this.options.runtimes ?? (await detectRuntimes({ record: this.home.runtimesProbeFile })),
    }))();
    return this.hostEnv;
  }

  get authorize(): AuthorizeFn | undefined {
    return this.options.authorize;
  }

  get sandboxChoice(): SandboxChoice {
    return this.options.sandbox ?? {};
  }

  get checkTier(): ArcotheonOptions['checkTier'] {
    return this.options.checkTier;
  }

  get enablementHook(): EnablementHook | undefined {
    return this.options.onEnablement;
  }

  /** Previous versions kept for rollback (default 2). */
  get keepVersions(): number {
    return this.options.limits?.keepVersions ?? 2;
  }

  /** The quota of each tool's `storage:data` folder in bytes (tool-data.ts). */
  get toolDataQuota(): number {
    return this.options.limits?.toolDataBytes ?? DEFAULT_TOOL_DATA_QUOTA;
  }

  /** Private origins the host allows for publisher-chosen URLs. */
  get allowedOrigins(): string[] {
    return this.options.sourceOrigins ?? [];
  }

  /** The archive limits to read packages with, as the option bag `readPackage`/`verifyPackage` take. */
  get archiveLimits(): { limits?: Partial<ArchiveLimits> } {
    return this.options.limits?.archive === undefined ? {} : { limits: this.options.limits.archive };
  }

  /**
   * The rules for publisher-chosen URLs of a version (resources, shards):
   * the installing registry's URL (null for a sideload or a removed remote) and the host's allowed
   * private origins.
   */
  async sourcePolicy(source: InstallSource | undefined): Promise<SourcePolicy> {
    let registry: string | null = null;
    if (source?.kind === 'registry') {
      registry = await this.sources.client(source.remote).then(
        (client) => client.remote.url,
        (error: unknown) => {
          if (isAdcapError(error)) return null;
          throw error;
        },
      );
    }
    return { registry, allowedOrigins: this.allowedOrigins };
  }

  /** The policy in force, read now (never cached): null when none; E_POLICY when it is invalid. */
  policyInForce(): Promise<LoadedPolicy | null> {
    return loadPolicy(this.options.policy ?? {});
  }

  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  state(id: string): Promise<PackageState> {
    return installedState(this.home, id);
  }

  readInstalledManifest(id: string, version: string): Promise<Manifest> {
    return readInstalledManifest(this.home, id, version);
  }

  /** Directory of the active installed version of `id` (E_NOT_INSTALLED when it is not installed). */
  async installedDir(id: string): Promise<string> {
    const state = await this.state(id);
    return this.home.versionDir(id, state.active);
  }

  /**
   * Takes the home lock (util/lock.ts, DESIGN §6 home/locks/), finishing or undoing any operation a
   * crash interrupted first.
   */
  async withHome<T>(purpose: string, fn: () => Promise<T>, recoverFirst = true): Promise<T> {
    return withLock(
      this.home.homeLock,
      purpose,
      async () => {
        if (recoverFirst) await recoverOperations(this.home);
        return fn();
      },
      { waitMs: this.options.limits?.lockWaitMs ?? 30_000, what: `The Arcotheon home ${this.home.root}` },
    );
  }
}
