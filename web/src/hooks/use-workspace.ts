// One workspace's status (diff counts, agent) and its diff text with the `stat`/`staged` toggles.
import { useApi } from '../state/session.js';
import { useAsync } from './use-async.js';

export function useWorkspaceStatus(repo: string, name: string) {
  const api = useApi();
  return useAsync(() => api.workspace(repo, name), [api, repo, name]);
}

export function useDiff(repo: string, name: string, stat: boolean, staged: boolean) {
  const api = useApi();
  return useAsync(() => api.diff(repo, name, { stat, staged }), [api, repo, name, stat, staged]);
}
