/**
 * The typed client of the host API, built from the method table (methods.ts): one function per
 * method, namespaced (`client.catalogue.index({ limit: 1000 })`, `client.installs.install(target, { approvedDigest })`),
 * with arguments checked against the same schemas the host checks before anything is sent.
 *
 * The client needs only a `call(method, args)` function (the Electron preload's bridge, or the
 * WebSocket transport in ws-transport.ts) and, for events, a `subscribe(listener)` function.
 *
 *   const client = createHostClient(transport.call, transport.subscribe);
 *   const started = await client.installs.install('acme/pdf', { approvedDigest: plan.digest });
 *   const stop = client.events.onOperation(started, (e) => showProgress(e));
 *   const result = await client.operations.wait(started);   // Result<ApplyResultData>
 */
import {
  checkArguments,
  type HostMethod,
  type MethodArgs,
  type OperationMethod,
  type MethodValue,
  type Started,
  type WireResult,
  type WireValue,
} from './methods.js';
import type { HostEvent, OperationEvent, ProgressEvent } from './events.js';
import type { Operation, Result } from './types.js';

export type CallFn = (method: HostMethod, args: unknown[]) => Promise<Result<unknown>>;
export type SubscribeFn = (listener: (event: HostEvent) => void) => () => void;

type NamespaceOf<M> = M extends `${infer N}.${string}` ? N : never;
export type HostNamespace = NamespaceOf<HostMethod>;
type MethodsOf<N extends string> = {
  [M in HostMethod as M extends `${N}.${infer K}` ? K : never]: (...args: MethodArgs<M>) => Promise<WireResult<M>>;
};

/** An operation's id, its `{ operation }` value, or the Result a long method resolved to. */
export type OperationRef<T> = string | Operation<T> | Result<Operation<T>>;

/**
 * Every method of the table, namespaced, as the client exposes it. `operations.wait` takes what a
 * long method resolved to and resolves with that operation's Result, typed by the method.
 */
export type HostApi = { [N in Exclude<HostNamespace, 'operations'>]: MethodsOf<N> } & {
  operations: Omit<MethodsOf<'operations'>, 'wait'> & {
    /** The final Result of an operation (typed by the method that started it). */
    wait<T>(op: OperationRef<T>): Promise<Result<T>>;
  };
};

export interface HostEvents {
  /** Every event; returns the function that stops listening. */
  subscribe(listener: (event: HostEvent) => void): () => void;
  /** Progress and the final `operation` event of one operation. */
  onOperation(op: string | Operation<unknown>, listener: (event: ProgressEvent | OperationEvent) => void): () => void;
}

export type HostClient = HostApi & {
  events: HostEvents;
  /** Calls a method by name (what the namespaced functions do). */
  call<M extends HostMethod>(method: M, ...args: MethodArgs<M>): Promise<WireResult<M>>;
  /** Starts an operation method and waits for its final Result. */
  perform<M extends OperationMethod>(method: M, ...args: MethodArgs<M>): Promise<Result<MethodValue<M>>>;
};

const usage = (message: string): Result<never> => ({ ok: false, error: { code: 'E_USAGE', message } });

export function createHostClient(call: CallFn, subscribe?: SubscribeFn): HostClient {
  /** Sends `method` once its arguments fit the table; resolves with what the host answered. */
  async function send<V>(method: HostMethod, args: readonly unknown[]): Promise<Result<V>> {
    // Trailing undefined arguments are dropped: JSON would turn them into null.
    const sent: unknown[] = [...args];
    while (sent.length > 0 && sent[sent.length - 1] === undefined) sent.pop();
    const problem = checkArguments(method, sent);
    if (problem !== null) return usage(problem);
    // The host answers `method` with the value its table entry names (electron/host/service.ts is
    // typed by the same table); the transport carries it as JSON, so the type is restored here.
    return (await call(method, sent)) as Result<V>;
  }
  const invoke = <M extends HostMethod>(method: M, args: MethodArgs<M>): Promise<WireResult<M>> => send<WireValue<M>>(method, args);
  const bind =
    <M extends HostMethod>(method: M) =>
    (...args: MethodArgs<M>): Promise<WireResult<M>> =>
      invoke(method, args);

  async function wait<T>(op: OperationRef<T>): Promise<Result<T>> {
    let id: string;
    if (typeof op === 'string') id = op;
    else if ('ok' in op) {
      if (!op.ok) return op;
      id = op.value.operation;
    } else id = op.operation;
    // operations.wait resolves with the operation's own Result: that of the method that started it.
    return send<T>('operations.wait', [id]);
  }

  // One line per method of the table: `satisfies HostApi` stops tsc when a method is missing here.
  const api = {
    host: { info: bind('host.info') },
    catalogue: {
      index: bind('catalogue.index'),
      known: bind('catalogue.known'),
      risks: bind('catalogue.risks'),
      show: bind('catalogue.show'),
      detail: bind('catalogue.detail'),
    },
    installs: {
      overview: bind('installs.overview'),
      detail: bind('installs.detail'),
      plan: bind('installs.plan'),
      install: bind('installs.install'),
      rollback: bind('installs.rollback'),
      uninstall: bind('installs.uninstall'),
      grants: bind('installs.grants'),
      revokeGrant: bind('installs.revokeGrant'),
      grant: bind('installs.grant'),
      disable: bind('installs.disable'),
      enable: bind('installs.enable'),
    },
    updates: { check: bind('updates.check'), apply: bind('updates.apply') },
    remotes: {
      list: bind('remotes.list'),
      status: bind('remotes.status'),
      add: bind('remotes.add'),
      remove: bind('remotes.remove'),
      refresh: bind('remotes.refresh'),
    },
    doctor: { run: bind('doctor.run') },
    policy: { show: bind('policy.show'), apply: bind('policy.apply') },
    audit: { list: bind('audit.list'), verify: bind('audit.verify') },
    cache: { info: bind('cache.info'), gc: bind('cache.gc') },
    sandbox: { status: bind('sandbox.status') },
    workspaces: { confirm: bind('workspaces.confirm'), list: bind('workspaces.list'), forget: bind('workspaces.forget') },
    sideload: {
      begin: bind('sideload.begin'),
      chunk: bind('sideload.chunk'),
      commit: bind('sideload.commit'),
      abort: bind('sideload.abort'),
      inspectBundle: bind('sideload.inspectBundle'),
      importBundle: bind('sideload.importBundle'),
    },
    run: { tool: bind('run.tool'), workflow: bind('run.workflow'), resumeWorkflow: bind('run.resumeWorkflow') },
    agents: { list: bind('agents.list'), link: bind('agents.link'), unlink: bind('agents.unlink'), mcp: bind('agents.mcp') },
    operations: { list: bind('operations.list'), wait, cancel: bind('operations.cancel') },
  } satisfies HostApi;

  const listen: SubscribeFn =
    subscribe ??
    (() => {
      throw new Error('This host client was created without an event subscription.');
    });
  const events: HostEvents = {
    subscribe: (listener) => listen(listener),
    onOperation(op, listener) {
      const id = typeof op === 'string' ? op : op.operation;
      return listen((event) => {
        if ((event.type === 'progress' || event.type === 'operation') && event.operation === id) listener(event);
      });
    },
  };

  return {
    ...api,
    events,
    call: (method, ...args) => invoke(method, args),
    perform: async <M extends OperationMethod>(method: M, ...args: MethodArgs<M>) => {
      const started = await send<Started<M>>(method, args);
      if (!started.ok) return started;
      return wait<MethodValue<M>>(started.value);
    },
  };
}
