/**
 * The screen an address names (`#/capability/acme/pdf`), read without React or the stores: the
 * router (router.ts) and the page's first script (start.ts) both read it.
 */
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

export function parseRoute(hash: string): Route {
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

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
