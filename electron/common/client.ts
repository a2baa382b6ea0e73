/**
 * The typed client of the host API, built from the method table (methods.ts): one function per
 * method, namespaced (`client.catalogue.search('pdf')`, `client.installs.install(target, { approvedDigest })`),
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
  HOST_METHODS,
  type HostMethod,
  type MethodArgs,
  type OperationMethod,
  type MethodValue,
  type WireResult,
} from './methods.js';
import type { HostEvent, Operation, Result } from './types.js';

export type CallFn = (method: HostMethod, args: unknown[]) => Promise<Result<unknown>>;
export type SubscribeFn = (listener: (event: HostEvent) => void) => () => void;

type NamespaceOf<M> = M extends `${infer N}.${string}` ? N : never;
export type HostNamespace = NamespaceOf<HostMethod>;
type MethodsOf<N extends string> = {
  [M in HostMethod as M extends `${N}.${infer K}` ? K : never]: (...args: MethodArgs<M>) => Promise<WireResult<M>>;
};

/** Every method of the table, namespaced, as the client exposes it. */
export type HostApi = { [N in HostNamespace]: MethodsOf<N> };

/** An operation's id, its `{ operation }` value, or the Result a long method resolved to. */
export type OperationRef<T> = string | Operation<T> | Result<Operation<T>>;

export interface HostEvents {
  /** Every event; returns the function that stops listening. */
  subscribe(listener: (event: HostEvent) => void): () => void;
  /** Progress and the final `operation` event of one operation. */
  onOperation(op: string | Operation<unknown>, listener: (event: Extract<HostEvent, { operation: string }>) => void): () => void;
}

export type HostClient = Omit<HostApi, 'operations'> & {
  operations: Omit<MethodsOf<'operations'>, 'wait'> & {
    /** The final Result of an operation (typed by the method that started it). */
    wait<T>(op: OperationRef<T>): Promise<Result<T>>;
  };
  events: HostEvents;
  /** Calls a method by name (what the namespaced functions do). */
  call<M extends HostMethod>(method: M, ...args: MethodArgs<M>): Promise<WireResult<M>>;
  /** Starts an operation method and waits for its final Result. */
  perform<M extends OperationMethod>(method: M, ...args: MethodArgs<M>): Promise<Result<MethodValue<M>>>;
};

const usage = (message: string): Result<never> => ({ ok: false, error: { code: 'E_USAGE', message } });

export function createHostClient(call: CallFn, subscribe?: SubscribeFn): HostClient {
  const invoke = async (method: HostMethod, args: unknown[]): Promise<Result<unknown>> => {
    // Trailing undefined arguments are dropped: JSON would turn them into null.
    const sent = [...args];
    while (sent.length > 0 && sent[sent.length - 1] === undefined) sent.pop();
    const problem = checkArguments(method, sent);
    if (problem !== null) return usage(problem);
    return call(method, sent);
  };

  const namespaces: Record<string, Record<string, (...args: unknown[]) => Promise<Result<unknown>>>> = {};
  for (const method of HOST_METHODS) {
    const [namespace, name] = method.split('.') as [string, string];
    namespaces[namespace] ??= {};
    (namespaces[namespace] as Record<string, (...args: unknown[]) => Promise<Result<unknown>>>)[name] = (...args) => invoke(method, args);
  }

  const operationIdOf = (op: OperationRef<unknown>): string | Result<never> => {
    if (typeof op === 'string') return op;
    if ('ok' in op) return op.ok ? op.value.operation : op;
    return op.operation;
  };
  const operations = namespaces['operations'] as Record<string, (...args: unknown[]) => Promise<Result<unknown>>>;
  operations['wait'] = async (op: unknown) => {
    const id = operationIdOf(op as OperationRef<unknown>);
    if (typeof id !== 'string') return id;
    const waited = await invoke('operations.wait', [id]);
    // operations.wait resolves with the operation's own Result as its value.
    return waited.ok ? (waited.value as Result<unknown>) : waited;
  };

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
        if ('operation' in event && event.operation === id) listener(event);
      });
    },
  };

  const client = {
    ...namespaces,
    events,
    call: (method: HostMethod, ...args: unknown[]) => invoke(method, args),
    perform: async (method: HostMethod, ...args: unknown[]) => {
      const started = await invoke(method, args);
      if (!started.ok) return started;
      return (operations['wait'] as (op: unknown) => Promise<Result<unknown>>)(started.value);
    },
  };
  return client as unknown as HostClient;
}
