/**
 * The host service: `HostApi` implemented over one `Arcotheon` instance. Transport-agnostic (no
 * Electron import): the utility process serves it over IPC, `arcotheon ui` over a WebSocket, and
 * tests call it directly. Every method resolves to a `Result`; a failure carries the SDK's stable
 * code and its sentence, never a stack trace.
 */
import { isAdcapError, runTool, runWorkflow, type Arcotheon, type ErrorCode } from '@arcotheon/sdk';
import { isHostMethod, type HostApi, type HostEvent, type HostMethod, type InstallTarget, type Result } from './api.js';

export interface HostService {
  readonly api: HostApi;
  /**
   * Calls `method` with `args` as received from a transport: unknown methods and malformed
   * arguments are refused with E_USAGE before anything runs.
   */
  dispatch(method: unknown, args: unknown): Promise<Result<unknown>>;
  /** Listens to progress and change events; returns the function that stops listening. */
  subscribe(listener: (event: HostEvent) => void): () => void;
}

export function createHostService(arc: Arcotheon): HostService {
  const listeners = new Set<(event: HostEvent) => void>();
  let operations = 0;
  const emit = (event: HostEvent): void => {
    for (const listener of listeners) listener(event);
  };
  const progress = (method: HostMethod) => {
    const operation = ++operations;
    return (p: { phase: string; done: number; total?: number; item?: string }): void =>
      emit({ type: 'progress', operation, method, phase: p.phase, done: p.done, ...(p.total === undefined ? {} : { total: p.total }), ...(p.item === undefined ? {} : { item: p.item }) });
  };
  /** A change to what is installed: run it, then tell every UI to refresh. */
  const changing = async <T>(work: () => Promise<T>): Promise<Result<T>> => {
    const result = await settle(work);
    if (result.ok) emit({ type: 'installed-changed' });
    return result;
  };

  const api: HostApi = {
    catalogue: {
      search: (query, filters = {}) => settle(() => arc.search(query, filters)),
      show: (id) => settle(() => arc.packageDoc(id)),
    },
    remotes: {
      list: () => settle(() => arc.sources.remotes()),
      update: () =>
        settle(async () => {
          await arc.refreshRemotes();
          return null;
        }),
    },
    installs: {
      list: () => settle(() => arc.list()),
      plan: (request) => settle(() => arc.plan(request)),
      install: (request, approval) =>
        changing(() =>
          arc.install(request, {
            approvedDigest: approval.approvedDigest,
            ...(approval.allowUnsigned === true ? { allowUnsigned: true } : {}),
            onProgress: progress('installs.install'),
          }),
        ),
      update: (ids, approval) =>
        changing(() => arc.update(ids ?? undefined, { ...(approval === undefined ? {} : { approvedDigest: approval.approvedDigest }), onProgress: progress('installs.update') })),
      rollback: (id) => changing(() => arc.rollback(id)),
      uninstall: (id) => changing(() => arc.uninstall(id)),
      grants: (id) => settle(() => arc.grants(id)),
      revokeGrant: (id, grant) => changing(() => arc.revokeGrant(id, grant)),
      grant: (id, grant) => changing(() => arc.grant(id, grant)),
      doctor: (options = {}) => changing(() => arc.doctor(options)),
    },
    agents: {
      list: () => settle(() => arc.agents()),
      // Only the fields the UI may choose (never userHome or mode) reach the SDK.
      link: (id, agent, options = {}) =>
        changing(() =>
          arc.linkSkills(id, {
            agent,
            ...(options.as === undefined ? {} : { as: options.as }),
            ...(options.skip === undefined ? {} : { skip: options.skip }),
            ...(options.project === undefined ? {} : { project: options.project }),
          }),
        ),
      unlink: (id, agent) => changing(() => arc.unlinkSkills(id, agent === undefined ? {} : { agent })),
      mcp: (ids) => settle(() => arc.agentMcp(ids)),
    },
    run: {
      tool: (id, tool, input, options = {}) => settle(() => runTool(arc, id, tool, input, { workspace: options.workspace ?? null, onProgress: progress('run.tool') })),
      workflow: (id, workflowId, inputs, options = {}) =>
        settle(() => runWorkflow(arc, id, workflowId, inputs, { workspace: options.workspace ?? null, onProgress: progress('run.workflow') })),
    },
  };

  return {
    api,
    async dispatch(method, args) {
      if (!isHostMethod(method)) return failure('E_USAGE', `"${String(method)}" is not a method of the Arcotheon host API.`);
      if (!Array.isArray(args)) return failure('E_USAGE', `The arguments of ${method} must be an array.`);
      const problem = argumentProblem(method, args);
      if (problem !== null) return failure('E_USAGE', `${method}: ${problem}.`);
      // isHostMethod passed, and HOST_METHODS lists exactly HostApi's methods (checked in api.ts).
      const [namespace, name] = method.split('.') as [keyof HostApi, string];
      const fn = (api[namespace] as unknown as Record<string, (...a: unknown[]) => Promise<Result<unknown>>>)[name] as (...a: unknown[]) => Promise<Result<unknown>>;
      return fn(...args);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Runs `work` and turns its outcome into a Result; unexpected errors keep only their message. */
async function settle<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (isAdcapError(error)) return failure(error.code, error.message);
    return failure('E_IO', `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function failure(code: ErrorCode, message: string): { ok: false; error: { code: ErrorCode; message: string } } {
  return { ok: false, error: { code, message } };
}

const isString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTarget = (v: unknown): v is InstallTarget =>
  isString(v) || isObject(v) || (Array.isArray(v) && v.every((x) => isString(x) || isObject(x)));

const isLinkOptions = (v: unknown): boolean => {
  if (!isObject(v)) return false;
  const { as, skip, project, ...rest } = v as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (as === undefined || (isObject(as) && Object.values(as as object).every(isString))) &&
    (skip === undefined || (Array.isArray(skip) && skip.every(isString))) &&
    (project === undefined || isString(project))
  );
};

/**
 * The shape each method accepts from a transport (the renderer is less trusted than the host):
 * argument count and types. The SDK then validates meaning (ids, ranges, grants).
 */
function argumentProblem(method: HostMethod, args: unknown[]): string | null {
  const [a, b, c, d] = args;
  const expect = (ok: boolean, what: string): string | null => (ok ? null : `expects ${what}`);
  switch (method) {
    case 'catalogue.search':
      return expect(args.length <= 2 && typeof a === 'string' && (b === undefined || isObject(b)), '(query: string, filters?: object)');
    case 'catalogue.show':
    case 'installs.rollback':
    case 'installs.uninstall':
    case 'installs.grants':
      return expect(args.length === 1 && isString(a), '(id: string)');
    case 'remotes.list':
    case 'remotes.update':
    case 'installs.list':
      return expect(args.length === 0, 'no arguments');
    case 'installs.plan':
      return expect(args.length === 1 && isTarget(a), '(request)');
    case 'installs.install':
      return expect(args.length === 2 && isTarget(a) && isObject(b) && isString((b as { approvedDigest?: unknown }).approvedDigest), '(request, { approvedDigest })');
    case 'installs.update':
      return expect(
        args.length <= 2 && (a === null || a === undefined || (Array.isArray(a) && a.every(isString))) && (b === undefined || (isObject(b) && isString((b as { approvedDigest?: unknown }).approvedDigest))),
        '(ids: string[] | null, { approvedDigest }?)',
      );
    case 'installs.revokeGrant':
    case 'installs.grant':
      return expect(args.length === 2 && isString(a) && isString(b), '(id: string, grant: string)');
    case 'installs.doctor':
      return expect(args.length <= 1 && (a === undefined || isObject(a)), '(options?: { fix, dryRun })');
    case 'agents.list':
      return expect(args.length === 0, 'no arguments');
    case 'agents.link':
      return expect(args.length >= 2 && args.length <= 3 && isString(a) && isString(b) && (c === undefined || isLinkOptions(c)), '(id: string, agent: string, options?: { as?: { skill: name }, skip?: string[], project?: string })');
    case 'agents.unlink':
      return expect(args.length >= 1 && args.length <= 2 && isString(a) && (b === undefined || isString(b)), '(id: string, agent?: string)');
    case 'agents.mcp':
      return expect(args.length === 1 && Array.isArray(a) && a.length > 0 && a.every(isString), '(ids: string[])');
    case 'run.tool':
      return expect(args.length >= 3 && args.length <= 4 && isString(a) && isString(b) && (d === undefined || isObject(d)), '(id, tool, input, options?)');
    case 'run.workflow':
      return expect(args.length >= 3 && args.length <= 4 && isString(a) && isString(b) && (d === undefined || isObject(d)) && c !== undefined, '(id, workflowId, inputs, options?)');
  }
}

