// Typed data hooks for the fleet pages: ships, repos and their branches, resources, the armory, users.
import { useApi } from '../state/session.js';
import { useAsync } from './use-async.js';

export function useShips() {
  const api = useApi();
  return useAsync(() => api.ships(), [api]);
}

export function useRepos() {
  const api = useApi();
  return useAsync(() => api.repos(), [api]);
}

/** The remote's branches of `repo` (none asked while `repo` is empty). */
export function useBranches(repo: string) {
  const api = useApi();
  return useAsync(() => (repo ? api.branches(repo) : Promise.resolve([])), [api, repo]);
}

export function useResources() {
  const api = useApi();
  return useAsync(() => api.resources(), [api]);
}

export function useArmory() {
  const api = useApi();
  return useAsync(() => Promise.all([api.armory(), api.armoryShips()]).then(([manifest, ships]) => ({ manifest, ships })), [api]);
}

export function useUsers(enabled: boolean) {
  const api = useApi();
  return useAsync(() => (enabled ? api.users() : Promise.resolve([])), [api, enabled]);
}
