/**
 * Hash routes (`#/capability/acme/pdf`): they work the same over http:// from `arcotheon ui` and
 * over file:// in the Electron window, and the back button does what a person expects.
 */
import { create } from 'zustand';

export type Route =
  | { screen: 'discover' }
  | { screen: 'capability'; id: string }
  | { screen: 'installed'; id: string | null }
  | { screen: 'updates' }
  | { screen: 'run'; id: string | null; kind: 'tool' | 'workflow' | null; name: string | null }
  | { screen: 'health' }
  | { screen: 'settings' };

export type ScreenName = Route['screen'];

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p.length > 0)
    .map((p) => safeDecode(p));
  const [head, a, b, c, d] = parts;
  const id = a !== undefined && b !== undefined && ID.test(`${a}/${b}`) ? `${a}/${b}` : null;
  switch (head) {
    case 'capability':
      return id === null ? { screen: 'discover' } : { screen: 'capability', id };
    case 'installed':
      return { screen: 'installed', id };
    case 'updates':
      return { screen: 'updates' };
    case 'run':
      return { screen: 'run', id, kind: c === 'tool' || c === 'workflow' ? c : null, name: d ?? null };
    case 'health':
      return { screen: 'health' };
    case 'settings':
      return { screen: 'settings' };
    default:
      return { screen: 'discover' };
  }
}

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

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
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
