/**
 * Applying an approved plan (host contract "Install", spec §6, DESIGN §6): approval checked against
 * the exact plan, archives downloaded (or a sideload kept) into the cache, eager resources fetched
 * (spec §9), every package verified and extracted, and all of it switched in under one journal
 * record (transaction.ts); skill links follow.
 */
import { resolveUrl } from '../cache/fetch.js';
import { isLazy, materializeResource } from '../cache/resource.js';
import type { SourcePolicy } from '../cache/source-policy.js';
import { reasonError } from '../surface-text.js';
import { AdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { validateWorkflowFiles } from '../format/workflow-doc.js';
import { grantCovers, grantString } from '../permissions/index.js';
import type { TrustedKey } from '../trust/keys.js';
import { verifyPackage } from '../trust/package-signature.js';
import { callHost, cancelledError, explainCancel, GuardedListener } from '../util/host-call.js';
import type { Progress } from '../util/progress.js';
import { syncLinks } from './agent-links/sync-links.js';
import { checkApplyOptions, checkInstallRequest } from './arguments.js';
import { clearRevocations } from './grant-revocations.js';
import type { Plan, PlanItem } from './plan.js';
import { PreparedVersions } from './prepared-versions.js';
import { normalizeRequest, planInstall, type InstallRequest, type PackageSpec, type PlanContext } from './planning.js';
import type { SideloadCandidate } from './sideload.js';
import type { LocatedPackage } from './sources.js';
import type { InstallSource, PackageState, VersionRecord } from './state.js';
import type { StoreCore } from './store-core.js';
import { runOperation, type ExtractedManifest, type VersionToCreate } from './transaction.js';

/** Progress of an install or update: the SDK-wide shape, with the item it concerns. */
export type LifecycleProgress = Progress & { item?: string };

/** Options of `Arcotheon.install()` and `update()`: the approval callback, progress, cancellation and sideload rules. */
export interface ApplyOptions {
  /** Asked with the exact plan; nothing is installed unless it returns true (host contract, "Install"). */
  approve?: (plan: Plan) => boolean | Promise<boolean>;
  /** Alternatively, the digest of a plan the user approved earlier; a different plan is refused. */
  approvedDigest?: string;
  /** The extra confirmation an unsigned or unknown-signer sideload needs. */
  allowUnsigned?: boolean;
  /** Told each step's progress (`{ phase, done, total, item }`, item naming the capability). */
  onProgress?: (progress: LifecycleProgress) => void;
  /** Cancels the operation: E_CANCELLED, and the home is left as it was. */
  signal?: AbortSignal;
}

/** What `Arcotheon.install()` did: the plan, whether it was applied, and the versions installed. */
export interface ApplyResult {
  /** The plan that was (or would have been) applied. */
  plan: Plan;
  /** False when there was nothing to do; a refused approval rejects with E_DENIED instead. */
  applied: boolean;
  /** The versions installed or switched to. */
  installed: Array<{ id: string; version: string }>;
}

/** `arc.install`: installs exactly the plan the user approved (host contract: reject unless the user confirms). */
export async function installPackages(
  core: StoreCore,
  request: InstallRequest | PackageSpec | PackageSpec[],
  options: ApplyOptions,
): Promise<ApplyResult> {
  checkInstallRequest(request, 'install');
  checkApplyOptions(options, 'install');
  const normalized = normalizeRequest(request);
  return cancellable('The install', options.signal, () =>
    core.withHome('install', async () => {
      const context = await planInstall(core, normalized);
      await requireApproval(context, options, true);
      return applyPlan(core, context, 'install', options);
    }),
  );
}

/** Runs an operation that `signal` may cancel: checked before it starts, and E_CANCELLED after. */
export async function cancellable<T>(what: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  if (signal?.aborted === true) throw cancelledError(what);
  try {
    return await fn();
  } catch (error) {
    throw explainCancel(error, signal, what);
  }
}

/**
 * Host contract "Install": nothing is applied unless the user approved exactly this plan (the
 * `approve` callback, or the digest of a plan approved earlier); an unsigned or unknown-signer
 * sideload also needs `allowUnsigned`. `always` false (update): no callback and no digest is fine.
 */
export async function requireApproval(context: PlanContext, options: ApplyOptions, always: boolean): Promise<void> {
  const { plan } = context;
  if (plan.items.length === 0) return;
  // A plan that cannot succeed here is refused before anyone is asked to approve it.
  const blocked = plan.items.find((item) => item.access === 'entitled');
  if (plan.blockers.length > 0 && blocked !== undefined) {
    throw reasonError('entitlement-without-authorizer', {
      id: blocked.id,
      version: blocked.version,
      what: `${blocked.id}@${blocked.version}`,
      blockers: plan.blockers,
    });
  }
  const risky = plan.items.filter((i) => i.source.kind === 'file' && (i.source.unsigned || i.source.unknownSigner));
  if (risky.length > 0 && options.allowUnsigned !== true) {
    throw reasonError('unsigned-needs-confirmation', {
      packages: risky.map((i) => `${i.id}@${i.version}`).join(', '),
      trust: risky[0]?.source.kind === 'file' && risky[0].source.unsigned ? 'not signed' : 'signed by an unknown key',
    });
  }
  if (options.approvedDigest !== undefined) {
    if (options.approvedDigest !== plan.digest) {
      throw new AdcapError(
        'E_DENIED',
        'The plan changed since it was approved (the registry or the installed set changed); review the new plan and approve it again.',
        {
          details: { approved: options.approvedDigest, current: plan.digest },
        },
      );
    }
    if (options.approve === undefined) return;
  }
  if (options.approve === undefined) {
    if (always)
      throw new AdcapError(
        'E_DENIED',
        "Installing needs the user's approval of the plan; pass an approve callback (or --yes on the command line).",
      );
    return;
  }
  // Hand the callback a copy, so it cannot change what gets installed after approving it.
  const approve = options.approve;
  const approved = await callHost('approve', () => approve(structuredClone(plan)));
  if (approved !== true) throw new AdcapError('E_DENIED', 'The plan was not approved, so nothing was installed.');
}

/**
 * Downloads, verifies and switches in every item of the plan under one journal record. A throw
 * from the host's onProgress is reported as such (E_HOST_CALLBACK), whatever it broke.
 */
export async function applyPlan(
  core: StoreCore,
  context: PlanContext,
  op: 'install' | 'update',
  options: ApplyOptions,
): Promise<ApplyResult> {
  const guard = new GuardedListener<LifecycleProgress>('onProgress', options.onProgress);
  try {
    return await applyWith(core, context, op, options, guard.fn);
  } catch (error) {
    throw guard.explain(error);
  }
}

async function applyWith(
  core: StoreCore,
  context: PlanContext,
  op: 'install' | 'update',
  options: ApplyOptions,
  progress: ((p: LifecycleProgress) => void) | undefined,
): Promise<ApplyResult> {
  const { plan } = context;
  const before: Record<string, PackageState | null> = {};
  const after: Record<string, PackageState | null> = {};
  // Asking for an installed capability again records the request (explicit, range) even when
  // no version changes.
  for (const [id, range] of context.ranges) {
    const state = context.states.get(id) ?? null;
    if (state === null || plan.items.some((i) => i.id === id) || (state.explicit && state.range === range)) continue;
    before[id] = state;
    after[id] = { ...state, explicit: true, range };
  }
  if (plan.items.length === 0) {
    if (Object.keys(after).length > 0) await runOperation(core.home, { op, before, after, creates: [] });
    return { plan, applied: false, installed: [] };
  }
  const creates: VersionToCreate[] = [];
  const now = core.nowIso();
  const prepared = new PreparedVersions(); // registry versions extracted in their download's read
  try {
    for (const item of plan.items) {
      const label = `${item.id}@${item.version}`;
      const report = (p: Progress): void => progress?.({ ...p, item: label });
      let archivePath: string;
      let trusted: TrustedKey[];
      let source: InstallSource;
      // What downloadAndExtract verified, for the prepared directory.
      let preparedManifest: ExtractedManifest | undefined;
      if (item.source.kind === 'file') {
        const sideload = context.sideload as SideloadCandidate;
        // Keep the sideloaded archive in the cache, so doctor can reinstall it from there.
        archivePath = await core.cache.putFile(sideload.file, { sha256: sideload.archiveSha256, size: sideload.size });
        trusted = sideload.trusted;
        source = {
          kind: 'file',
          file: sideload.file,
          signedBy: sideload.signedBy,
          unsigned: sideload.unsigned,
          unknownSigner: sideload.unknownSigner,
          ...(sideload.added === undefined ? {} : { added: sideload.added }),
        };
        await fetchEagerResources(
          core,
          sideload.manifest,
          [],
          { registry: null, allowedOrigins: core.allowedOrigins },
          report,
          options.signal,
        );
      } else {
        const place = context.located.get(item.id) as LocatedPackage;
        const download = {
          cache: core.cache,
          ...(core.authorize === undefined ? {} : { authorize: core.authorize }),
          onProgress: report,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        };
        const preparedDir = await prepared.dirFor(core.home.versionDir(item.id, item.version));
        let checkedFileSha256: string | undefined;
        const downloaded =
          preparedDir === undefined
            ? await place.client.downloadArchive(item.id, item.version, download)
            : await place.client.downloadAndExtract(item.id, item.version, {
                ...download,
                extractTo: preparedDir,
                // spec §8: workflow documents are validated at install too, not only at build, in
                // the one staging directory before the install may use it.
                accept: async (pkg, dir) => {
                  await validateWorkflowFiles(pkg.manifest, dir);
                  checkedFileSha256 = pkg.manifestFileSha256;
                },
                readOnly: true,
                ...core.archiveLimits,
              });
        archivePath = downloaded.path;
        // The accept above ran on the verified package (downloadAndExtract hands back only its manifest and digest).
        if (checkedFileSha256 !== undefined) {
          preparedManifest = {
            manifest: downloaded.manifest,
            manifestSha256: downloaded.manifestSha256,
            manifestFileSha256: checkedFileSha256,
          };
        }
        trusted = place.publisherKeys;
        source = { kind: 'registry', remote: place.remote, signedBy: downloaded.signedBy };
        const policy = { registry: place.client.remote.url, allowedOrigins: core.allowedOrigins };
        await fetchEagerResources(
          core,
          downloaded.manifest,
          [resolveUrl(place.client.remote.url, 'blobs/sha256/')],
          policy,
          report,
          options.signal,
        );
      }
      const unsignedOk = item.source.kind === 'file' && (item.source.unsigned || item.source.unknownSigner);
      const preparedTarget = core.home.versionDir(item.id, item.version);
      creates.push({
        id: item.id,
        version: item.version,
        extract: prepared.has(preparedTarget)
          ? async (target) => {
              await prepared.moveIn(target);
              return preparedManifest;
            }
          : async (target) => {
              const verified = await verifyPackage(archivePath, {
                ...(unsignedOk ? {} : { trusted, requireSignature: true }),
                extractTo: target,
                // spec §8: workflow documents are validated at install too, before the rename into `target`.
                accept: async (pkg, dir) => {
                  await validateWorkflowFiles(pkg.manifest, dir);
                },
                readOnly: true,
                onProgress: report,
                ...core.archiveLimits,
              });
              return {
                manifest: verified.manifest,
                manifestSha256: verified.manifestSha256,
                manifestFileSha256: verified.manifestFileSha256,
              };
            },
      });
      const previous = context.states.get(item.id) ?? null;
      before[item.id] = previous;
      after[item.id] = nextState(core, previous, item, source, now, context.ranges.get(item.id));
    }
    await runOperation(core.home, {
      op,
      before,
      after,
      creates,
      // 'switch': the journal is written and new versions are being switched in.
      onStep: (step) => {
        if (step === 'journal') progress?.({ phase: 'switch', done: 0, total: creates.length });
      },
    });
  } finally {
    await prepared.discard();
  }
  await syncLinks(
    core,
    plan.items.map((i) => i.id),
  ); // links follow the active version
  return { plan, applied: true, installed: plan.items.map((i) => ({ id: i.id, version: i.version })) };
}

/**
 * spec §9: resources with `lazy: false` are fetched at install (lazy ones on first use by a
 * tool), verified into the cache before anything is switched in. After the declared sources,
 * the installing registry's content-addressed mirror is tried.
 */
async function fetchEagerResources(
  core: StoreCore,
  manifest: Manifest,
  mirrors: string[],
  policy: SourcePolicy,
  onProgress: (p: Progress) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const resource of manifest.resources ?? []) {
    if (isLazy(resource)) continue;
    await materializeResource(core.cache, resource, {
      mirrors,
      policy,
      onProgress,
      ...(core.authorize === undefined ? {} : { authorize: core.authorize }),
      ...(signal === undefined ? {} : { signal }),
    });
  }
}

