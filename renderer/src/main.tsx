/**
 * The renderer's entry: connect to the host (Electron preload or the `arcotheon ui` WebSocket),
 * wire host events to the stores, then render the app. A failed connection shows what to do.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { connectHost } from './host.js';
import { useCatalogue } from './stores/catalogue.js';
import { useInstalled } from './stores/installed.js';
import { useOperations } from './stores/operations.js';
import { useSettings } from './stores/settings.js';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);

function Fatal({ message }: { message: string }) {
  return (
    <main className="screen" style={{ maxWidth: 640, margin: '10vh auto' }}>
      <h1>Arcotheon is not connected</h1>
      <p role="alert">{message}</p>
      <p className="muted">Start it again with “arcotheon ui” and open the address it prints.</p>
    </main>
  );
}

try {
  const connection = await connectHost();
  connection.client.events.subscribe((event) => {
    useOperations.getState().onEvent(event);
    if (event.type === 'installed-changed') {
      useInstalled.getState().refreshAll();
      useCatalogue.getState().refresh();
    } else if (event.type === 'catalogue-changed') {
      useCatalogue.getState().refresh();
    } else if (event.type === 'policy-changed') {
      void useSettings.getState().loadPolicy();
    } else if (event.type === 'remotes-changed') {
      void useSettings.getState().loadRemotes();
      useCatalogue.getState().refresh();
    }
  });
  void connection.closed.then(() => root.render(<Fatal message="The connection to Arcotheon closed." />));
  void useInstalled.getState().loadOverview();
  void useSettings.getState().loadInfo();
  void useSettings.getState().loadPolicy();
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
} catch (error) {
  root.render(<Fatal message={error instanceof Error ? error.message : String(error)} />);
}
