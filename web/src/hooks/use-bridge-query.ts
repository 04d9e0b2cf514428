// Server data for a page through the shared cache (state/query-client.ts): the last good data, the bridge's
// error message, whether a load is in flight, and a reload. The base of the typed data hooks (use-fleet.ts,
// use-workspace.ts).
import { useQuery, type QueryKey } from '@tanstack/react-query';
import { errorText } from '../api/api-error.js';

export interface AsyncData<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** `pollMs`: re-read that often while the page is visible (TanStack Query pauses it in a hidden tab). */
export function useBridgeQuery<T>(
  key: QueryKey,
  load: () => Promise<T>,
  enabled = true,
  pollMs?: number,
): AsyncData<T> {
  const query = useQuery({ queryKey: key, queryFn: load, enabled, refetchInterval: pollMs ?? false });
  return {
    data: query.data,
    error: query.error ? errorText(query.error) : null,
    loading: query.isFetching,
    reload: () => void query.refetch(),
  };
}
