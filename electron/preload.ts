/**
 * The preload of the Arcotheon window (DESIGN §2; issue 14 "Preload"). Sandboxed, so it is
 * bundled into one CommonJS file (build/electron.mjs) and may require only `electron`.
 *
 * It exposes exactly `window.arcotheon = { call, subscribe, desktop }` through contextBridge:
 *   - `call(method, args)`: one host API call (the renderer wraps it in createHostClient);
 *   - `subscribe(listener)`: host events;
 *   - `desktop`: the window's own typed methods (electron/common/desktop.ts).
 * No `ipcRenderer`, no Node API and no Electron object reaches the page: listeners are wrapped
 * so the page receives the event's data and never the IPC event (which holds `sender`).
 * The main process checks every call again (sender, method, arguments); this file only narrows.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC, type DesktopBridge, type DesktopEvent, type PreloadBridge } from './common/desktop.js';
import type { HostEvent, Result } from './common/types.js';

function invoke(method: string, args: unknown[]): Promise<Result<unknown>> {
  if (typeof method !== 'string' || !Array.isArray(args)) {
    return Promise.resolve({ ok: false, error: { code: 'E_USAGE', message: 'A host call needs a method name and an array of arguments.' } });
  }
  return ipcRenderer.invoke(IPC.call, method, args) as Promise<Result<unknown>>;
}

/** Listens on `channel`, handing the page only the message's data. */
function listen<T>(channel: string, listener: (data: T) => void): () => void {
  if (typeof listener !== 'function') throw new TypeError('subscribe needs a function.');
  const wrapped = (_event: IpcRendererEvent, data: T): void => listener(data);
  ipcRenderer.on(channel, wrapped);
  return () => {
    ipcRenderer.removeListener(channel, wrapped);
  };
}

const desktop: DesktopBridge = {
  pickWorkspace: () => invoke('desktop.pickWorkspace', []) as ReturnType<DesktopBridge['pickWorkspace']>,
  pickSideload: () => invoke('desktop.pickSideload', []) as ReturnType<DesktopBridge['pickSideload']>,
  takeOpenRequests: () => invoke('desktop.takeOpenRequests', []) as ReturnType<DesktopBridge['takeOpenRequests']>,
  provideSecret: (request, value) => invoke('desktop.provideSecret', [request, value]) as ReturnType<DesktopBridge['provideSecret']>,
  subscribe: (listener) => listen<DesktopEvent>(IPC.desktopEvent, listener),
};

const bridge: PreloadBridge = {
  call: (method, args) => invoke(method, args),
  subscribe: (listener) => listen<HostEvent>(IPC.hostEvent, listener),
  desktop,
};

contextBridge.exposeInMainWorld('arcotheon', bridge);
