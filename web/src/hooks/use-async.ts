// Loading data for a page: runs `load` when its dependencies change, keeps the last good data, the
// bridge's error message, and a reload. The base of the typed data hooks (use-fleet.ts, use-workspace.ts).
import { useCallback, useEffect, useRef, useState, type DependencyList } from 'react';
import { errorText } from '../api/api-error.js';

export interface AsyncData<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

export function useAsync<T>(load: () => Promise<T>, deps: DependencyList): AsyncData<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let current = true;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(errorText(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `load` is read through a ref: the caller's `deps` say when to load again, not the closure's identity.
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, loading, reload };
}
