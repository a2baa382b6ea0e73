/**
 * The preload of the Arcotheon window (DESIGN §2). Sandboxed, so it is
 * bundled into one CommonJS file (build/electron.mjs) and may require only `electron`.
 * It exposes exactly `window.arcotheon = { call, subscribe, desktop }` (preload/bridge.ts)
 * through contextBridge; `ipcRenderer` itself never reaches the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createPreloadBridge } from './preload/bridge.js';

contextBridge.exposeInMainWorld('arcotheon', createPreloadBridge(ipcRenderer));
