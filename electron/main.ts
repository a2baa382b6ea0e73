/**
 * The Electron main process (DESIGN §2): one window, the single-instance lock, the app
 * menu, `arcotheon://` links and `.adcap` file opens, native dialogs, safeStorage secrets, and the
 * IPC router between the window and the utility process that runs the SDK. Nothing slow runs
 * here. The decisions live in plain modules under electron/main/ (unit-tested without Electron);
 * this file wires them to Electron's events.
 *
 * Hardening (Electron security checklist; checked by electronegativity in `npm test`): context
 * isolation, sandbox, no Node integration, web security on, the renderer from a privileged
 * `app://` scheme with a strict CSP, navigation / new windows / webviews / permissions denied,
 * external https links to the system browser after a check, every IPC sender checked.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  safeStorage,
  session,
  shell,
  utilityProcess,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type UtilityProcess,
} from 'electron';
import path from 'node:path';
import { IPC, type DesktopEvent, type OpenRequest, type SecretRequest } from './common/desktop.js';
import type { HostMethod } from './common/methods.js';
import type { Result, WorkspaceHandle } from './common/types.js';
import type { HostEvent } from './common/events.js';
import { argvSkip, LINK_SCHEME, openTargetsFromArgv } from './main/links.js';
import { OpenDispatcher, sideloadFile } from './main/opens.js';
import { appLayout } from './shared/paths.js';
import {
  APP_CSP,
  APP_ENTRY,
  APP_SCHEME,
  isAppUrl,
  navigationDecision,
  permissionDecision,
  serveAppRequest,
  type SenderInfo,
} from './main/policy.js';
import { createIpcRouter, UtilityChannel } from './main/router.js';
import { SafeSecretStore, SecretBroker } from './main/secrets.js';

// Must run before `ready`: app:// behaves like https (secure context, standard URL parsing), and
// is the only origin the window ever loads.
// Reviewed (PROTOCOL_HANDLER_JS_CHECK): app:// serves only files inside renderer/dist, GET only, with
// the CSP headers (policy.ts resolveAppRequest, unit-tested against traversal).
// corsEnabled and supportFetchAPI: Vite's <script type="module" crossorigin> loads in CORS mode,
// which Chromium allows only on CORS-enabled schemes. Same-origin only: no response carries
// Access-Control-Allow-Origin, and the CSP's connect-src 'none' still forbids fetch().
const appSchemePrivileges = { standard: true, secure: true, corsEnabled: true, supportFetchAPI: true };
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: appSchemePrivileges }]); // eng-disable PROTOCOL_HANDLER_JS_CHECK

const layout = appLayout(app.getAppPath(), process.resourcesPath, app.isPackaged);
const skip = argvSkip(app.isPackaged, process.defaultApp === true);

let window: BrowserWindow | null = null;
let utility: UtilityProcess | null = null;
let quitting = false;

const sendToWindow = (channel: string, data: HostEvent | DesktopEvent): boolean => {
  if (window === null || window.isDestroyed() || !isAppUrl(window.webContents.getURL())) return false;
  window.webContents.send(channel, data);
  return true;
};

const channel = new UtilityChannel({
  post: (message) => {
    if (utility === null) throw new Error('the utility process is not running');
    utility.postMessage(message);
  },
  onEvent: (event) => void sendToWindow(IPC.hostEvent, event),
  onSecret: (request) => secrets.resolve(request),
  // An MCP Bundle's settings given at install (docs/spec/mcp-runtime.md): kept as any env:read value.
  onSecretStore: async ({ capability, variable, value }) => {
    await secretStore.set(capability, variable, value);
    return secretStore.persistent;
  },
});
const host = (method: HostMethod, args: unknown[]): Promise<Result<unknown>> => channel.call(method, args);

const secretStore = new SafeSecretStore(path.join(app.getPath('userData'), 'secrets.json'), safeStorage);
const secrets = new SecretBroker({
  store: secretStore,
  // Only a page that handles desktop events (it took its open requests) is asked; otherwise the
  // run goes on without the value at once instead of waiting for a prompt nobody shows.
  ask: (request: SecretRequest) => opens.listening && sendToWindow(IPC.desktopEvent, { type: 'secret', request }),
});

const opens = new OpenDispatcher({
  host,
  deliver: (request: OpenRequest) => void sendToWindow(IPC.desktopEvent, { type: 'open', request }),
  focus: () => {
    if (window === null || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  },
});

let restarts = 0;

/**
 * Forks the utility process; restarts it when it dies while the app runs, waiting 1 s, 2 s, 4 s…
 * (at most 30 s) so a utility that cannot start does not spin.
 */
