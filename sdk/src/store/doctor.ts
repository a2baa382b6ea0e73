import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import type { AuthorizeFn } from '../cache/authorize.js';
import type { ContentCache } from '../cache/content-cache.js';
import { AdcapError, asAdcapError, isAdcapError } from '../errors.js';
import { manifestDigest } from '../format/canonical-json.js';
import type { Manifest } from '../format/manifest-types.js';
import { classifyRuntime } from '../format/runtime-table.js';
import { validateManifest } from '../format/manifest.js';
import { parseStrictJson } from '../format/strict-json.js';
import { publisherTrustedKeys } from '../registry/catalogue.js';
import { detectRuntimes } from '../resolve/runtimes.js';
import { defaultSandbox } from '../sandbox/select.js';
import type { TrustedKey } from '../trust/keys.js';
import { verifyPackage } from '../trust/package-signature.js';
import { removeTree } from '../util/fs-tree.js';
import { hashFile } from '../util/hash.js';
import { checkLinks } from './agent-links/check-links.js';
import type { LinkStore } from './agent-links/records.js';
import { readJournal, type DamagedJournalRecord, type JournalRecord } from './journal.js';
import { repairableVersion } from './installed.js';
import { revocationReason } from './revocations.js';
import { lockHeld, withLock } from '../util/lock.js';
import type { SandboxChoice } from './options.js';
import type { RegistrySources } from './sources.js';
import { packageIdsOnDisk, readState, writeState, type PackageState } from './state.js';
import { exists, recoverOperations } from './transaction.js';
import type { Problem } from './doctor-problem.js';

export type { Problem, ProblemKind } from './doctor-problem.js';

/** Options of `Arcotheon.doctor()`. */
export interface DoctorOptions {
  /** Repair what can be repaired (takes the home lock); default false: only report. */
  fix?: boolean;
  /** With fix: say what would be repaired, change nothing. */
  dryRun?: boolean;
  /** Also check the revocation status of installed versions against the registries (default true). */
  checkRevocations?: boolean;
  /** Re-hash every blob in the content cache (default true). */
  checkCache?: boolean;
}

/**
 * What doctor reads and calls: the home and its installed manifests, the content
 * cache, the registry sources and the host's authoriser (to reinstall), and the host's sandbox
 * choice (to report a missing sandbox). `Arcotheon` is one.
 */
export interface DoctorContext extends LinkStore {
  readonly cache: ContentCache;
  readonly sources: RegistrySources;
  readonly authorize: AuthorizeFn | undefined;
  readonly sandboxChoice: Pick<SandboxChoice, 'use'>;
}

/** What `Arcotheon.doctor()` found (and with `fix`, repaired). */
export interface DoctorReport {
  /** Everything found (with `fix`, what is left or was repaired, each saying so). */
  problems: Problem[];
  /** True when nothing is left to repair. */
  ok: boolean;
  /** How many capabilities, installed versions and cache entries were checked. */
  checked: { packages: number; versions: number; cacheEntries: number };
  /**
   * Set when another process was changing installed capabilities during the check (it held the
   * home lock): its operation was left alone and the capabilities it touches were not checked.
   */
  busy?: { message: string; packages: string[] };
  /**
   * Read-only only: capabilities another process changed while they were checked (their state
   * changed, a folder went away). Not problems: check again once that process is done.
   */
  changed?: ChangedWhileChecking[];
}

/** A capability another process changed while doctor checked it. */
export interface ChangedWhileChecking {
  /** The capability that changed. */
  id: string;
  /** What happened and what to do, in a sentence. */
  message: string;
}

/**
 * `doctor()` (like `flatpak repair`): re-hash installed files against their manifest, find
 * revoked installed versions, missing dependencies, half-finished operations, missing interpreters
 * and a missing sandbox; `fix` repairs what can be repaired (reinstall from the cache or the
 * registry, finish or undo half-done work). A fix run holds the home lock (the caller takes it).
 */
