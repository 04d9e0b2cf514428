// Repos: the registry (name, clone URL, provider), adding one with a provider, removing one (workspaces
// already cloned from it stay), and listing a repo's remote branches.
import { useState, type FormEvent } from 'react';
import { DEFAULT_REPO_PROVIDER, REPO_PROVIDERS } from '../../../protocol/bridge.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useBranches, useRepos } from '../hooks/use-fleet.js';
import { useApi } from '../state/session.js';
import { PageTitle } from '../components/page-title.js';

export function ReposPage() {
  const api = useApi();
  const repos = useRepos();
  const removing = useAction();
  const [shown, setShown] = useState('');
  return (
    <section aria-label="repos">
      <header className="page-header">
        <PageTitle>Repos</PageTitle>
      </header>
      <ErrorMessage error={repos.error} />
      <table className="repos">
        <thead>
          <tr>
            <th>Name</th>
            <th>URL</th>
            <th>Provider</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {(repos.data ?? []).map((repo) => (
            <tr key={repo.name} data-repo={repo.name}>
              <td>
                <Text value={repo.name} />
              </td>
              <td>
                <Text value={repo.url} />
              </td>
              <td>
                <Text value={repo.provider} />
              </td>
              <td>
                <span className="actions">
                  <button
                    type="button"
                    aria-label={`Branches of ${repo.name}`}
                    aria-expanded={shown === repo.name}
                    onClick={() => setShown(shown === repo.name ? '' : repo.name)}
                  >
                    Branches
                  </button>
                  <ConfirmButton
                    label="Remove"
                    target={`repo ${repo.name}`}
                    question={
                      <>
                        Remove repo <Text value={repo.name} />? Workspaces cloned from it stay.
                      </>
                    }
                    onConfirm={() => void removing.run(() => api.removeRepo(repo.name)).then(repos.reload)}
                  />
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorMessage error={removing.error} />
      {shown && <Branches repo={shown} />}
      <AddRepoForm onAdded={repos.reload} />
    </section>
  );
}

function Branches({ repo }: { repo: string }) {
  const branches = useBranches(repo);
  return (
    <section className="branches" aria-label="branches">
      <h2>
        Branches of <Text value={repo} />
      </h2>
      {branches.loading && <p className="muted">Asking the remote…</p>}
      <ErrorMessage error={branches.error} />
      <ul>
        {(branches.data ?? []).map((branch) => (
          <li key={branch.name}>
            <Text value={branch.name} /> <span className="mono muted">{branch.sha.slice(0, 12)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function AddRepoForm({ onAdded }: { onAdded: () => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [provider, setProvider] = useState<string>(DEFAULT_REPO_PROVIDER);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await api.addRepo({ name, url, provider });
      setName('');
      setUrl('');
      onAdded();
    });
  };
  return (
    <form onSubmit={submit} className="stacked" aria-label="add repo">
      <h2>Add repo</h2>
      <label>
        Name
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Clone URL
        <input name="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
      </label>
      <label>
        Provider
        <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
          {REPO_PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={action.pending}>
        Add
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}
