// The GUI's cache of server data (TanStack Query, docs/DECISIONS.md "The GUI's data layer"): one client per
// signed-in session, so pages share and deduplicate requests. Never a stale answer in place of a live one:
// data is stale at once (a page that mounts asks again, showing the cached value meanwhile), the live
// stream invalidates what it changed (state/live-fleet.tsx), and a failure is shown as the bridge wrote it,
// not retried behind the user's back.
import { QueryClient } from '@tanstack/react-query';

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 0, retry: false, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
  });
}

/** Query keys, one per kind of server answer: invalidating a prefix reaches every variant of it. */
export const queryKeys = {
  workspace: (repo: string, name: string) => ['workspace', repo, name] as const,
  diff: (repo: string, name: string, options: object) => ['workspace', repo, name, 'diff', options] as const,
  /** Every diff of one workspace, whatever its options. */
  diffs: (repo: string, name: string) => ['workspace', repo, name, 'diff'] as const,
  ships: ['ships'] as const,
  repos: ['repos'] as const,
  branches: (repo: string) => ['repos', repo, 'branches'] as const,
  issues: (repo: string) => ['repos', repo, 'issues'] as const,
  resources: ['resources'] as const,
  armory: ['armory'] as const,
  armoryFile: (path: string) => ['armory', 'file', path] as const,
  users: ['users'] as const,
};