export async function runDoctor(arc: DoctorContext, options: DoctorOptions): Promise<DoctorReport> {
  const fix = options.fix === true && options.dryRun !== true;
  const problems: Problem[] = [];
  const changed: ChangedWhileChecking[] = [];
  const checked = { packages: 0, versions: 0, cacheEntries: 0 };

  // 0. Without fix, doctor changes nothing and never mistakes another process's
  // running operation for an interrupted one. It takes the home lock only for the moment it reads
  // the journal and the package folders (waiting for no one); when a live process holds it, that
  // process's operation is left alone and the capabilities it touches are not checked.
  const snapshot = fix ? await homeSnapshot(arc, true, false) : await readOnlySnapshot(arc);
  const skip = new Set(snapshot.busy?.packages ?? []);

  // 1. Operations a crash interrupted: finish or undo them before looking at anything else.
  for (const { file, error } of snapshot.damaged) {
    problems.push({ kind: 'half-finished-operation', message: `${error.message} (${file})`, fixable: false });
  }
  if (snapshot.busy === undefined && snapshot.pending.length > 0) {
    const outcomes = await recoverOperations(arc.home, { dryRun: !fix, skipDamaged: true });
    for (const outcome of outcomes) {
      problems.push({
        kind: 'half-finished-operation',
        message:
          `An interrupted ${outcome.op} of ${outcome.packages.join(', ')} (started ${outcome.startedAt}) ` +
          `${fix ? 'was' : 'can be'} ${outcome.outcome === 'completed' ? 'completed' : 'undone'}.`,
        fixable: true,
        repair: `${outcome.outcome === 'completed' ? 'Complete' : 'Undo'} the interrupted ${outcome.op} of ${outcome.packages.join(', ')}`,
        ...(fix ? { fixed: outcome.outcome } : {}),
      });
    }
  }

  // 2. Cache entries (corrupt entries are dropped and fetched again on next use).
  if (options.checkCache !== false) {
    for (const sha of await arc.cache.entries()) {
      checked.cacheEntries++;
      const result = (await arc.cache.verifyEntry(sha, { remove: fix })).state;
      if (result === 'corrupt') {
        problems.push({
          kind: 'corrupt-cache-entry',
          message: `The cached blob ${sha.slice(0, 12)}… is corrupt${fix ? ' and was removed; it is fetched again when needed' : ''}.`,
          fixable: true,
          repair: `Remove the corrupt cached file ${sha.slice(0, 12)}…; it is downloaded again when it is needed`,
          ...(fix ? { fixed: 'removed' } : {}),
        });
      }
    }
  }

  // 2b. Remotes stuck behind the app's shipped minimum (DESIGN §10): the app moved forward, so
  //     the stored catalogue is refused until the registry is read again; a fix reads it again.
  for (const client of await arc.sources.clients()) {
    const behind = await client.storedBelowShippedMinimum();
    if (behind === null) continue;
    const problem: Problem = {
      kind: 'stale-remote',
      message:
        `The stored catalogue of the registry "${client.name}" has sequence ${behind.sequence}, older than the ` +
        `minimum ${behind.minSequence} this app shipped with; ${fix ? 'it was read again' : 'a repair reads it again'}.`,
      fixable: true,
      repair: `Read the registry "${client.name}" again`,
    };
    if (fix) {
      try {
        const updated = await client.update();
        problem.fixed = `updated to sequence ${updated.payload.sequence}`;
      } catch (error) {
        problem.fixable = false;
        problem.message += ` The registry could not be read: ${isAdcapError(error) ? error.message : String(error)}`;
      }
    }
    problems.push(problem);
  }

  // 3. Installed packages.
  const manifests = new Map<string, Manifest>();
  const actives = new Map<string, string>();
  for (const id of await packageIdsOnDisk(arc.home)) {
    if (skip.has(id)) continue;
    checked.packages++;
    // Read-only beside another process: what it changes while this runs is not a
    // problem of the home. The package's state is read before and after; when it changed (or a
    // folder went away under the check), the package is reported as changed while checking.
    const before = fix ? null : await stateText(arc, id);
    const found: Problem[] = [];
    let failure: unknown;
    try {
      await checkPackage(id, found);
    } catch (error) {
      failure = error;
    }
    if (!fix && (failure !== undefined || found.length > 0) && (await changedSince(arc, id, before))) {
      changed.push({
        id,
        message:
          `${id} changed while checking (another process was installing, updating or removing it); ` +
          'nothing is wrong with it that this check can tell: check again once that is done.',
      });
      manifests.delete(id);
      continue;
    }
    if (failure !== undefined) throw asAdcapError(failure, `Checking ${id} failed`);
    problems.push(...found);
  }

  async function checkPackage(id: string, found: Problem[]): Promise<void> {
    let state: PackageState | null;
    try {
      state = await readState(arc.home, id);
    } catch (error) {
      found.push(await repairState(arc, id, error, fix));
      state = fix ? await readState(arc.home, id).catch(() => null) : null;
    }
    if (state === null) return;
    actives.set(id, state.active);
    for (const version of [state.active, ...state.history]) {
      checked.versions++;
      const checkedInstall = await checkInstall(arc, id, version, state);
      if ('manifest' in checkedInstall) {
        if (version === state.active) manifests.set(id, checkedInstall.manifest);
        continue;
      }
      // Read-only: an operation that started since the snapshot may have replaced this version.
      if (!fix && !(await stillReferenced(arc, id, version))) continue;
      const problem: Problem = {
        kind: 'damaged-install',
        id,
        version,
        message: `${id}@${version}: ${checkedInstall.damage}`,
        fixable: true,
        repair: checkedInstall.repair,
      };
      if (fix) {
        problem.fixed = await reinstall(arc, id, version, state);
        if (version === state.active) manifests.set(id, await arc.readInstalledManifest(id, version));
      }
      found.push(problem);
    }
    // With fix, after recovery (which may have made another version active); without, as read under the lock.
    const leftovers = fix ? await leftoverEntries(arc, id, state) : (snapshot.leftovers.get(id) ?? []);
    if (leftovers.length > 0) {
      found.push({
        kind: 'leftover-files',
        id,
        message: `${id} has leftover files from an interrupted operation: ${leftovers.join(', ')}.`,
        fixable: true,
        repair: `Remove the leftover files ${leftovers.join(', ')} of ${id}`,
        ...(fix ? { fixed: 'removed' } : {}),
      });
      if (fix) for (const name of leftovers) await removeTree(join(arc.home.packageDir(id), name));
    }
    if (options.checkRevocations !== false) {
      // A catalogue older than the refresh interval is fetched again first; a
      // registry install answers to its own registry (revocationReason filters by source).
      const revoked = await revocationReason({ sources: arc.sources, home: arc.home.root }, id, state, { refresh: 'auto' });
      if (revoked !== null) {
        found.push({
          kind: 'revoked',
          id,
          version: state.active,
          message:
            `${id}@${state.active} was revoked by its registry (${revoked}); ` +
            `its tools will not run. Update it ("adcap update ${id}") or uninstall it.`,
          fixable: false,
        });
      }
    }
  }

  // 4. Dependencies, interpreters and the sandbox of what is installed.
  const runtimes = await detectRuntimes();
  let needsSandbox = false;
  for (const [id, manifest] of manifests) {
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
      const have = actives.get(dep);
      if (have === undefined || !semver.satisfies(have, range, { includePrerelease: true })) {
        problems.push({
          kind: 'missing-dependency',
          id,
          message:
            `${id} needs ${dep} ${range}, ` +
            `but ${have === undefined ? 'it is not installed' : `${have} is installed`}; ` +
            `install it with "adcap install ${dep}@${range}".`,
          fixable: false,
        });
      }
    }
    for (const tool of manifest.tools ?? []) {
      const classified = classifyRuntime(tool.runtime);
      switch (classified.kind) {
        case 'binary':
          needsSandbox = true;
          break;
        case 'mcp': {
          // docs/spec/mcp-runtime.md: the server runs in the sandbox like a node, python or binary tool.
          needsSandbox = true;
          const server = classified.runtime.server;
          if ('entries' in server) break;
          const found = runtimes[server.type];
          const range = typeof server.version === 'string' ? server.version : undefined;
          if (found === undefined || (range !== undefined && !semver.satisfies(found, range))) {
            problems.push({
              kind: 'missing-interpreter',
              id,
              message:
                `The MCP server of tool ${tool.name} of ${id} needs ${server.type}${range === undefined ? '' : ` ${range}`}, ` +
                `but ${found === undefined ? 'none is installed' : `${found} is installed`}.`,
              fixable: false,
            });
          }
          break;
        }
        case 'reserved':
          break;
        case 'interpreter': {
          needsSandbox = true;
          const runtime = classified.runtime;
          const found = runtimes[runtime.type];
          const range = typeof runtime.version === 'string' ? runtime.version : undefined;
          if (found === undefined || (range !== undefined && !semver.satisfies(found, range))) {
            problems.push({
              kind: 'missing-interpreter',
              id,
              message:
                `The tool ${tool.name} of ${id} needs ${runtime.type}${range === undefined ? '' : ` ${range}`}, ` +
                `but ${found === undefined ? 'none is installed' : `${found} is installed`}.`,
              fixable: false,
            });
          }
          break;
        }
      }
    }
  }
  if (needsSandbox && arc.sandboxChoice.use === undefined) {
    try {
      await defaultSandbox(process.platform);
    } catch (error) {
      if (!isAdcapError(error, 'E_SANDBOX_UNAVAILABLE')) throw error;
      problems.push({ kind: 'missing-sandbox', message: error.message, fixable: false });
    }
  }
  // 5. Skills linked into agents: dangling or stale links, moved or removed by --fix.
  problems.push(...(await checkLinks(arc, fix)));
  return {
    problems,
    ok: problems.every((p) => p.fixed !== undefined),
    checked,
    ...(snapshot.busy === undefined ? {} : { busy: snapshot.busy }),
    ...(changed.length === 0 ? {} : { changed }),
  };
}

