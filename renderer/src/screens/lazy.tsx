/**
 * The screens other than Discover, loaded when first opened (docs/ui.md "Fast"): Discover is the
 * first screen, so the page's own script holds only it, and the others' code (with the Run form's
 * and the readme's libraries) comes as separate files of the same build, fetched when a screen is
 * first shown, or in the background once the first cards are drawn (`preloadScreens`). While a
 * screen's code loads, `ScreenLoading` says so; App.tsx gives the screen's heading the focus once
 * it appears.
 */
import { lazy, useEffect } from 'react';
import type { ScreenName } from '../router.js';

const load = {
  capability: () => import('./Capability.js'),
  installed: () => import('./Installed.js'),
  updates: () => import('./Updates.js'),
  run: () => import('./Run.js'),
  health: () => import('./Health.js'),
  settings: () => import('./Settings.js'),
} as const;

export const Capability = lazy(async () => ({ default: (await load.capability()).Capability }));
export const Installed = lazy(async () => ({ default: (await load.installed()).Installed }));
export const Updates = lazy(async () => ({ default: (await load.updates()).Updates }));
export const Run = lazy(async () => ({ default: (await load.run()).Run }));
export const Health = lazy(async () => ({ default: (await load.health()).Health }));
export const Settings = lazy(async () => ({ default: (await load.settings()).Settings }));

let preloaded = false;

/** Fetches every screen's code once, so that opening one later does not wait for it. */
export function preloadScreens(): void {
  if (preloaded) return;
  preloaded = true;
  // A failed fetch (the server went away) is retried when the screen is opened, and said there.
  for (const screen of Object.values(load)) void screen().catch(() => undefined);
}

const TITLES: Record<ScreenName, string> = {
  discover: 'Discover',
  capability: 'the capability',
  installed: 'Installed',
  updates: 'Updates',
  run: 'Run',
  health: 'Health',
  settings: 'Settings',
};

/** Shown in place of a screen whose code is still loading (after a moment, so a quick load does not flash). */
export function ScreenLoading({ screen }: { screen: ScreenName }) {
  // The screen left behind is hidden while this shows, and the browser drops the focus it held to
  // <body>: it waits on <main> instead, until App.tsx gives it to the new screen's heading.
  useEffect(() => {
    const main = document.getElementById('main');
    const active = document.activeElement;
    if (main === null) return;
    if (active === null || active === document.body || (main.contains(active) && active.getClientRects().length === 0)) main.focus();
  }, []);
  return (
    <div className="screen screen-loading" aria-busy="true">
      <div className="empty" role="status" aria-live="polite">
        Loading {TITLES[screen]}…
      </div>
    </div>
  );
}
