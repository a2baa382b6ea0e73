/**
 * The host API's router (electron/common/methods.ts "Rules of the contract"): a transport hands it
 * a method name and arguments as received; an unknown method, or arguments that do not fit the
 * method's schema, are refused with E_USAGE before anything runs. A call answers its value as a
 * Result; an operation answers `{ operation }` at once and runs on (operations.ts); the
 * operations' own methods answer with a Result of their own.
 */
import {
  checkArguments,
  isHostMethod,
  isOperationMethod,
  METHODS,
  type ArgsMap,
  type HostMethod,
  type OperationMethod,
  type ValueMap,
  type WireResult,
} from '../common/methods.js';
import type { Result } from '../common/types.js';
import type { OperationContext, Operations } from './operations.js';
import { failure, settle } from './results.js';

/** Methods that answer with a Result of their own (the operation's, or E_NOT_FOUND) rather than a value. */
export type DirectMethod = 'operations.wait' | 'operations.cancel';
export type CallMethod = Exclude<HostMethod, OperationMethod | DirectMethod>;

/** What a call method does: its value, or an AdcapError thrown (settle makes either a Result). */
export type CallImpl = { [M in CallMethod]: (...args: ArgsMap[M]) => Promise<ValueMap[M]> };
export type DirectImpl = { [M in DirectMethod]: (...args: ArgsMap[M]) => Promise<WireResult<M>> };
/** An operation: the tray's label, and the work, which reports progress and honours the signal. */
export type OperationImpl = {
  [M in OperationMethod]: {
    label: (...args: ArgsMap[M]) => string;
    run: (ctx: OperationContext, ...args: ArgsMap[M]) => Promise<ValueMap[M]>;
  };
};

type Erased<R> = (...args: unknown[]) => Promise<R>;
const isDirect = (method: HostMethod): method is DirectMethod => method === 'operations.wait' || method === 'operations.cancel';

export interface Handlers {
  calls: CallImpl;
  direct: DirectImpl;
  ops: OperationImpl;
  operations: Operations;
}

/** The `dispatch(method, args)` of a host service over these handlers. */
export function createDispatch({ calls, direct, ops, operations }: Handlers): (method: unknown, args: unknown) => Promise<Result<unknown>> {
  /** Starts operation `method` and answers its id at once. */
  function start<M extends OperationMethod>(method: M, args: ArgsMap[M]): Result<{ operation: string }> {
    const op = ops[method];
    const cancellable = METHODS[method].cancellable === true;
    const id = operations.start(method, op.label(...args), cancellable, (ctx) => settle(() => op.run(ctx, ...args)));
    return { ok: true, value: { operation: id } };
  }

  return async (method, args) => {
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
  };
}
