/**
 * Hash routes (`#/capability/acme/pdf`): they work the same over http:// from `arcotheon ui` and
 * over file:// in the Electron window, and the back button does what a person expects.
 */
import { create } from 'zustand';
import { parseRoute, type Route } from './route.js';

export type { Route, ScreenName } from './route.js';

export function hrefOf(route: Route): string {
  switch (route.screen) {
    case 'discover':
      return '#/discover';
    case 'capability':
      return `#/capability/${route.id}`;
    case 'installed':
      return route.id === null ? '#/installed' : `#/installed/${route.id}`;
    case 'run':
      if (route.id === null) return '#/run';
      return route.kind === null || route.name === null
        ? `#/run/${route.id}`
        : `#/run/${route.id}/${route.kind}/${encodeURIComponent(route.name)}`;
    default:
      return `#/${route.screen}`;
  }
}

interface RouterState {
  route: Route;
  navigate(route: Route): void;
}

export const useRouter = create<RouterState>((set) => ({
  route: parseRoute(location.hash),
  navigate(route) {
    const href = hrefOf(route);
    if (location.hash !== href) location.hash = href;
    set({ route });
  },
}));

window.addEventListener('hashchange', () => useRouter.setState({ route: parseRoute(location.hash) }));

export const navigate = (route: Route): void => useRouter.getState().navigate(route);