/** The raw text of a package's state.json, or null when there is none (or it cannot be read). */
async function stateText(arc: DoctorContext, id: string): Promise<string | null> {
  return readFile(arc.home.stateFile(id), 'utf8').catch(() => null);
}

/**
 * Whether another process changed a package since `before` was read: its state, or a live process's
 * operation on it (journaled, the lock held). An interrupted operation's record, with nobody
 * holding the lock, is not a change: doctor reports it.
 */
async function changedSince(arc: DoctorContext, id: string, before: string | null): Promise<boolean> {
  if ((await stateText(arc, id)) !== before) return true;
  if (!(await lockHeld(arc.home.homeLock))) return false;
  const { records } = await readJournal(arc.home, { removeTemp: false }).catch(() => ({ records: [] }));
  return records.some((r) => Object.hasOwn(r.record.after, id));
}

interface HomeSnapshot {
  pending: Array<{ file: string; record: JournalRecord }>;
  damaged: DamagedJournalRecord[];
  /** Per installed capability: entries of its folder no state references. */
  leftovers: Map<string, string[]>;
  busy?: { message: string; packages: string[] };
}

/** The journal and the package folders, read while nobody else changes them (the caller holds the lock). */
async function homeSnapshot(arc: DoctorContext, removeTemp: boolean, withLeftovers = true): Promise<HomeSnapshot> {
  const { records, damaged } = await readJournal(arc.home, { removeTemp });
  const leftovers = new Map<string, string[]>();
  if (withLeftovers)
    for (const id of await packageIdsOnDisk(arc.home)) {
      const state = await readState(arc.home, id).catch(() => null);
      if (state !== null) leftovers.set(id, await leftoverEntries(arc, id, state));
    }
  return { pending: records, damaged, leftovers };
}

