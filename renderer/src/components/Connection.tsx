/**
 * What the page says about its connection to `arcotheon ui` (docs/host-api.md, "Sessions"): a
 * banner while it reconnects by itself, and a screen when no retry can help, each saying in words
 * what to do. The Electron window never shows them (its bridge does not drop).
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Connection, ConnectionState } from '../host.js';

/** A whole-window message in place of the app (before it could start, or once signed out). */
export function ConnectionScreen({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="screen" style={{ maxWidth: 640, margin: '10vh auto' }}>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

/** This browser has no valid session: the one-time sign-in is the only way in. */
export function SignedOut() {
  return (
    <ConnectionScreen title="This browser is not signed in to Arcotheon">
      <p role="alert">Arcotheon did not accept this browser: its sign-in has ended, or this address was opened before signing in.</p>
      <p>
        Open Arcotheon again from the terminal with <code>arcotheon ui</code>: it opens a signed-in page. If it is already running, press
        Enter in its terminal for a new sign-in address and open that here.
      </p>
    </ConnectionScreen>
  );
}

/** The app could not start at all (the page itself failed). */
export function NotConnected({ message }: { message: string }) {
  return (
    <ConnectionScreen title="Arcotheon is not connected">
      <p role="alert">{message}</p>
      <p>
        Open Arcotheon again from the terminal with <code>arcotheon ui</code>.
      </p>
    </ConnectionScreen>
  );
}

/** Seconds left before the next try, counted down once a second. */
function useCountdown(state: ConnectionState): number {
  const [now, setNow] = useState(() => Date.now());
  const [since] = useState(() => new Map<ConnectionState, number>());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (state.kind !== 'reconnecting') return 0;
  if (!since.has(state)) since.set(state, Date.now());
  return Math.max(0, Math.ceil((state.retryInMs - (now - (since.get(state) ?? now))) / 1000));
}

/** Shown above every screen while the socket is down; the app stays usable for what it already shows. */
export function ConnectionBanner({ connection }: { connection: Connection }) {
  const state = useSyncExternalStore(connection.onChange, connection.state);
  const seconds = useCountdown(state);
  if (state.kind !== 'reconnecting') return null;
  return (
    <div
      className="banner warn"
      role="status"
      data-banner="connection"
      style={{ position: 'fixed', top: 0, left: 0, right: 0, zIndex: 1000, boxShadow: '0 2px 6px rgb(0 0 0 / 0.15)' }}
    >
      <span aria-hidden="true">⚠</span>
      <span className="grow">
        <strong>Arcotheon is not connected.</strong>{' '}
        {state.serverAnswers
          ? 'Reconnecting'
          : 'If you stopped arcotheon ui, start it again in the terminal with the same home; this page reconnects by itself.'}
        {!state.serverAnswers && state.attempt > 5 ? ' If it now runs on another port, open the address it printed instead.' : ''}
        {seconds > 0 ? ` Next try in ${seconds} s.` : ' Trying now…'}
      </span>
      <button type="button" className="small" onClick={() => connection.retryNow()}>
        Reconnect now
      </button>
    </div>
  );
}
