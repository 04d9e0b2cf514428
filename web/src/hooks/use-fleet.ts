// Typed data hooks for the fleet pages: ships, repos with their branches and open issues, resources, the
// armory and its files, users.
import { queryKeys } from '../state/query-client.js';
import { useApi } from '../state/session.js';
import { useBridgeQuery } from './use-bridge-query.js';

/** `pollMs`: re-read that often while the page is visible. */
export function useShips(pollMs?: number) {
  const api = useApi();
  return useBridgeQuery(queryKeys.ships, () => api.ships(), true, pollMs);
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

/** The repo's open issues from its forge (none asked while `repo` is empty). */
export function useIssues(repo: string) {
  const api = useApi();
  return useBridgeQuery(queryKeys.issues(repo), () => api.issues(repo), repo !== '');
}

/** How often the ships page re-reads CPU, memory and load while it is visible (issue #31: "every few seconds"). */
export const RESOURCES_POLL_MS = 3000;

/** Every ship's resources; `pollMs` re-reads them that often while the page is visible. */
export function useResources(pollMs?: number) {
  const api = useApi();
  return useBridgeQuery(queryKeys.resources, () => api.resources(), true, pollMs);
}

export function useArmory() {
  const api = useApi();
  return useBridgeQuery(queryKeys.armory, () =>
    Promise.all([api.armory(), api.armoryShips()]).then(([manifest, ships]) => ({ manifest, ships })),
  );
}

/** One armory file (none asked while `path` is empty). */
export function useArmoryFile(path: string) {
  const api = useApi();
  return useBridgeQuery(queryKeys.armoryFile(path), () => api.armoryFile(path), path !== '');
}

export function useUsers() {
  const api = useApi();
  return useBridgeQuery(queryKeys.users, () => api.users());
}
