// The signed-in user's own account: who they are (GET /auth/me) and changing their password (which ends
// every session of theirs, this one included: the next call returns to the sign-in gate).
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useApi, useSession, useViewer } from '../state/session.js';

export function AccountPage() {
  const api = useApi();
  const { signOut } = useSession();
  const { user, authRequired } = useViewer();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const action = useAction();
  if (!user) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return;
    void action.run(() => api.setPassword(user.username, password)).then((ok) => {
      if (ok) void signOut();
    });
  };
  return (
    <section aria-label="account">
      <h2>Account</h2>
      <dl className="facts">
        <dt>Username</dt>
        <dd data-testid="username">
          <Text value={user.username} />
        </dd>
        <dt>Email</dt>
        <dd>
          <Text value={user.email} />
        </dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      {authRequired && (
        <form onSubmit={submit} className="stacked" aria-label="change password">
          <h3>Change password</h3>
          <label>
            New password
            <input name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </label>
          <label>
            Repeat
            <input name="repeat" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} required />
          </label>
          <p className="muted">Changing it signs you out everywhere.</p>
          <button type="submit" disabled={action.pending}>
            Change password
          </button>
          <ErrorMessage error={mismatch ? 'the passwords differ' : action.error} />
        </form>
      )}
    </section>
  );
}
