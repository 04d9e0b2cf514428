// One workspace's status (diff counts, agent) and its diff text with the `stat`/`staged` toggles. Both are
// invalidated by the live stream when the workspace changes (state/live-fleet.tsx).
import type { DiffOptions } from '../api/api-client.js';
import { queryKeys } from '../state/query-client.js';
import { useApi } from '../state/session.js';
import { useBridgeQuery } from './use-bridge-query.js';

export function useWorkspaceStatus(repo: string, name: string, enabled = true) {
  const api = useApi();
  return useBridgeQuery(queryKeys.workspace(repo, name), () => api.workspace(repo, name), enabled);
}

export function useDiff(repo: string, name: string, options: DiffOptions) {
  const api = useApi();
  return useBridgeQuery(queryKeys.diff(repo, name, options), () => api.diff(repo, name, options));
}
