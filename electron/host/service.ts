/**
 * The host service: the host API contract (electron/common/methods.ts) implemented over one
 * `Arcotheon` instance. Transport-agnostic (no Electron import): the utility process serves it
 * over IPC, `arcotheon ui` over a WebSocket (web.ts), and tests call it directly.
 *
 * `dispatch(method, args)` is what transports call with what they received: unknown methods and
 * arguments that do not fit the method's schema are refused with E_USAGE before anything runs.
 * Every method resolves to a Result; a failure carries the SDK's stable code and its sentence,
 * never a stack trace. Long methods start an operation (operations.ts) and return its id at once.
 */
import { join } from 'node:path';
import {
  describePolicy,
  FileSecretStore,
  isAdcapError,
  resumeWorkflow,
  runTool,
  runWorkflow,
  watchChanges,
  type Arcotheon,
  type SecretSource,
} from '@arcotheon/sdk';
import { hostStore, surfaceMessage, uiNextStep } from '@arcotheon/sdk/internal';
import { createHostClient, type HostClient } from '../common/client.js';
import {
  checkArguments,
  isHostMethod,
  isOperationMethod,
  METHODS,
  SIDELOAD_CHUNK_BYTES,
  type ArgsMap,
  type HostMethod,
  type OperationMethod,
  type ValueMap,
  type WireResult,
} from '../common/methods.js';
import type { AuditEntry, HostError, HostEvent, InstallTargetData, PlanData, PolicyStatusData, Result } from '../common/types.js';
import { BundleImports, type BundleValueStore } from './bundle-imports.js';
import { Catalogue } from './catalogue.js';
import { CatalogueIndex } from './catalogue-index.js';
import { DEFAULT_MAX_SIDELOAD_BYTES, Sideloads, Workspaces } from './files.js';
import { Installed } from './installed.js';
import { Operations, type OperationContext } from './operations.js';
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

/** Methods that answer with a Result of their own rather than a value to wrap. */
type DirectMethod = 'operations.wait' | 'operations.cancel';
const isDirect = (method: HostMethod): method is DirectMethod => method === 'operations.wait' || method === 'operations.cancel';
type DirectImpl = { [M in DirectMethod]: (...args: ArgsMap[M]) => Promise<WireResult<M>> };
type CallMethod = Exclude<HostMethod, OperationMethod | DirectMethod>;
type Erased<R> = (...args: unknown[]) => Promise<R>;
type CallImpl = { [M in CallMethod]: (...args: ArgsMap[M]) => Promise<ValueMap[M]> };
type OperationImpl = {
  [M in OperationMethod]: {
    label: (...args: ArgsMap[M]) => string;
    run: (ctx: OperationContext, ...args: ArgsMap[M]) => Promise<ValueMap[M]>;
  };
};