/** homeSnapshot under the home lock taken without waiting; when a live process holds it, what it is doing. */
async function readOnlySnapshot(arc: DoctorContext): Promise<HomeSnapshot> {
  try {
    return await withLock(arc.home.homeLock, 'doctor (read-only check)', () => homeSnapshot(arc, false, true), {
      waitMs: 0,
      what: `The Arcotheon home ${arc.home.root}`,
    });
  } catch (error) {
    if (!isAdcapError(error, 'E_LOCKED')) throw error;
    const { records, damaged } = await readJournal(arc.home, { removeTemp: false });
    const packages = [...new Set(records.flatMap((r) => Object.keys(r.record.after)))].sort();
    // The report names what is busy: the holder (process, operation, since when) and the
    // capabilities its journaled operation changes, which are left unchecked.
    const holder = error.message.replace(/\.? Wait for it to finish and try again\.$/, '');
    const message =
      packages.length > 0
        ? `${holder}: it is changing ${packages.join(', ')}, which ${packages.length === 1 ? 'was' : 'were'} not checked; ` +
          'check again once it is done.'
        : `${holder}: it has not said yet what it changes, so everything was checked as it is now; check again once it is done.`;
    return { pending: [], damaged, leftovers: new Map(), busy: { message, packages } };
  }
}

