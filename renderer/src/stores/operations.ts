/**
 * Long operations (install, update, doctor, runs) as the operations tray shows them: started
 * here, followed through the host's progress events, finished by their final Result. Nothing
 * blocks: a screen starts an operation and the user may keep browsing (UI.md "States and feel").
 */
import { create } from 'zustand';
import type { HostError, HostEvent, ProgressData, Result } from '../../../electron/common/index.js';
import { host } from '../host.js';

interface OperationView {
  id: string;
  method: string;
  label: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  progress: ProgressData | null;
  error: HostError | null;
  startedAt: number;
  /** Shown in the tray until dismissed (finished ones fade after a while). */
  visible: boolean;
}

interface OperationsState {
  operations: Record<string, OperationView>;
  /** Applies one host event (wired once in main.tsx). */
  onEvent(event: HostEvent): void;
  dismiss(id: string): void;
}

export const useOperations = create<OperationsState>((set) => ({
  operations: {},
  onEvent(event) {
    if (event.type !== 'progress' && event.type !== 'operation') return;
    set((s) => {
      const known = s.operations[event.operation];
      const base: OperationView = known ?? {
        id: event.operation,
        method: event.method,
        label: event.method,
        state: 'running',
        progress: null,
        error: null,
        startedAt: Date.now(),
        visible: false,
      };
      if (event.type === 'progress') {
        const { type: _t, operation: _o, method: _m, ...progress } = event;
        return { operations: { ...s.operations, [event.operation]: { ...base, progress } } };
      }
      const error = event.result !== undefined && !event.result.ok ? event.result.error : null;
      return { operations: { ...s.operations, [event.operation]: { ...base, state: event.state, error } } };
    });
  },
  dismiss(id) {
    set((s) => {
      const op = s.operations[id];
      return op === undefined ? s : { operations: { ...s.operations, [id]: { ...op, visible: false } } };
    });
  },
}));

/**
 * Starts an operation method (its call resolves at once with `{ operation }`), shows it in the
 * tray under `label`, and resolves with its final Result.
 */
export async function runOperation<T>(
  label: string,
  start: () => Promise<Result<{ operation: string; readonly __value?: T }>>,
  onStarted?: (operationId: string) => void,
): Promise<Result<T>> {
  const started = await start();
  if (!started.ok) return started;
  const id = started.value.operation;
  useOperations.setState((s) => {
    const known = s.operations[id];
    return {
      operations: {
        ...s.operations,
        [id]: {
          id,
          method: known?.method ?? '',
          label,
          state: known?.state ?? 'running',
          progress: known?.progress ?? null,
          error: known?.error ?? null,
          startedAt: Date.now(),
          visible: true,
        },
      },
    };
  });
  onStarted?.(id);
  const result = await host().operations.wait<T>(started.value);
  useOperations.setState((s) => {
    const op = s.operations[id];
    if (op === undefined) return s;
    const state = result.ok
      ? 'done'
      : result.error.code === 'E_CANCELLED'
        ? 'cancelled'
        : op.state === 'cancelled'
          ? 'cancelled'
          : 'failed';
    return { operations: { ...s.operations, [id]: { ...op, state, error: result.ok ? null : result.error } } };
  });
  return result;
}

export function cancelOperation(id: string): void {
  void host().operations.cancel(id);
}

/** Selector: the operations the tray shows, newest first. */
export const visibleOperations = (s: OperationsState): OperationView[] =>
  Object.values(s.operations)
    .filter((o) => o.visible)
    .sort((a, b) => b.startedAt - a.startedAt);
