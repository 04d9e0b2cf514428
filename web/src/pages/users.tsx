// Users (admins): the list, adding a user, removing one, changing a role. Members do not get here from the
// navigation; if they do, the bridge's 403 message is shown.
import { useState, type FormEvent } from 'react';
import type { Role } from '../../../protocol/auth.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useUsers } from '../hooks/use-fleet.js';
import { useApi, useViewer } from '../state/session.js';
import { PageTitle } from '../components/page-title.js';

export function UsersPage() {
  const api = useApi();
  const { user: me } = useViewer();
  const users = useUsers();
  const action = useAction();
  return (
    <section aria-label="users">
      <header className="page-header">
        <PageTitle>Users</PageTitle>
      </header>
      <ErrorMessage error={users.error} />
      <table className="users">
        <thead>
          <tr>
            <th>Username</th>
            <th>Email</th>
            <th>Role</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {(users.data ?? []).map((user) => (
            <tr key={user.id} data-user={user.username}>
              <td>
                <Text value={user.username} />
                {me?.id === user.id && <span className="muted"> (you)</span>}
              </td>
              <td>
                <Text value={user.email} />
              </td>
              <td>
                <select
                  name="role"
                  aria-label={`role of ${user.username}`}
                  value={user.role}
                  onChange={(e) =>
                    void action.run(() => api.setRole(user.username, e.target.value as Role)).then(users.reload)
                  }
                >
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              </td>
              <td>
                <ConfirmButton
                  label="Remove"
                  target={`user ${user.username}`}
                  question={
                    <>
                      Remove user <Text value={user.username} />? Their sessions end.
                    </>
                  }
                  onConfirm={() => void action.run(() => api.removeUser(user.username)).then(users.reload)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorMessage error={action.error} />
      <AddUserForm onAdded={users.reload} />
    </section>
  );
}

function AddUserForm({ onAdded }: { onAdded: () => void }) {
  const api = useApi();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await api.addUser({ username, email, password, role });
      setUsername('');
      setEmail('');
      setPassword('');
      onAdded();
    });
  };
  return (
    <form onSubmit={submit} className="stacked" aria-label="add user">
      <h2>Add user</h2>
      <label>
        Username
        <input name="username" value={username} onChange={(e) => setUsername(e.target.value)} required />
      </label>
      <label>
        Email
        <input name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </label>
      <label>
        Password
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
        Role
        <select name="role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <button type="submit" disabled={action.pending}>
        Add
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}
