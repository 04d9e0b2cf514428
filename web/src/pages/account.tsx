// The signed-in user's own account: who they are (GET /auth/me), changing their email (POST
// /users/:name/email, self or admin; the answer replaces the shown user) and their password (which ends
// every session of theirs, this one included: the next call returns to the sign-in gate).
import { useState, type FormEvent } from 'react';
import type { User } from '../../../protocol/auth.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageTitle } from '../components/page-title.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useApi, useSession, useViewer } from '../state/session.js';

export function AccountPage() {
  const { user, authRequired } = useViewer();
  if (!user) return null;
  return (
    <section aria-label="account">
      <PageTitle>Account</PageTitle>
      <dl className="facts">
        <dt>Username</dt>
        <dd data-testid="username">
          <Text value={user.username} />
        </dd>
        <dt>Email</dt>
        <dd data-testid="email">
          <Text value={user.email} />
        </dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      <EmailForm user={user} />
      {authRequired && <PasswordForm user={user} />}
    </section>
  );
}

function EmailForm({ user }: { user: User }) {
  const api = useApi();
  const { updateUser } = useSession();
  const [email, setEmail] = useState('');
  const [changed, setChanged] = useState(false);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChanged(false);
    void action.run(async () => {
      updateUser(await api.setEmail(user.username, email.trim()));
      setEmail('');
      setChanged(true);
    });
  };
  return (
    <form onSubmit={submit} className="stacked" aria-label="change email">
      <h2>Change email</h2>
      <label>
        New email
        <input
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
      </label>
      <button type="submit" disabled={action.pending}>
        Change email
      </button>
      {changed && (
        <p className="notice" role="status">
          Email changed.
        </p>
      )}
      <ErrorMessage error={action.error} />
    </form>
  );
}

function PasswordForm({ user }: { user: User }) {
  const api = useApi();
  const { signOut } = useSession();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return;
    void action
      .run(() => api.setPassword(user.username, password))
      .then((ok) => {
        if (ok) void signOut();
      });
  };
  return (
    <form onSubmit={submit} className="stacked" aria-label="change password">
      <h2>Change password</h2>
      <label>
        New password
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      <label>
        Repeat
        <input
          name="repeat"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          required
        />
      </label>
      <p className="muted">Changing it signs you out everywhere.</p>
      <button type="submit" disabled={action.pending}>
        Change password
      </button>
      <ErrorMessage error={mismatch ? 'the passwords differ' : action.error} />
    </form>
  );
}
