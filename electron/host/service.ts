/**
 * The host service: the host API contract (electron/common/methods.ts) implemented over one
 * `Arcotheon` instance. Transport-agnostic (no Electron import): the utility process serves it
 * over IPC, `arcotheon ui` over a WebSocket (web.ts), and tests call it directly.
 *
 * This file wires the parts and holds one line (or a few) per method of the table; the parts are
 * the router (dispatch.ts: refuses unknown methods and arguments with E_USAGE, starts operations),
 * Results (results.ts), events (events.ts), long operations (operations.ts), install targets
 * (install-targets.ts), the policy (policy-status.ts), and the screens' data: catalogue.ts,
 * catalogue-index.ts, installed.ts, settings.ts, files.ts (workspaces, sideloads) and bundle-imports.ts.
 * Started by root.ts.
 */
import { join } from 'node:path';
import { FileSecretStore, resumeWorkflow, runTool, runWorkflow, watchChanges, type Arcotheon, type SecretSource } from '@arcotheon/sdk';
import { hostStore } from '@arcotheon/sdk/internal';
import { createHostClient, type HostClient } from '../common/client.js';
import { SIDELOAD_CHUNK_BYTES } from '../common/methods.js';
import type { AuditEntry, PlanData, Result } from '../common/types.js';
import type { HostEvent } from '../common/events.js';
import { BundleImports, type BundleValueStore } from './bundle-imports.js';
import { Catalogue } from './catalogue.js';
import { CatalogueIndex } from './catalogue-index.js';
import { CardRisks } from './card-risk.js';
import { createDispatch, type CallImpl, type DirectImpl, type OperationImpl } from './dispatch.js';
import { EventHub } from './events.js';
import { DEFAULT_MAX_SIDELOAD_BYTES, Sideloads, Workspaces } from './files.js';
import { InstallTargets } from './install-targets.js';
import { Installed } from './installed.js';
import { Operations, type OperationContext } from './operations.js';
import { HostPolicy } from './policy-status.js';
import { Settings } from './settings.js';
import { planView, problemSeverity } from './views.js';

export interface HostServiceOptions {
  /** Largest sideloaded file accepted from a transport (default 64 MiB). */
  maxSideloadBytes?: number;
  /**
   * Where tool runs get granted env:read values (the Electron app: safeStorage through the main
   * process, asking the user the first time). Absent: from this process's environment.
   */
  secrets?: SecretSource;
  /** The app's version, for host.info. */
  appVersion?: string;
  /** The user's home folder (default os.homedir()): it and its credential folders are never workspaces. */
  userHome?: string;
  /**
   * Where the values a user gives for an imported MCP Bundle's settings are stored once it is
   * installed (docs/spec/mcp-runtime.md "MCP Bundles"). Default: without `secrets`, the store
   * `adcap secret set` writes (<home>/secrets.json, mode 0600), which tool runs then read after the
   * environment, as `adcap run` does; with `secrets` (the desktop app asks the user), none.
   */
  secretStore?: BundleValueStore | null;
  /** The folder of the user's own publisher key (default: the CLI's configuration folder). */
  configDir?: string;
}

export interface HostService {
  /** The typed client over this service, in process (tests, the Electron utility process). */
  readonly api: HostClient;
  /** Calls `method` with `args` as received from a transport (checked against the method table first). */
  dispatch(method: unknown, args: unknown): Promise<Result<unknown>>;
  /** Listens to progress and change events; returns the function that stops listening. */
  subscribe(listener: (event: HostEvent) => void): () => void;
  /** Cancels running operations and removes scratch files. */
  close(): Promise<void>;
}

