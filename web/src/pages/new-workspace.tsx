// Creating a workspace through the bridge (spec "POST /workspaces (bridge)"): a ship and a registered repo,
// then either a branch (suggested from the remote's branches) or an issue number, optionally ephemeral.
import { useState, type FormEvent } from 'react';
import type { BridgeCreateWorkspaceRequest } from '../../../protocol/bridge.js';
import { ErrorMessage } from '../components/error-message.js';
import { visibleText } from '../lib/visible-text.js';
import { useAction } from '../hooks/use-action.js';
import { useBranches, useRepos, useShips } from '../hooks/use-fleet.js';
import { navigate } from '../hooks/use-route.js';
import { pathOf } from '../lib/routes.js';
import { useApi } from '../state/session.js';

export function NewWorkspacePage() {
  const api = useApi();
  const ships = useShips();
  const repos = useRepos();
  const [ship, setShip] = useState('');
  const [repo, setRepo] = useState('');
  const [name, setName] = useState('');
  const [from, setFrom] = useState<'branch' | 'issue'>('branch');
  const [branch, setBranch] = useState('');
  const [issue, setIssue] = useState('');
  const [ephemeral, setEphemeral] = useState(false);
  const branches = useBranches(repo);
  const action = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request: BridgeCreateWorkspaceRequest =
      from === 'branch' ? { ship, repoName: repo, name, branch } : { ship, repoName: repo, name, issueNumber: Number(issue), ...(ephemeral ? { ephemeral: true } : {}) };
    void action.run(async () => {
      const created = await api.createWorkspace(request);
      navigate(pathOf({ page: 'workspace', repo: created.repoName, name: created.name }));
    });
  };

  return (
    <section aria-label="new workspace">
      <h2>New workspace</h2>
      <ErrorMessage error={ships.error ?? repos.error} />
      <form onSubmit={submit} className="stacked" aria-label="create workspace">
        <label>
          Ship
          <select name="ship" value={ship} onChange={(e) => setShip(e.target.value)} required>
            <option value="">choose a ship</option>
            {(ships.data ?? []).map((s) => (
              <option key={s.name} value={s.name}>
                {visibleText(s.name)} ({s.status})
              </option>
            ))}
          </select>
        </label>
        <label>
          Repo
          <select name="repo" value={repo} onChange={(e) => setRepo(e.target.value)} required>
            <option value="">choose a repo</option>
            {(repos.data ?? []).map((r) => (
              <option key={r.name} value={r.name}>
                {visibleText(r.name)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <fieldset>
          <legend>From</legend>
          <label className="inline">
            <input type="radio" name="from" value="branch" checked={from === 'branch'} onChange={() => setFrom('branch')} /> a branch
          </label>
          <label className="inline">
            <input type="radio" name="from" value="issue" checked={from === 'issue'} onChange={() => setFrom('issue')} /> an issue
          </label>
        </fieldset>
        {from === 'branch' ? (
          <label>
            Branch
            <input name="branch" list="branch-suggestions" value={branch} onChange={(e) => setBranch(e.target.value)} required />
            <datalist id="branch-suggestions">
              {(branches.data ?? []).map((b) => (
                <option key={b.name} value={b.name} />
              ))}
            </datalist>
            {branches.error && <span className="muted">branches unavailable: {visibleText(branches.error)}</span>}
          </label>
        ) : (
          <>
            <label>
              Issue number
              <input name="issue" type="number" min={1} step={1} value={issue} onChange={(e) => setIssue(e.target.value)} required />
            </label>
            <label className="inline">
              <input name="ephemeral" type="checkbox" checked={ephemeral} onChange={(e) => setEphemeral(e.target.checked)} /> ephemeral (removed
              once its pull request is merged or closed)
            </label>
          </>
        )}
        <button type="submit" disabled={action.pending}>
          {action.pending ? 'Creating…' : 'Create'}
        </button>
        <ErrorMessage error={action.error} />
      </form>
    </section>
  );
}