function startUtility(): void {
  const child = utilityProcess.fork(path.join(layout.bundleDir, 'utility.mjs'), [], {
    serviceName: 'Arcotheon host service',
    stdio: 'inherit',
    env: {
      ...process.env,
      ARCOTHEON_APP_VERSION: app.getVersion(),
      ARCOTHEON_EMBEDDED_REGISTRY: process.env.ARCOTHEON_EMBEDDED_REGISTRY ?? layout.registryDir,
    },
  });
  utility = child;
  child.on('message', (message: unknown) => channel.receive(message));
  child.on('exit', (code: number) => {
    if (utility === child) utility = null;
    channel.exited(code);
    if (!quitting) setTimeout(startUtility, Math.min(30_000, 1000 * 2 ** restarts++)).unref();
  });
}

function senderOf(event: IpcMainInvokeEvent): SenderInfo {
  const frame = event.senderFrame;
  return { webContentsId: event.sender.id, frameUrl: frame?.url ?? null, isMainFrame: frame !== null && frame.parent === null };
}

const router = createIpcRouter({
  host,
  windowWebContentsId: () => (window === null || window.isDestroyed() ? null : window.webContents.id),
  onRefused: (reason) => console.warn(`arcotheon: refused an IPC call: ${reason}`),
  desktop: {
    async pickWorkspace(): Promise<Result<WorkspaceHandle | null>> {
      if (window === null) return { ok: true, value: null };
      const chosen = await dialog.showOpenDialog(window, {
        title: 'Choose the workspace folder for this run',
        properties: ['openDirectory', 'createDirectory'],
      });
      const folder = chosen.filePaths[0];
      if (chosen.canceled || folder === undefined) return { ok: true, value: null };
      return (await host('workspaces.confirm', [folder])) as Result<WorkspaceHandle>;
    },
    async pickSideload() {
      if (window === null) return { ok: true, value: null };
      const chosen = await dialog.showOpenDialog(window, {
        title: 'Open an Arcotheon package',
        properties: ['openFile'],
        filters: [{ name: 'Arcotheon package', extensions: ['adcap'] }],
      });
      const file = chosen.filePaths[0];
      if (chosen.canceled || file === undefined) return { ok: true, value: null };
      return sideloadFile(host, file);
    },
    takeOpenRequests: () => ({ ok: true, value: opens.take() }),
    provideSecret: (request, value) =>
      secrets.provide(request, value)
        ? { ok: true, value: null }
        : { ok: false, error: { code: 'E_NOT_FOUND', message: 'That question was already answered or has expired.' } },
  },
});

function createWindow(): void {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 600,
    show: false,
    title: 'Arcotheon',
    backgroundColor: '#1e1e1e',
    // Reviewed (electronegativity PRELOAD_JS_CHECK): the preload exposes only call/subscribe/desktop
    // through contextBridge, with no ipcRenderer or Node API; main checks every call again.
    webPreferences: {
      preload: path.join(layout.bundleDir, 'preload.cjs'), // eng-disable PRELOAD_JS_CHECK
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      // A middle click would ask for a new window (denied anyway by setWindowOpenHandler).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  window = win;
  const contents = win.webContents;

  // The window never leaves app://arcotheon and never opens another window; https links go to
  // the system browser after policy.ts's check.
  const leave = (event: { preventDefault(): void }, url: string): void => {
    event.preventDefault();
    const decision = navigationDecision(url);
    // Only a URL that passed externalLinkTarget (https, a public host, no credentials) is opened.
    if (decision.action === 'open-external') void shell.openExternal(decision.url); // eng-disable OPEN_EXTERNAL_JS_CHECK
  };
  contents.on('will-navigate', leave);
  contents.on('will-redirect', leave);
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    const decision = navigationDecision(url);
    // Only a URL that passed externalLinkTarget (https, a public host, no credentials) is opened.
    if (decision.action === 'open-external') void shell.openExternal(decision.url); // eng-disable OPEN_EXTERNAL_JS_CHECK
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // A reload: open requests queue again until the page asks, open secret prompts are declined.
  contents.on('did-start-loading', () => {
    opens.pageGone();
    secrets.declineAll();
  });

  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (window === win) window = null;
    secrets.declineAll();
  });
  void win.loadURL(APP_ENTRY);
}

