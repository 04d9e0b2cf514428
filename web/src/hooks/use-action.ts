// Running a user action (create, delete, register…): whether it is in flight, and the bridge's error
// message when it failed (shown as the bridge wrote it, 403s included).
import { useCallback, useState } from 'react';
import { errorText } from '../api/api-error.js';

export interface Action {
  pending: boolean;
  error: string | null;
  /** Runs `work`; resolves true when it succeeded. */
  run(work: () => Promise<unknown>): Promise<boolean>;
  clear(): void;
}

export function useAction(): Action {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setPending(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(errorText(failure));
      return false;
    } finally {
      setPending(false);
    }
  }, []);
  const clear = useCallback(() => setError(null), []);
  return { pending, error, run, clear };
}
