// The GUI's client routes under /ui/ (the inbox is the home page) (the bridge answers every one of them with index.html). Pure: a path
// to a Route and back; workspace keys are percent-encoded segments, so any identifier round-trips.

export const BASE = '/ui/';

export type Route =
  | { page: 'inbox' }
  | { page: 'workspaces' }
  | { page: 'new-workspace' }
  | { page: 'workspace'; repo: string; name: string }
  | { page: 'terminal'; repo: string; name: string }
  | { page: 'ships' }
  | { page: 'repos' }
  | { page: 'resources' }
  | { page: 'armory' }
  | { page: 'users' }
  | { page: 'account' }
  | { page: 'not-found' };

const SIMPLE = ['ships', 'repos', 'resources', 'armory', 'users', 'account'] as const;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function parseRoute(pathname: string): Route {
  if (!pathname.startsWith(BASE)) return pathname === '/ui' ? { page: 'inbox' } : { page: 'not-found' };
  const parts = pathname
    .slice(BASE.length)
    .split('/')
    .filter((part, index, all) => part !== '' || index < all.length - 1);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) return { page: 'inbox' };
  if (parts[0] === 'workspaces') {
    if (parts.length === 1) return { page: 'workspaces' };
    if (parts.length === 2 && parts[1] === 'new') return { page: 'new-workspace' };
    const repo = decode(parts[1] ?? '');
    const name = decode(parts[2] ?? '');
    if (repo && name && parts.length === 3) return { page: 'workspace', repo, name };
    if (repo && name && parts.length === 4 && parts[3] === 'terminal') return { page: 'terminal', repo, name };
    return { page: 'not-found' };
  }
  const simple = SIMPLE.find((page) => page === parts[0]);
  if (simple && parts.length === 1) return { page: simple };
  return { page: 'not-found' };
}

export function pathOf(route: Route): string {
  switch (route.page) {
    case 'inbox':
    case 'not-found':
      return BASE;
    case 'workspaces':
      return `${BASE}workspaces`;
    case 'new-workspace':
      return `${BASE}workspaces/new`;
    case 'workspace':
      return `${BASE}workspaces/${encodeURIComponent(route.repo)}/${encodeURIComponent(route.name)}`;
    case 'terminal':
      return `${BASE}workspaces/${encodeURIComponent(route.repo)}/${encodeURIComponent(route.name)}/terminal`;
    default:
      return `${BASE}${route.page}`;
  }
}