function nextState(
  core: StoreCore,
  previous: PackageState | null,
  item: PlanItem,
  source: InstallSource,
  now: string,
  range: string | undefined,
): PackageState {
  const declared = item.permissions.map(grantString);
  // Grants carried over are only those the new version still declares (spec §6: never more than
  // declared); the approved plan adds the new ones.
  const kept = (previous?.grants ?? []).filter((g) => declared.some((d) => grantCovers(g, d) || g === d));
  const approved = item.newPermissions.map(grantString);
  const grants = [...new Set([...kept, ...approved])].sort();
  // Approving a plan that lists a revoked permission grants it again.
  const revoked = clearRevocations(previous?.revoked, approved);
  const record: VersionRecord = {
    manifestSha256: item.manifestSha256,
    archiveSha256: item.archive.sha256,
    archiveSize: item.archive.size,
    installedAt: now,
    source,
    grants,
  };
  const keep = core.keepVersions;
  let history = previous === null ? [] : [...previous.history.filter((v) => v !== item.version && v !== previous.active), previous.active];
  if (previous !== null && previous.active === item.version) history = previous.history.filter((v) => v !== item.version);
  history = history.slice(Math.max(0, history.length - keep));
  const versions: Record<string, VersionRecord> = {};
  for (const v of history) {
    const old = previous?.versions[v];
    if (old !== undefined) versions[v] = old;
  }
  versions[item.version] = record;
  return {
    id: item.id,
    active: item.version,
    history: history.filter((v) => versions[v] !== undefined),
    grants,
    versions,
    explicit: item.explicit,
    ...(range !== undefined ? { range } : previous?.range !== undefined ? { range: previous.range } : {}),
    ...(revoked.length === 0 ? {} : { revoked }),
    // An update keeps a disabled capability disabled.
    ...(previous?.disabled === undefined ? {} : { disabled: previous.disabled }),
    updatedAt: now,
  };
}
