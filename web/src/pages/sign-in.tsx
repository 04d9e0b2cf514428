// The sign-in gate (spec "Clients": shown when GET /auth/mode says authRequired and whenever a call gets
// 401). Logging in stores the session token (state/session.tsx → api/token-store.ts).
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { useAction } from '../hooks/use-action.js';
import { useSession } from '../state/session.js';

export function SignIn({ notice }: { notice: string | null }) {
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(() => signIn(username, password));
  };
  return (
    <main className="gate">
      <h1>svc</h1>
      <form onSubmit={submit} aria-label="sign in">
        <h2>Sign in</h2>
        {notice && <p className="notice">{notice}</p>}
        <label>
          Username
          <input
            name="username"
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            required
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        <button type="submit" disabled={action.pending}>
          Sign in
        </button>
        <ErrorMessage error={action.error} />
      </form>
    </main>
  );
}
