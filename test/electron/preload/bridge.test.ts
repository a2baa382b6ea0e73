// What the preload exposes: calls go over the one invoke channel; listeners get the
// message data, never the IPC event (it holds `sender`); unsubscribing removes exactly that one.
import { describe, expect, it } from 'vitest';
import { IPC } from '../../../electron/common/desktop.js';
import { createPreloadBridge, type IpcLike } from '../../../electron/preload/bridge.js';

function fakeIpc() {
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipc: IpcLike = {
    invoke: async (channel, ...args) => (invoked.push([channel, ...args]), { ok: true, value: 'answer' }),
    on: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
  /** What Electron does on webContents.send: the IPC event first, then the data. */
  const send = (channel: string, data: unknown): void =>
    listeners.get(channel)?.forEach((l) => l({ sender: 'the ipcRenderer object', ports: [] }, data));
  return { ipc, invoked, listeners, send };
}

describe('the preload bridge', () => {
  it('exposes call, subscribe and desktop only', () => {
    const bridge = createPreloadBridge(fakeIpc().ipc);
    expect(Object.keys(bridge).sort()).toEqual(['call', 'desktop', 'subscribe']);
    expect(Object.keys(bridge.desktop).sort()).toEqual(['pickSideload', 'pickWorkspace', 'provideSecret', 'subscribe', 'takeOpenRequests']);
  });

  it('sends every call over the one invoke channel, and refuses malformed calls before IPC', async () => {
    const { ipc, invoked } = fakeIpc();
    const bridge = createPreloadBridge(ipc);
    expect(await bridge.call('installs.overview', [])).toEqual({ ok: true, value: 'answer' });
    await bridge.desktop.provideSecret('sr_abcdefghijklmnopqrstuv', null);
    await bridge.desktop.pickWorkspace();
    expect(invoked).toEqual([
      [IPC.call, 'installs.overview', []],
      [IPC.call, 'desktop.provideSecret', ['sr_abcdefghijklmnopqrstuv', null]],
      [IPC.call, 'desktop.pickWorkspace', []],
    ]);
    expect(await bridge.call(42 as never, [])).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await bridge.call('installs.overview', 'x' as never)).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(invoked).toHaveLength(3);
  });

  it('hands listeners the data only, and unsubscribes exactly the one listener', () => {
    const { ipc, send, listeners } = fakeIpc();
    const bridge = createPreloadBridge(ipc);
    const host: unknown[][] = [];
    const desktop: unknown[][] = [];
    const stopHost = bridge.subscribe((...args) => host.push(args));
    bridge.subscribe(() => undefined);
    bridge.desktop.subscribe((...args) => desktop.push(args));
    send(IPC.hostEvent, { type: 'installed-changed' });
    send(IPC.desktopEvent, { type: 'open', request: { kind: 'install', spec: 'acme/x' } });
    expect(host).toEqual([[{ type: 'installed-changed' }]]);
    expect(desktop).toEqual([[{ type: 'open', request: { kind: 'install', spec: 'acme/x' } }]]);
    stopHost();
    send(IPC.hostEvent, { type: 'remotes-changed' });
    expect(host).toHaveLength(1);
    expect(listeners.get(IPC.hostEvent)?.size).toBe(1);
    expect(() => bridge.subscribe('not a function' as never)).toThrow(TypeError);
  });
});