export function createHostService(arc: Arcotheon, options: HostServiceOptions = {}): HostService {
  const listeners = new Set<(event: HostEvent) => void>();
  const emit = (event: HostEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed transport) must not stop the others or the operation.
      }
    }
  };
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
  const installed = new Installed(arc);
  const catalogue = new Catalogue(arc, installed, () => emit({ type: 'catalogue-changed' }));
  const catalogueIndex = new CatalogueIndex(store, installed, catalogue);
  const settings = new Settings(arc);

  const installedChanged = (): void => {
    installed.invalidate();
    emit({ type: 'installed-changed' });
  };
  // A change another process makes to the home (adcap in a terminal, a second app) reaches the page
  // too: the SDK's change events (sdk/README.md "watchChanges") become installed-changed.
  const homeWatch = watchChanges(arc, installedChanged, { debounceMs: 200 });
  const remotesChanged = (): void => {
    catalogue.invalidate();
    installed.invalidate();
    emit({ type: 'remotes-changed' });
    emit({ type: 'catalogue-changed' });
  };

  /** The SDK's install request for a contract target: a sideload handle becomes the file it names. */
  const toRequest = (target: InstallTargetData): Parameters<Arcotheon['plan']>[0] => {
    if (typeof target === 'string' || Array.isArray(target) || 'id' in target) return target;
    return {
      ...(target.packages === undefined ? {} : { packages: target.packages }),
      ...(target.sideload === undefined ? {} : { file: sideloads.path(target.sideload) }),
      ...(target.bundle === undefined ? {} : bundles.request(target.bundle)),
      ...(target.includePrerelease === undefined ? {} : { includePrerelease: target.includePrerelease }),
    };
  };
  const targetLabel = (target: InstallTargetData): string =>
    typeof target === 'string'
      ? target
      : Array.isArray(target)
        ? target.map((t) => (typeof t === 'string' ? t : t.id)).join(', ')
        : 'id' in target
          ? target.id
          : target.sideload !== undefined || target.bundle !== undefined
            ? 'a sideloaded file'
            : (target.packages ?? []).map((t) => (typeof t === 'string' ? t : t.id)).join(', ');

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

  /** Issue 17: the outcome of the last `policy.apply` (the host runs it at start-up; see startUp). */
  let lastApply: PolicyStatusData['lastApply'] = null;
  const policyStatus = async (): Promise<PolicyStatusData> => {
    let loaded: Awaited<ReturnType<Arcotheon['policyInForce']>> = null;
    let error: HostError | null = null;
    try {
      loaded = await arc.policyInForce();
    } catch (e) {
      if (!isAdcapError(e, 'E_POLICY')) throw e;
      error = { code: e.code, message: e.message };
    }
    const p = loaded?.policy;
    return {
      policy:
        loaded === null || p === undefined
          ? null
          : {
              path: loaded.path,
              source: loaded.source,
              organisation: p.organisation ?? null,
              contact: p.contact ?? null,
              lines: describePolicy(loaded),
              remotes: p.remotes === undefined ? null : p.remotes.map((r) => r.name),
              required: p.required ?? [],
              blocked: p.blocked ?? [],
              deniedPermissions: p.deniedPermissions ?? [],
            },
      error,
      lastApply,
    };
  };

  const calls: CallImpl = {
    'host.info': async () =>
      settings.hostInfo(options.appVersion ?? '0.0.0', { maxSideloadBytes: sideloads.maxBytes, sideloadChunkBytes: sideloads.chunkBytes }),
    'catalogue.query': (request = {}) => catalogue.query(request),
    'catalogue.index': (request = {}) => catalogueIndex.page(request),
    'catalogue.known': (request = {}) => catalogueIndex.known(request),
    'catalogue.show': (id) => arc.packageDoc(id),
    'catalogue.detail': (id, opts = {}) => catalogue.detail(id, opts),
    'installs.overview': () => installed.overview(),
    'installs.detail': (id) => installed.detail(id),
    'installs.plan': async (target): Promise<PlanData> => ownKeyMarked(target, planView(await arc.plan(toRequest(target)))),
    'installs.rollback': async (id) => {
      const result = await arc.rollback(id);
      installedChanged();
      return result;
    },
    'installs.uninstall': async (id) => {
      const result = await arc.uninstall(id);
      installedChanged();
      return result;
    },
    'installs.grants': (id) => installed.grants(id),
    'installs.revokeGrant': async (id, grant) => {
      const result = await arc.revokeGrant(id, grant);
      installedChanged();
      return result;
    },
    'installs.grant': async (id, grant) => {
      const result = await arc.grant(id, grant);
      installedChanged();
      return result;
    },
    'installs.disable': async (id) => {
      const result = await arc.disable(id);
      installedChanged();
      return result;
    },
    'installs.enable': async (id) => {
      const result = await arc.enable(id);
      installedChanged();
      return result;
    },
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
    'policy.show': () => policyStatus(),
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
      label: (target) => `Install ${targetLabel(target)}`,
      run: async (ctx, target, approval) => {
        const result = await arc.install(toRequest(target), {
          approvedDigest: approval.approvedDigest,
          ...(approval.allowUnsigned === true ? { allowUnsigned: true } : {}),
          onProgress: ctx.progress,
          signal: ctx.signal,
        });
        try {
          // An imported MCP Bundle's setting values are stored only once it is installed.
          if (typeof target === 'object' && !Array.isArray(target) && 'bundle' in target && target.bundle !== undefined && result.applied)
            await bundles.installed(target.bundle);
        } finally {
          installedChanged();
        }
        return { ...result, plan: ownKeyMarked(target, planView(result.plan)) };
      },
    },
    'updates.apply': {
      label: (ids) => (ids === null ? 'Update everything' : `Update ${ids.join(', ')}`),
      run: (ctx, ids, approval) => applyUpdate(ctx, ids, approval),
    },
    'policy.apply': {
      label: () => "Apply your organisation's policy",
      run: async (ctx) => {
        ctx.progress({ phase: 'policy', done: 0 });
        const at = new Date().toISOString();
        try {
          const result = await arc.applyPolicy();
          lastApply = { at, result, error: null };
          return result;
        } catch (error) {
          lastApply = {
            at,
            result: null,
            error: isAdcapError(error)
              ? { code: error.code, message: error.message }
              : { code: 'E_IO', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` },
          };
          throw error;
        } finally {
          installedChanged();
          emit({ type: 'policy-changed' });
        }
      },
    },
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

  /** Starts operation `method` and answers its id at once (operations.ts). */
  function start<M extends OperationMethod>(method: M, args: ArgsMap[M]): Result<{ operation: string }> {
    const op = ops[method];
    const cancellable = METHODS[method].cancellable === true;
    const id = operations.start(method, op.label(...args), cancellable, (ctx) => settle(() => op.run(ctx, ...args)));
    return { ok: true, value: { operation: id } };
  }

  async function dispatch(method: unknown, args: unknown): Promise<Result<unknown>> {
    if (!isHostMethod(method))
      return failure({ code: 'E_USAGE', message: `"${String(method).slice(0, 100)}" is not a method of the Arcotheon host API.` });
    const problem = checkArguments(method, args);
    if (problem !== null) return failure({ code: 'E_USAGE', message: problem });
    // `args` fit the method's schema now, so they are ArgsMap[method]; TypeScript cannot follow a
    // method name known only at run time to its arguments, so the handler is called by its erased type.
    const list = args as unknown[];
    if (isDirect(method)) return (direct[method] as Erased<Result<unknown>>)(...list);
    if (isOperationMethod(method)) return start(method, list as ArgsMap[OperationMethod]);
    return settle(() => (calls[method] as Erased<unknown>)(...list));
  }

  return {
    api: createHostClient(dispatch, (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
    dispatch,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      homeWatch.close();
      await operations.close();
      await sideloads.close();
      await bundles.close();
      catalogue.close();
    },
  };
}

/** The plan of an imported MCP Bundle: its file item is marked as built and signed with the user's own key. */
function ownKeyMarked(target: InstallTargetData, plan: PlanData): PlanData {
  if (typeof target !== 'object' || Array.isArray(target) || !('bundle' in target) || target.bundle === undefined) return plan;
  return {
    ...plan,
    items: plan.items.map((item) => (item.source.kind === 'file' ? { ...item, source: { ...item.source, addedByYou: true } } : item)),
  };
}

function doctorLabel(options: { fix?: boolean; dryRun?: boolean } | undefined): string {
  return options?.fix === true ? (options.dryRun === true ? 'Preview repairs' : 'Repair') : 'Check health';
}

/** Runs `work` and turns its outcome into a Result; unexpected errors keep only their message. */
async function settle<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (isAdcapError(error)) {
      // The sentence for the UI: buttons and screens, never an API call or a terminal command.
      const details = plainDetails(error.details);
      const next = uiNextStep(error);
      return failure({
        code: error.code,
        message: surfaceMessage(error, 'ui'),
        ...(next === undefined ? {} : { next }),
        ...(details === undefined ? {} : { details }),
      });
    }
    return failure({ code: 'E_IO', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** Error details that are plain JSON (a stderr tail, dependents), never objects with methods. */
function plainDetails(details: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  if (Object.keys(details).length === 0) return undefined;
  try {
    return JSON.parse(JSON.stringify(details)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function failure(error: HostError): { ok: false; error: HostError } {
  return { ok: false, error };
}