export function createHostService(arc: Arcotheon, options: HostServiceOptions = {}): HostService {
  const events = new EventHub();
  const emit = (event: HostEvent): void => events.emit(event);
  const operations = new Operations(emit);
  const store = hostStore(arc);
  const workspaces = new Workspaces(store.homeDir, options.userHome);
  const sideloads = new Sideloads(options.maxSideloadBytes ?? DEFAULT_MAX_SIDELOAD_BYTES, SIDELOAD_CHUNK_BYTES);
  // Without a host-provided source, env:read values come from the environment, then from the store
  // `adcap secret set` writes (as adcap run reads them), where an imported bundle's values are kept.
  const fileSecrets = options.secrets === undefined ? new FileSecretStore(join(store.homeDir, 'secrets.json')) : null;
  const runSecrets =
    options.secrets ??
    (async ({ capability, variable }: { capability: string; variable: string }): Promise<string | undefined> => {
      const fromEnv = process.env[variable];
      if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
      return fileSecrets?.get(capability, variable);
    });
  const bundles = new BundleImports(options.secretStore !== undefined ? options.secretStore : fileSecrets, options.configDir);
  const targets = new InstallTargets(sideloads, bundles);
  const installed = new Installed(arc);
  const catalogue = new Catalogue(arc, installed, () => emit({ type: 'catalogue-changed' }));
  const catalogueIndex = new CatalogueIndex(store, installed, catalogue, () => emit({ type: 'catalogue-changed' }));
  const cardRisks = new CardRisks(arc, store, installed);
  const settings = new Settings(arc);

  const installedChanged = (): void => {
    installed.invalidate();
    emit({ type: 'installed-changed' });
  };
  /** A call that changes what is installed: once it is done, the page hears installed-changed. */
  const changing =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await work(...args);
      installedChanged();
      return result;
    };
  // A change another process makes to the home (adcap in a terminal, a second app) reaches the page
  // too: the SDK's change events (sdk/README.md "watchChanges") become installed-changed.
  const homeWatch = watchChanges(arc, installedChanged, { debounceMs: 200 });
  const policy = new HostPolicy(arc, () => {
    installedChanged();
    emit({ type: 'policy-changed' });
  });
  const remotesChanged = (): void => {
    catalogue.invalidate();
    catalogueIndex.invalidate();
    installed.invalidate();
    emit({ type: 'remotes-changed' });
    emit({ type: 'catalogue-changed' });
  };

  const doctor = async (ctx: OperationContext | null, opts: { fix?: boolean; dryRun?: boolean } = {}) => {
    ctx?.progress({ phase: 'check', done: 0 });
    const report = await arc.doctor({
      ...(opts.fix === undefined ? {} : { fix: opts.fix }),
      ...(opts.dryRun === undefined ? {} : { dryRun: opts.dryRun }),
    });
    const fixed = opts.fix === true && opts.dryRun !== true;
    installed.rememberDoctor(report, fixed);
    if (fixed) installedChanged();
    return {
      ...report,
      problems: report.problems.map((p) => ({ ...p, severity: problemSeverity(p.kind) })),
      dryRun: opts.dryRun === true,
      fixed,
    };
  };

  const calls: CallImpl = {
    'host.info': async () =>
      settings.hostInfo(options.appVersion ?? '0.0.0', { maxSideloadBytes: sideloads.maxBytes, sideloadChunkBytes: sideloads.chunkBytes }),
    'catalogue.index': (request = {}) => catalogueIndex.page(request),
    'catalogue.known': (request = {}) => catalogueIndex.known(request),
    'catalogue.risks': (request) => cardRisks.verdicts(request),
    'catalogue.show': (id) => arc.packageDoc(id),
    'catalogue.detail': (id, opts = {}) => catalogue.detail(id, opts),
    'installs.overview': () => installed.overview(),
    'installs.detail': (id) => installed.detail(id),
    'installs.plan': async (target): Promise<PlanData> => targets.marked(target, planView(await arc.plan(targets.request(target)))),
    'installs.rollback': changing((id) => arc.rollback(id)),
    'installs.uninstall': changing((id) => arc.uninstall(id)),
    'installs.grants': (id) => installed.grants(id),
    'installs.revokeGrant': changing((id, grant) => arc.revokeGrant(id, grant)),
    'installs.grant': changing((id, grant) => arc.grant(id, grant)),
    'installs.disable': changing((id) => arc.disable(id)),
    'installs.enable': changing((id) => arc.enable(id)),
    'updates.check': () => installed.checkUpdates(),
    'remotes.list': () => store.remotes(),
    'remotes.status': () => settings.remoteStatus(),
    'remotes.add': async (name, url, rootKeys) => {
      const added = await settings.addRemote(name, url, rootKeys);
      remotesChanged();
      return added;
    },
    'remotes.remove': async (name) => {
      await settings.removeRemote(name);
      remotesChanged();
      return null;
    },
    'policy.show': () => policy.status(),
    'audit.list': async (opts = {}): Promise<AuditEntry[]> => settings.auditList(opts),
    'audit.verify': () => settings.auditVerify(),
    'cache.info': () => settings.cacheInfo(),
    'sandbox.status': () => settings.sandboxStatus(),
    'workspaces.confirm': async (path) => {
      const workspace = await workspaces.confirm(path);
      emit({ type: 'workspaces-changed' });
      return workspace;
    },
    'workspaces.list': async () => workspaces.list(),
    'workspaces.forget': async (handle) => {
      workspaces.forget(handle);
      emit({ type: 'workspaces-changed' });
      return null;
    },
    'sideload.begin': ({ name, size }) => sideloads.begin(name, size),
    'sideload.chunk': (upload, offset, data) => sideloads.chunk(upload, offset, data),
    'sideload.commit': (upload) => sideloads.commit(upload),
    'sideload.abort': async (upload) => {
      await sideloads.abort(upload);
      return null;
    },
    'sideload.inspectBundle': (file) => bundles.inspect(sideloads.path(file), sideloads.name(file)),
    'sideload.importBundle': (file, choices) => bundles.import(sideloads.path(file), sideloads.name(file), choices),
    'agents.list': () => arc.agents(),
    // Only what the UI may choose reaches the SDK (never userHome or mode); a project is a handle.
    'agents.link': async (id, agent, opts = {}) => {
      const project = opts.project === undefined ? undefined : await workspaces.resolve(opts.project);
      const result = await arc.linkSkills(id, {
        agent,
        ...(opts.as === undefined ? {} : { as: opts.as }),
        ...(opts.skip === undefined ? {} : { skip: opts.skip }),
        ...(project === undefined || project === null ? {} : { project }),
      });
      installedChanged();
      return result;
    },
    'agents.unlink': async (id, agent) => {
      const result = await arc.unlinkSkills(id, agent === undefined || agent === null ? {} : { agent });
      installedChanged();
      return result;
    },
    'agents.mcp': (ids) => arc.agentMcp(ids),
    'operations.list': async () => operations.list(),
  };

  /** The operations' own methods answer with a Result of their own (the operation's, or E_NOT_FOUND). */
  const direct: DirectImpl = {
    'operations.wait': (id) => operations.wait(id),
    'operations.cancel': async (id) => operations.cancel(id),
  };

  const ops: OperationImpl = {
    'installs.install': {
      label: (target) => `Install ${targets.label(target)}`,
      run: async (ctx, target, approval) => {
        const result = await arc.install(targets.request(target), {
          approvedDigest: approval.approvedDigest,
          ...(approval.allowUnsigned === true ? { allowUnsigned: true } : {}),
          onProgress: ctx.progress,
          signal: ctx.signal,
        });
        try {
          // An imported MCP Bundle's setting values are stored only once it is installed.
          const bundle = targets.bundleOf(target);
          if (bundle !== undefined && result.applied) await bundles.installed(bundle);
        } finally {
          installedChanged();
        }
        return { ...result, plan: targets.marked(target, planView(result.plan)) };
      },
    },
    'updates.apply': {
      label: (ids) => (ids === null ? 'Update everything' : `Update ${ids.join(', ')}`),
      run: (ctx, ids, approval) => applyUpdate(ctx, ids, approval),
    },
    'policy.apply': { label: () => "Apply your organisation's policy", run: (ctx) => policy.apply(ctx) },
    'doctor.run': { label: (o) => doctorLabel(o), run: (ctx, o) => doctor(ctx, o) },
    'remotes.refresh': {
      label: (name) => (name === null || name === undefined ? 'Refresh every registry' : `Refresh ${name}`),
      run: async (ctx, name) => {
        const status = await settings.refresh(name ?? null, ctx);
        remotesChanged();
        return status;
      },
    },
    'cache.gc': {
      label: () => 'Clean the download cache',
      run: async (ctx) => {
        ctx.progress({ phase: 'gc', done: 0 });
        const gc = await arc.gcCache();
        return { removed: gc.removed.length, freedBytes: gc.freedBytes, kept: gc.kept };
      },
    },
    'run.tool': {
      label: (id, tool) => `Run ${id} ${tool}`,
      run: async (ctx, id, tool, input, runOptions = {}) => {
        const workspace = await workspaces.resolve(runOptions.workspace);
        return runTool(arc, id, tool, input, {
          workspace,
          onProgress: ctx.progress,
          signal: ctx.signal,
          secrets: runSecrets,
        });
      },
    },
    'run.workflow': {
      label: (id, workflow) => `Run ${id} workflow ${workflow}`,
      run: async (ctx, id, workflow, inputs, runOptions = {}) => {
        const workspace = await workspaces.resolve(runOptions.workspace);
        return runWorkflow(arc, id, workflow, inputs, {
          workspace,
          onProgress: ctx.progress,
          signal: ctx.signal,
          secrets: runSecrets,
        });
      },
    },
    'run.resumeWorkflow': {
      label: () => 'Continue a workflow',
      run: async (ctx, token, agentOutput, runOptions = {}) => {
        const workspace = await workspaces.resolve(runOptions.workspace);
        return resumeWorkflow(arc, token, agentOutput, {
          workspace,
          onProgress: ctx.progress,
          signal: ctx.signal,
          secrets: runSecrets,
        });
      },
    },
  };

  async function applyUpdate(ctx: OperationContext, ids: string[] | null, approval: { approvedDigest: string } | undefined) {
    // spec §6: without the digest of a plan the user approved, the SDK applies only updates that
    // need no new permission (and reports needsApproval for the rest).
    const result = await arc.update(ids ?? undefined, {
      ...(approval === undefined ? {} : { approvedDigest: approval.approvedDigest }),
      onProgress: ctx.progress,
      signal: ctx.signal,
    });
    if (result.applied) installedChanged();
    return { ...result, plan: planView(result.plan) };
  }

  const dispatch = createDispatch({ calls, direct, ops, operations });
  return {
    api: createHostClient(dispatch, (listener) => events.subscribe(listener)),
    dispatch,
    subscribe: (listener) => events.subscribe(listener),
    async close() {
      homeWatch.close();
      await operations.close();
      await sideloads.close();
      await bundles.close();
      await catalogueIndex.close();
      await catalogue.close();
    },
  };
}

function doctorLabel(options: { fix?: boolean; dryRun?: boolean } | undefined): string {
  return options?.fix === true ? (options.dryRun === true ? 'Preview repairs' : 'Repair') : 'Check health';
}
