/**
 * What the preload exposes as `window.arcotheon` (DESIGN §2), built from the
 * two `ipcRenderer` functions it needs so it is unit-tested without Electron:
 *   - `call(method, args)`: one host API call (the renderer wraps it in createHostClient);
 *   - `subscribe(listener)`: host events;
 *   - `desktop`: the window's own typed methods (electron/common/desktop.ts).
 * No `ipcRenderer`, no Node API and no Electron object reaches the page: listeners are wrapped so
 * the page receives the event's data and never the IPC event (which holds `sender`). The main
 * process checks every call again (sender, method, arguments); this only narrows.
 */
import { IPC, type DesktopBridge, type DesktopEvent, type PreloadBridge } from '../common/desktop.js';
import type { Result } from '../common/types.js';
import type { HostEvent } from '../common/events.js';

/** The part of `ipcRenderer` the bridge uses. */
export interface IpcLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export function createPreloadBridge(ipc: IpcLike): PreloadBridge {
  const invoke = (method: string, args: unknown[]): Promise<Result<unknown>> => {
    if (typeof method !== 'string' || !Array.isArray(args)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'E_USAGE', message: 'A host call needs a method name and an array of arguments.' },
      });
    }
    return ipc.invoke(IPC.call, method, args) as Promise<Result<unknown>>;
  };

  /** Listens on `channel`, handing the page only the message's data. */
  const listen = <T>(channel: string, listener: (data: T) => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribe needs a function.');
    const wrapped = (_event: unknown, data: unknown): void => listener(data as T);
    ipc.on(channel, wrapped);
    return () => {
      ipc.removeListener(channel, wrapped);
    };
  };

  const desktop: DesktopBridge = {
    pickWorkspace: () => invoke('desktop.pickWorkspace', []) as ReturnType<DesktopBridge['pickWorkspace']>,
    pickSideload: () => invoke('desktop.pickSideload', []) as ReturnType<DesktopBridge['pickSideload']>,
    takeOpenRequests: () => invoke('desktop.takeOpenRequests', []) as ReturnType<DesktopBridge['takeOpenRequests']>,
    provideSecret: (request, value) => invoke('desktop.provideSecret', [request, value]) as ReturnType<DesktopBridge['provideSecret']>,
    subscribe: (listener) => listen<DesktopEvent>(IPC.desktopEvent, listener),
  };

  return {
    call: (method, args) => invoke(method, args),
    subscribe: (listener) => listen<HostEvent>(IPC.hostEvent, listener),
    desktop,
  };
}
