// Who is signed in, shared through React context: the API client (one per page load), the auth mode, the
// user, and sign in / sign out. Any 401 the client sees moves the state back to `signed-out`, which the app
// shows as the sign-in gate; under --insecure-no-auth (`authRequired: false`) there is no gate.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { User } from '../../../protocol/auth.js';
import { ApiClient } from '../api/api-client.js';
import { errorText } from '../api/api-error.js';
import { localTokenStore } from '../api/token-store.js';

export type SessionState =
  | { status: 'loading' }
  | { status: 'unreachable'; message: string }
  | { status: 'signed-out'; notice: string | null }
  | { status: 'signed-in'; user: User; authRequired: boolean };

interface Session {
  client: ApiClient;
  state: SessionState;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  /** The signed-in user changed (their own email): show the bridge's answer. */
  updateUser(user: User): void;
  retry(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const client = useMemo(
    () =>
      new ApiClient({
        tokens: localTokenStore(),
        onUnauthorized: () => setState({ status: 'signed-out', notice: 'Your session has ended. Sign in again.' }),
      }),
    [],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies(attempt): trigger: a retry bumps attempt
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const { authRequired } = await client.mode();
      if (authRequired && !client.signedIn) {
        if (!cancelled) setState({ status: 'signed-out', notice: null });
        return;
      }
      const user = await client.me();
      if (!cancelled) setState({ status: 'signed-in', user, authRequired });
    })().catch((error: unknown) => {
      // A 401 already moved the state to signed-out (onUnauthorized).
      if (!cancelled && (error as { status?: number }).status !== 401)
        setState({ status: 'unreachable', message: errorText(error) });
    });
    return () => {
      cancelled = true;
    };
  }, [client, attempt]);

  const signIn = useCallback(
    async (username: string, password: string) => {
      const user = await client.login(username, password);
      setState({ status: 'signed-in', user, authRequired: true });
    },
    [client],
  );
  const signOut = useCallback(async () => {
    await client.logout().catch(() => undefined);
    setState({ status: 'signed-out', notice: 'Signed out.' });
  }, [client]);
  const updateUser = useCallback((user: User) => {
    setState((current) =>
      current.status === 'signed-in' && current.user.id === user.id ? { ...current, user } : current,
    );
  }, []);
  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);

  const session = useMemo(
    () => ({ client, state, signIn, signOut, updateUser, retry }),
    [client, state, signIn, signOut, updateUser, retry],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export function useApi(): ApiClient {
  return useSession().client;
}

/** The signed-in user, and whether they may use admin-only controls (hidden for members). */
export function useViewer(): { user: User | null; isAdmin: boolean; authRequired: boolean } {
  const { state } = useSession();
  if (state.status !== 'signed-in') return { user: null, isAdmin: false, authRequired: true };
  return { user: state.user, isAdmin: state.user.role === 'admin', authRequired: state.authRequired };
}
