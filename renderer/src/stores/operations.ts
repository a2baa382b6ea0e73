/**
 * Long operations (install, update, doctor, runs) as the operations tray shows them: started
 * here, followed through the host's progress events, finished by their final Result. Nothing
 * blocks: a screen starts an operation and the user may keep browsing (docs/ui.md "States and feel").
 *
 * The tray does not pile up: an operation started again under the same label replaces the
 * finished entry it repeats (one "Check health", not one per click), a success or a cancel leaves
 * by itself (components/OperationsTray.tsx), and a failure stays until the user dismisses it.
 */
import { create } from 'zustand';
import type { HostError, HostEvent, ProgressData, Result } from '../../../electron/common/index.js';
import { host } from '../host.js';

export type OperationState = 'running' | 'done' | 'failed' | 'cancelled';

/** What the tray says about an operation once it has ended, in the words of the screen that started it. */
export interface OperationTexts {
  /** A success, e.g. "Installed Meeting notes". Default: "<label>: finished". */
  done?: string;
  /** A failure's title, e.g. "Meeting notes could not be installed". Default: "<label> failed". */
  failed?: string;
  /** The user's own cancel, e.g. "Install of Meeting notes cancelled". Default: "<label>: cancelled". */
  cancelled?: string;
}

export interface OperationView {
  id: string;
  method: string;
  label: string;
  texts: OperationTexts;
  /** What the operation is about (a capability id), for screens that show it as running. */
  subject: string | null;
  state: OperationState;
  progress: ProgressData | null;
  error: HostError | null;
  startedAt: number;
  /** How many times this label ran while its entry was shown (repeats coalesce into one entry). */
  repeats: number;
  /** Shown in the tray until dismissed (finished ones fade after a while). */
  visible: boolean;
  /** Whether the tray offers Cancel while it runs: host operations yes; a plain call handed to the tray (followInTray) no. */
  cancellable: boolean;
}

interface OperationsState {
  operations: Record<string, OperationView>;
  /** Applies one host event (wired once in main.tsx). */
  onEvent(event: HostEvent): void;
  dismiss(id: string): void;
}

const stateOf = (result: Result<unknown>, before: OperationState): OperationState =>
  result.ok ? 'done' : result.error.code === 'E_CANCELLED' || before === 'cancelled' ? 'cancelled' : 'failed';

export const useOperations = create<OperationsState>((set) => ({
  operations: {},
  onEvent(event) {
    if (event.type !== 'progress' && event.type !== 'operation') return;
    set((s) => {
      const known = s.operations[event.operation];
      const base: OperationView =
        known !== undefined
          ? { ...known, method: known.method || event.method }
          : {
              id: event.operation,
              method: event.method,
              label: event.method,
              texts: {},
              subject: null,
              state: 'running',
              progress: null,
              error: null,
              startedAt: Date.now(),
              repeats: 1,
              visible: false,
              cancellable: true,
            };
      if (event.type === 'progress') {
        if (base.state !== 'running') return s;
        const { type: _t, operation: _o, method: _m, ...progress } = event;
        return { operations: { ...s.operations, [event.operation]: { ...base, progress } } };
      }
      const error = event.result !== undefined && !event.result.ok ? event.result.error : null;
      const state = error?.code === 'E_CANCELLED' ? 'cancelled' : event.state;
      return { operations: { ...s.operations, [event.operation]: { ...base, state, error } } };
    });
  },
  dismiss(id) {
    set((s) => {
      const op = s.operations[id];
      return op === undefined || !op.visible ? s : { operations: { ...s.operations, [id]: { ...op, visible: false } } };
    });
  },
}));

/**
 * Shows operation `id` in the tray under `label`. A finished entry with the same label leaves,
 * and its count carries over ("Check health" twice is one entry that says so).
 */
function show(id: string, label: string, texts: OperationTexts, subject: string | null, cancellable = true): void {
  useOperations.setState((s) => {
    const operations = { ...s.operations };
    let repeats = 1;
    for (const other of Object.values(operations))
      if (other.id !== id && other.visible && other.label === label && other.state !== 'running') {
        repeats += other.repeats;
        operations[other.id] = { ...other, visible: false };
      }
    const known = operations[id];
    operations[id] = {
      id,
      method: known?.method ?? '',
      label,
      texts,
      subject,
      state: known?.state ?? 'running',
      progress: known?.progress ?? null,
      error: known?.error ?? null,
      startedAt: Date.now(),
      repeats,
      visible: true,
      cancellable: known?.cancellable ?? cancellable,
    };
    return { operations };
  });
}

/**
 * Starts an operation method (its call resolves at once with `{ operation }`), shows it in the
 * tray under `label`, and resolves with its final Result. `onStarted` runs once the host has
 * accepted it (a dialog closes then: the work goes on in the tray).
 */
export async function runOperation<T>(
  label: string,
  start: () => Promise<Result<{ operation: string; readonly __value?: T }>>,
  onStarted?: (operationId: string) => void,
  options: { texts?: OperationTexts; subject?: string } = {},
): Promise<Result<T>> {
  const started = await start();
  if (!started.ok) return started;
  const id = started.value.operation;
  show(id, label, options.texts ?? {}, options.subject ?? null);
  onStarted?.(id);
  const result = await host().operations.wait<T>(started.value);
  useOperations.setState((s) => {
    const op = s.operations[id];
    if (op === undefined) return s;
    return {
      operations: { ...s.operations, [id]: { ...op, state: stateOf(result, op.state), error: result.ok ? null : result.error } },
    };
  });
  return result;
}

let handedOver = 0;

/**
 * Hands a plain host call that is already running (uninstall, roll back, remove a registry: calls,
 * not operations, so no progress and no Cancel) to the tray under `label`: a confirm dialog closed
 * while its action runs (docs/ui.md "Nothing blocks"). The entry says it is running, then its outcome
 * in `texts`; a success leaves by itself, a failure stays with its error until dismissed.
 */
export function followInTray(label: string, pending: Promise<Result<unknown>>, texts: OperationTexts = {}, subject?: string): void {
  const id = `call-${++handedOver}`;
  show(id, label, texts, subject ?? null, false);
  const end = (result: Result<unknown>): void =>
    useOperations.setState((s) => {
      const op = s.operations[id];
      if (op === undefined) return s;
      return {
        operations: { ...s.operations, [id]: { ...op, state: stateOf(result, op.state), error: result.ok ? null : result.error } },
      };
    });
  pending.then(end, (error: unknown) =>
    end({ ok: false, error: { code: 'E_IO', message: `${label} stopped: ${error instanceof Error ? error.message : String(error)}` } }),
  );
}

export function cancelOperation(id: string): void {
  void host().operations.cancel(id);
}

/** Selector: the operations the tray shows, newest first. */
export const visibleOperations = (s: OperationsState): OperationView[] =>
  Object.values(s.operations)
    .filter((o) => o.visible)
    .sort((a, b) => b.startedAt - a.startedAt);

/** Selector factory: the running operation about `subject` started with `method`, if any. */
export const runningFor =
  (subject: string, method: string) =>
  (s: OperationsState): OperationView | null =>
    Object.values(s.operations).find((o) => o.subject === subject && o.method === method && o.state === 'running') ?? null;