/** Whether `version` is still the active or a kept version of `id` (it may have changed since it was read). */
async function stillReferenced(arc: DoctorContext, id: string, version: string): Promise<boolean> {
  const state = await readState(arc.home, id).catch(() => null);
  if (state === null || !(state.active === version || state.history.includes(version))) return false;
  return (await readJournal(arc.home, { removeTemp: false })).records.every((r) => !Object.hasOwn(r.record.after, id));
}

/**
 * Re-hashes one installed version against its manifest: the manifest digest must be the one
 * recorded at install, every listed file present with its size and SHA-256, and nothing else there.
 * Returns the verified manifest when intact, else what is wrong.
 */
async function checkInstall(
  arc: DoctorContext,
  id: string,
  version: string,
  state: PackageState,
): Promise<{ manifest: Manifest } | { damage: string; repair: string }> {
  // What is wrong, and what a repair does about it (said before it is done, Health's preview).
  const whole = `Reinstall ${id} ${version} from the signed package`;
  const damaged = (damage: string, repair = whole): { damage: string; repair: string } => ({ damage, repair });
  const dir = arc.home.versionDir(id, version);
  if (!(await exists(dir))) return damaged('its installed files are missing');
  let manifest: Manifest;
  try {
    manifest = validateManifest(parseStrictJson(await readFile(join(dir, 'capability.json')), `capability.json of ${id}@${version}`));
  } catch (error) {
    return damaged(`its capability.json is missing or damaged (${error instanceof Error ? error.message : String(error)})`);
  }
  const expected = state.versions[version]?.manifestSha256;
  if (expected !== undefined && manifestDigest(manifest) !== expected)
    return damaged('its capability.json differs from the one that was installed');
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const file of manifest.files) {
    try {
      const actual = await hashFile(join(dir, file.path));
      if (actual.sha256 !== file.sha256 || actual.size !== file.size)
        return damaged(`${file.path} was changed after installation`, `Reinstall ${file.path} from the signed package of ${id} ${version}`);
    } catch {
      return damaged(`${file.path} is missing`, `Put back ${file.path} from the signed package of ${id} ${version}`);
    }
  }
  for (const path of await walk(dir, '')) {
    if (path !== 'capability.json' && path !== 'SIGNATURE.json' && !listed.has(path))
      return damaged(
        `${path} was added after installation`,
        `Remove ${path}, which was added after installation, by reinstalling ${id} ${version} from the signed package`,
      );
  }
  return { manifest };
}

async function walk(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out;
}

