// Typed data hooks for the fleet pages: ships, repos and their branches, resources, the armory, users.
import { queryKeys } from '../state/query-client.js';
import { useApi } from '../state/session.js';
import { useBridgeQuery } from './use-bridge-query.js';

export function useShips() {
  const api = useApi();
  return useBridgeQuery(queryKeys.ships, () => api.ships());
}

export function useRepos() {
  const api = useApi();
  return useBridgeQuery(queryKeys.repos, () => api.repos());
}

/** The remote's branches of `repo` (none asked while `repo` is empty). */
export function useBranches(repo: string) {
  const api = useApi();
  const branches = useBridgeQuery(queryKeys.branches(repo), () => api.branches(repo), repo !== '');
  return repo === '' ? { ...branches, data: [] } : branches;
}

export function useResources() {
  const api = useApi();
  return useBridgeQuery(queryKeys.resources, () => api.resources());
}

export function useArmory() {
  const api = useApi();
  return useBridgeQuery(queryKeys.armory, () => Promise.all([api.armory(), api.armoryShips()]).then(([manifest, ships]) => ({ manifest, ships })));
}

export function useUsers() {
  const api = useApi();
  return useBridgeQuery(queryKeys.users, () => api.users());
}