function buildMenu(): void {
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        {
          label: 'Open Package…',
          accelerator: 'CmdOrCtrl+O',
          click: () =>
            void (async () => {
              if (window === null) return;
              const chosen = await dialog.showOpenDialog(window, {
                title: 'Open an Arcotheon package',
                properties: ['openFile'],
                filters: [
                  { name: 'Arcotheon package or MCP Bundle', extensions: ['adcap', 'mcpb'] },
                  { name: 'Arcotheon package', extensions: ['adcap'] },
                  { name: 'MCP Bundle', extensions: ['mcpb'] },
                ],
              });
              const file = chosen.filePaths[0];
              if (!chosen.canceled && file !== undefined) await opens.open([{ kind: 'file', path: file }]);
            })(),
        },
        { type: 'separator' },
        process.platform === 'darwin' ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'Arcotheon on GitHub', click: () => void shell.openExternal('https://github.com/arcotheon/arcotheon') }],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

if (!app.requestSingleInstanceLock()) {
  // A second launch: the first instance receives this argv in 'second-instance' and opens it.
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => void opens.secondInstance(argv, workingDirectory, skip));
  // macOS hands files and links over as events (also before `ready`, for the launching file).
  app.on('open-file', (event, file) => {
    event.preventDefault();
    void opens.open([{ kind: 'file', path: file }]);
  });
  app.on('open-url', (event, url) => {
    event.preventDefault();
    void opens.open([{ kind: 'link', url }]);
  });
  app.on('web-contents-created', (_event, contents) => {
    // Belt and braces for any WebContents besides the window: no new windows, no navigation.
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => event.preventDefault());
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => utility?.kill());

  // Reviewed (PROTOCOL_HANDLER_JS_CHECK): arcotheon:// links only ever reach parseInstallLink
  // (links.ts: one action, strict id and range) and then the install dialog; nothing installs.
  if (process.defaultApp === true) {
    // Development (`electron .`): register this repository's app for arcotheon:// links.
    const entry = process.argv[1];
    if (entry !== undefined) {
      app.setAsDefaultProtocolClient(LINK_SCHEME, process.execPath, [path.resolve(entry)]); // eng-disable PROTOCOL_HANDLER_JS_CHECK
    }
  } else {
    app.setAsDefaultProtocolClient(LINK_SCHEME); // eng-disable PROTOCOL_HANDLER_JS_CHECK
  }

  void app.whenReady().then(() => {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((_contents, permission, callback, details) =>
      callback(permissionDecision(permission, details.requestingUrl)),
    );
    ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permissionDecision(permission, requestingOrigin));
    // The CSP also on any http(s) response of this session (there should be none: connect-src 'none');
    // app:// responses carry it from resolveAppRequest. The scanner cannot read a constant, so it
    // calls this CSP unparseable: it is APP_CSP (policy.ts), checked in test/electron/main/policy.test.ts.
    ses.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [APP_CSP] } }); // eng-disable CSP_GLOBAL_CHECK
    });
    // app:// serves renderer/dist only (see registerSchemesAsPrivileged above).
    protocol.handle(APP_SCHEME, async (request) => {
      // eng-disable PROTOCOL_HANDLER_JS_CHECK
      const answer = await serveAppRequest(request.method, request.url, layout.rendererDir);
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    });
    ipcMain.handle(IPC.call, (event, method: unknown, args: unknown) => router(senderOf(event), method, args));
    startUtility();
    buildMenu();
    createWindow();
    void opens.open(openTargetsFromArgv(process.argv, process.cwd(), { skip }));
  });
}
