// One workspace's status (diff counts, agent) and its diff text with the `stat`/`staged` toggles. Both are
// invalidated by the live stream when the workspace changes (state/live-fleet.tsx).
import type { DiffOptions } from '../api/api-client.js';
import { queryKeys } from '../state/query-client.js';
import { useApi } from '../state/session.js';
import { useBridgeQuery } from './use-bridge-query.js';

/** `pollMs`: also re-read it that often while the page is visible (changes on disk raise no event). */
export function useWorkspaceStatus(repo: string, name: string, enabled = true, pollMs?: number) {
  const api = useApi();
  return useBridgeQuery(queryKeys.workspace(repo, name), () => api.workspace(repo, name), enabled, pollMs);
}

export function useDiff(repo: string, name: string, options: DiffOptions) {
  const api = useApi();
  return useBridgeQuery(queryKeys.diff(repo, name, options), () => api.diff(repo, name, options));
}
