/**
 * The renderer's entry: connect to the host (Electron preload or the `arcotheon ui` WebSocket),
 * wire host events to the stores, then render the app. A dropped socket shows a banner while it
 * reconnects (the stores reload once it is back); a browser that is not signed in gets a screen
 * that says what to do (components/Connection.tsx).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { ConnectionBanner, NotConnected, SignedOut } from './components/Connection.js';
import { connectHost } from './host.js';
import { useRouter } from './router.js';
import { useCatalogue } from './stores/catalogue.js';
import { useInstalled } from './stores/installed.js';
import { useOperations } from './stores/operations.js';
import { refreshRisks } from './stores/risks.js';
import { useSettings } from './stores/settings.js';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
/** How long the first render waits for Discover's first cards before it shows the screen loading them. */
const FIRST_RENDER_WAIT_MS = 300;

class SignedOutError extends Error {}

/** Everything the page shows from the host, asked again (at start, and after a reconnection). */
function loadAll(): void {
  void useInstalled.getState().loadOverview();
  void useSettings.getState().loadInfo();
  void useSettings.getState().loadPolicy();
}

try {
  const connection = await connectHost();
  if (connection.state().kind === 'signed-out') throw new SignedOutError();
  connection.client.events.subscribe((event) => {
    useOperations.getState().onEvent(event);
    if (event.type === 'installed-changed') {
      useInstalled.getState().refreshAll();
      useCatalogue.getState().refresh();
      refreshRisks();
    } else if (event.type === 'catalogue-changed') {
      useCatalogue.getState().refresh();
      refreshRisks();
    } else if (event.type === 'policy-changed') {
      void useSettings.getState().loadPolicy();
    } else if (event.type === 'remotes-changed') {
      void useSettings.getState().loadRemotes();
      useCatalogue.getState().refresh();
      refreshRisks();
    }
  });
  connection.onChange((state) => {
    if (state.kind === 'signed-out') root.render(<SignedOut />);
    else if (state.kind === 'connected' && state.reconnected) {
      // Events sent while disconnected were missed: ask for everything shown again.
      loadAll();
      useCatalogue.getState().refresh();
      refreshRisks();
      void useSettings.getState().loadRemotes();
    }
  });
  // Discover's first cards wait only for the index's first page: it is asked for before the first
  // render, and the rest of what the window shows (the rail's update count, banners) once it is in,
  // so that the host answers it first.
  let firstPage = Promise.resolve();
  if (useRouter.getState().route.screen === 'discover') {
    useCatalogue.getState().open();
    firstPage = new Promise((resolve) => {
      const stop = useCatalogue.subscribe((s) => {
        if (s.phase === 'loading' && s.rowCount === 0) return;
        stop();
        resolve();
        loadAll();
      });
    });
  } else loadAll();
  // The first render has the first cards in it when they come soon: the window is laid out once,
  // not once empty (the search field's focus forces that layout) and again with the cards. A slow
  // index shows the screen with its loading status after FIRST_RENDER_WAIT_MS.
  await Promise.race([firstPage, new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS))]);
  root.render(
    <StrictMode>
      <ConnectionBanner connection={connection} />
      <App />
    </StrictMode>,
  );
} catch (error) {
  root.render(
    error instanceof SignedOutError ? <SignedOut /> : <NotConnected message={error instanceof Error ? error.message : String(error)} />,
  );
}