/** Reinstalls one version: from the cached archive when it is intact, else from the registry. */
async function reinstall(arc: DoctorContext, id: string, version: string, state: PackageState): Promise<string> {
  const record = state.versions[version];
  if (record === undefined)
    throw new AdcapError(
      'E_NOT_FOUND',
      `The state of ${id} has no record of ${version}, so it cannot be reinstalled; uninstall and install it again.`,
    );
  let archive: string;
  let from: string;
  if ((await arc.cache.verifyEntry(record.archiveSha256)).state === 'ok') {
    archive = arc.cache.pathFor(record.archiveSha256);
    from = 'reinstalled from the cache';
  } else if (record.source.kind === 'registry') {
    const client = await arc.sources.client(record.source.remote);
    archive = (
      await client.downloadArchive(id, version, { cache: arc.cache, ...(arc.authorize === undefined ? {} : { authorize: arc.authorize }) })
    ).path;
    from = `reinstalled from the registry "${record.source.remote}"`;
  } else {
    throw new AdcapError(
      'E_MISSING',
      `${id}@${version} was sideloaded from ${record.source.file} and its archive is no longer cached; install that file again.`,
    );
  }
  const target = arc.home.versionDir(id, version);
  await removeTree(target);
  // Only the keys the installing registry trusts for the publisher.
  const trusted = record.source.kind === 'registry' ? await registryPublisherKeys(arc, record.source.remote, id) : [];
  const verified = await verifyPackage(archive, {
    ...(record.source.kind === 'registry' ? { trusted, requireSignature: true } : {}),
    extractTo: target,
    readOnly: true,
  });
  if (verified.manifestSha256 !== record.manifestSha256) {
    await removeTree(target);
    throw new AdcapError(
      'E_HASH',
      `The archive for ${id}@${version} is not the one that was installed (manifest digest differs); uninstall and install it again.`,
    );
  }
  return from;
}

/** The keys the remote `remote` lists for the publisher of `id` (from its last verified catalogue). */
async function registryPublisherKeys(arc: DoctorContext, remote: string, id: string): Promise<TrustedKey[]> {
  const { payload } = await (await arc.sources.client(remote)).catalogue();
  return publisherTrustedKeys(payload, id.split('/')[0] ?? '');
}

/** Entries in the package directory that no state references: staging dirs, temp files, old versions. */
async function leftoverEntries(arc: DoctorContext, id: string, state: PackageState): Promise<string[]> {
  const keep = new Set(['state.json', state.active, ...state.history]);
  return (await readdir(arc.home.packageDir(id)).catch(() => [] as string[])).filter((name) => !keep.has(name)).sort();
}

async function repairState(arc: DoctorContext, id: string, error: unknown, fix: boolean): Promise<Problem> {
  const message = error instanceof Error ? error.message : String(error);
  const problem: Problem = {
    kind: 'damaged-state',
    id,
    message: `The state file of ${id} is damaged: ${message}`,
    fixable: true,
    repair:
      `Rebuild the state of ${id} from its newest intact installed version, without its grants (grant them again), ` +
      'or remove it when no version is intact',
  };
  if (!fix) return problem;
  // Rebuild from what is on disk: the highest intact version becomes active (repairableVersion, as
  // list() reports it). Grants cannot be recovered from a damaged file, so none are kept: the user
  // grants them again.
  const intact = await repairableVersion(arc.home, id, (i, v) => arc.readInstalledManifest(i, v));
  if (intact !== null) {
    const { version, manifest } = intact;
    await writeState(arc.home, {
      id,
      active: version,
      history: [],
      grants: [],
      versions: {
        [version]: {
          manifestSha256: manifestDigest(manifest),
          archiveSha256: '',
          archiveSize: 0,
          installedAt: new Date().toISOString(),
          source: { kind: 'registry', remote: '?', signedBy: [] },
          grants: [],
        },
      },
      explicit: true,
      updatedAt: new Date().toISOString(),
    });
    problem.fixed = `rebuilt with ${version} active and no grants; grant its permissions again`;
    return problem;
  }
  await removeTree(arc.home.packageDir(id));
  problem.fixed = 'removed (no intact version was left); install it again';
  return problem;
}
