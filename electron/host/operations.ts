/**
 * Long operations of the host API (installs, updates, runs, doctor, refresh, gc): each gets an
 * id at once, reports progress as events, ends with one `operation` event carrying its Result, and
 * can be cancelled through its AbortSignal when the SDK call takes one. Finished operations are
 * kept (the last 100) so a UI that reconnects can still read their results.
 */
import { randomBytes } from 'node:crypto';
import type { OperationMethod, ValueMap } from '../common/methods.js';
import type { OperationInfo, OperationState, ProgressData, Result } from '../common/types.js';
import type { HostEvent, OperationEvent, ProgressEvent } from '../common/events.js';

export interface OperationContext {
  signal: AbortSignal;
  progress(p: ProgressData): void;
}

interface Entry {
  info: OperationInfo;
  controller: AbortController;
  done: Promise<Result<unknown>>;
}

const KEEP_FINISHED = 100;

export class Operations {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly send: (event: HostEvent) => void) {}

  /**
   * An event of one operation, typed by its method M. TypeScript does not see that an event for a
   * generic M is one member of the HostEvent union (microsoft/TypeScript#30581), so it is said here, once.
   */
  private emit<M extends OperationMethod>(event: ProgressEvent<M> | OperationEvent<M>): void {
    this.send(event as HostEvent);
  }

  /**
   * Starts `work` now and returns its id. `work` resolves to a Result (it must not throw: the
   * service wraps SDK calls in `settle`). A cancelled operation ends as 'cancelled' with E_CANCELLED
   * (DESIGN §9: the user or host cancelled; E_DENIED is only for a refused approval) unless the work
   * already finished.
   */
  start<M extends OperationMethod>(
    method: M,
    label: string,
    cancellable: boolean,
    work: (ctx: OperationContext) => Promise<Result<ValueMap[M]>>,
  ): string {
    const operation = `op_${randomBytes(12).toString('base64url')}`;
    const controller = new AbortController();
    const info: OperationInfo = {
      operation,
      method,
      label,
      state: 'running',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      cancellable,
      progress: null,
      result: null,
    };
    const ctx: OperationContext = {
      signal: controller.signal,
      progress: (p) => {
        if (info.state !== 'running') return;
        const progress: ProgressData = { phase: p.phase, done: p.done };
        if (p.total !== undefined) progress.total = p.total;
        if (p.item !== undefined) progress.item = p.item;
        if (p.step !== undefined) progress.step = p.step;
        if (p.tool !== undefined) progress.tool = p.tool;
        info.progress = progress;
        this.emit<M>({ type: 'progress', operation, method, ...progress });
      },
    };
    this.emit<M>({ type: 'operation', operation, method, state: 'running' });
    const done = (async (): Promise<Result<ValueMap[M]>> => {
      // Let the caller receive the id before the first progress event.
      await Promise.resolve();
      let result: Result<ValueMap[M]>;
      try {
        result = await work(ctx);
      } catch (error) {
        result = {
          ok: false,
          error: { code: 'E_IO', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` },
        };
      }
      let state: OperationState = result.ok ? 'done' : 'failed';
      if (controller.signal.aborted && !result.ok) {
        state = 'cancelled';
        result = {
          ok: false,
          error: {
            code: 'E_CANCELLED',
            message: `${label} was cancelled; nothing more was done.`,
            details: { cancelled: true, cause: result.error.code },
          },
        };
      }
      info.state = state;
      info.finishedAt = new Date().toISOString();
      info.result = result;
      this.emit<M>({ type: 'operation', operation, method, state, result });
      this.prune();
      return result;
    })();
    this.entries.set(operation, { info, controller, done });
    return operation;
  }

  list(): OperationInfo[] {
    return [...this.entries.values()].map((e) => structuredClone(e.info)).reverse();
  }

  /** The final Result of an operation (waits while it runs); E_NOT_FOUND for an id not kept. */
  async wait(operation: string): Promise<Result<unknown>> {
    const entry = this.entries.get(operation);
    if (entry === undefined)
      return {
        ok: false,
        error: {
          code: 'E_NOT_FOUND',
          message: `There is no operation ${operation}; it may have finished long ago (the host keeps the last ${KEEP_FINISHED}).`,
        },
      };
    return entry.done;
  }

  cancel(operation: string): Result<{ cancelled: boolean }> {
    const entry = this.entries.get(operation);
    if (entry === undefined) return { ok: false, error: { code: 'E_NOT_FOUND', message: `There is no operation ${operation}.` } };
    if (entry.info.state !== 'running' || !entry.info.cancellable) return { ok: true, value: { cancelled: false } };
    entry.controller.abort();
    return { ok: true, value: { cancelled: true } };
  }

  /** Cancels everything still running (the host is closing) and waits for it to end. */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) if (entry.info.state === 'running') entry.controller.abort();
    await Promise.all([...this.entries.values()].map((e) => e.done));
  }

  private prune(): void {
    const finished = [...this.entries.values()].filter((e) => e.info.state !== 'running');
    for (const entry of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.entries.delete(entry.info.operation);
  }
}
