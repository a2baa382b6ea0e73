/**
 * The window: the left rail (docs/ui.md "Navigation", Ctrl/Cmd+1…6), the banners above every screen,
 * the screen of the current route, and the operations tray.
 */
import { Suspense, useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { Banners } from './components/Banners.js';
import { DesktopIntegration } from './components/Desktop.js';
import { OperationsTray } from './components/OperationsTray.js';
import { RailIcon, type RailScreen } from './components/RailIcon.js';
import { keepFocusOnScreen } from './lib/focus.js';
import { navigate, useRouter, type Route, type ScreenName } from './router.js';
import { Capability, Health, Installed, preloadScreens, Run, ScreenLoading, Settings, Updates } from './screens/lazy.js';
import { Discover } from './screens/Discover.js';
import { useCatalogue } from './stores/catalogue.js';
import { updateCount, useInstalled } from './stores/installed.js';
import { useSettings } from './stores/settings.js';

const NAV: Array<{ screen: RailScreen; label: string; route: Route }> = [
  { screen: 'discover', label: 'Discover', route: { screen: 'discover' } },
  { screen: 'installed', label: 'Installed', route: { screen: 'installed', id: null } },
  { screen: 'updates', label: 'Updates', route: { screen: 'updates' } },
  { screen: 'run', label: 'Run', route: { screen: 'run', id: null, kind: null, name: null } },
  { screen: 'health', label: 'Health', route: { screen: 'health' } },
  { screen: 'settings', label: 'Settings', route: { screen: 'settings' } },
];

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);

export function App() {
  const route = useRouter((s) => s.route);
  const updates = useInstalled(updateCount);
  const version = useSettings(useShallow((s) => s.info?.appVersion ?? null));

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const typing =
        target !== null &&
        (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
      if ((event.ctrlKey || event.metaKey) && !event.altKey && /^[1-6]$/.test(event.key)) {
        if (document.querySelector('[role="dialog"]') !== null) return;
        event.preventDefault();
        const item = NAV[Number(event.key) - 1];
        if (item !== undefined) navigate(item.route);
        return;
      }
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && document.querySelector('[role="dialog"]') === null) {
        event.preventDefault();
        if (useRouter.getState().route.screen !== 'discover') navigate({ screen: 'discover' });
        requestAnimationFrame(() => document.getElementById('catalogue-search')?.focus());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const main = document.getElementById('main');
    return main === null ? undefined : keepFocusOnScreen(main);
  }, []);

  // The other screens' code is fetched when the page is idle after the first cards (at once when
  // the page opens on another screen), so that it never delays them and opening a screen is instant.
  useEffect(() => {
    let idle = 0;
    const preload = (): void => {
      idle = requestIdleCallback(preloadScreens, { timeout: 3000 });
    };
    const drawn = (s: { rowCount: number; phase: string }): boolean => s.rowCount > 0 || s.phase === 'error';
    if (useRouter.getState().route.screen !== 'discover' || drawn(useCatalogue.getState())) {
      preload();
      return () => cancelIdleCallback(idle);
    }
    const stop = useCatalogue.subscribe((s) => {
      if (!drawn(s)) return;
      stop();
      preload();
    });
    return () => {
      stop();
      cancelIdleCallback(idle);
    };
  }, []);

  const current: ScreenName = route.screen === 'capability' ? 'discover' : route.screen;
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="rail">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            A
          </span>
          <span className="brand-name">Arcotheon</span>
        </div>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item, index) => (
              <li key={item.screen}>
                <a
                  className="rail-link"
                  href={`#/${item.screen}`}
                  aria-current={current === item.screen ? 'page' : undefined}
                  aria-keyshortcuts={`${isMac ? 'Meta' : 'Control'}+${index + 1}`}
                  title={`${item.label} (${isMac ? '⌘' : 'Ctrl+'}${index + 1})`}
                >
                  <RailIcon screen={item.screen} />
                  <span className="label">{item.label}</span>
                  {item.screen === 'updates' && updates > 0 && (
                    <span className="count">
                      {/* The name reads "Updates, 1 available" (the label stays in it on a narrow window: feedback.css). */}
                      <span className="visually-hidden">, </span>
                      {updates}
                      <span className="visually-hidden"> available</span>
                    </span>
                  )}
                  <kbd aria-hidden="true">
                    {isMac ? '⌘' : 'Ctrl '}
                    {index + 1}
                  </kbd>
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="rail-footer">{version === null ? 'Arcotheon' : `Arcotheon ${version}`}</div>
      </aside>
      <div className="main">
        <Banners />
        <main id="main" className="content" tabIndex={-1}>
          {/* Screens other than Discover load when first opened (screens/lazy.tsx); the heading gets the
              focus once the screen is there, not while its code loads. */}
          <Suspense fallback={<ScreenLoading screen={route.screen} />}>
            <Screen route={route} />
            <FocusHeading route={route} />
          </Suspense>
        </main>
      </div>
      <OperationsTray />
      <DesktopIntegration />
    </div>
  );
}

/**
 * Moves focus to the new screen's heading, so keyboard and screen-reader users land on it. Inside
 * the screen's Suspense boundary, its effect runs only once the screen has been drawn: a screen
 * whose code is still loading gets the focus when it appears.
 */
function FocusHeading({ route }: { route: Route }) {
  useEffect(() => {
    if (route.screen === 'discover') return;
    requestAnimationFrame(() => document.querySelector<HTMLElement>('.screen h1')?.focus());
  }, [route]);
  return null;
}

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'discover':
      return <Discover />;
    case 'capability':
      return <Capability key={route.id} id={route.id} />;
    case 'installed':
      return <Installed key={route.id ?? ''} id={route.id} />;
    case 'updates':
      return <Updates />;
    case 'run':
      return <Run key={`${route.id}/${route.kind}/${route.name}`} route={route} />;
    case 'health':
      return <Health />;
    case 'settings':
      return <Settings />;
  }
}
