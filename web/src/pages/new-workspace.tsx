// Creating a workspace through the bridge (spec "POST /workspaces (bridge)", issue #31): an online ship
// (offline ones are listed but cannot be chosen), a registered repo, a name checked as it is typed with
// protocol/'s identifier rules and the spec's messages, then either a branch (a combobox over the remote's
// branches; a name it lacks is created, and the form says so) or one of the repo's open issues (searchable,
// with the branch name the bridge will create), optionally ephemeral.
import { useState, type FormEvent } from 'react';
import type { BridgeCreateWorkspaceRequest } from '../../../protocol/bridge.js';
import { identifierProblem } from '../../../protocol/identifier-rules.js';
import { BranchCombobox } from '../components/branch-combobox.js';
import { ErrorMessage } from '../components/error-message.js';
import { IssuePicker } from '../components/issue-picker.js';
import { PageTitle } from '../components/page-title.js';
import { visibleText } from '../lib/visible-text.js';
import { useAction } from '../hooks/use-action.js';
import { useRepos, useShips } from '../hooks/use-fleet.js';
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
  const [nameTouched, setNameTouched] = useState(false);
  const [from, setFrom] = useState<'branch' | 'issue'>('branch');
  const [branch, setBranch] = useState('');
  const [issue, setIssue] = useState<number | null>(null);
  const [ephemeral, setEphemeral] = useState(false);
  const action = useAction();
  const nameProblem = identifierProblem(name);
  // Checked from the first keystroke (or leaving the field), not before: an untouched empty form is not wrong yet.
  const showNameProblem = nameProblem !== null && nameTouched;
  const chosenShip = ships.data?.find((candidate) => candidate.name === ship);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNameTouched(true);
    if (nameProblem) return;
    if (from === 'issue' && issue === null) return;
    const request: BridgeCreateWorkspaceRequest =
      from === 'branch'
        ? { ship, repoName: repo, name, branch }
        : { ship, repoName: repo, name, issueNumber: issue!, ...(ephemeral ? { ephemeral: true } : {}) };
    void action.run(async () => {
      const created = await api.createWorkspace(request);
      navigate(pathOf({ page: 'workspace', repo: created.repoName, name: created.name }));
    });
  };

  return (
    <section aria-label="new workspace">
      <PageTitle>New workspace</PageTitle>
      <ErrorMessage error={ships.error ?? repos.error} />
      <form onSubmit={submit} className="stacked" aria-label="create workspace">
        <label>
          Ship
          <select name="ship" value={ship} onChange={(e) => setShip(e.target.value)} required>
            <option value="">choose a ship</option>
            {(ships.data ?? []).map((s) => (
              <option key={s.name} value={s.name} disabled={s.status !== 'online'}>
                {visibleText(s.name)}
                {s.status === 'online' ? '' : ` (${s.status}: cannot be chosen)`}
              </option>
            ))}
          </select>
        </label>
        {chosenShip && chosenShip.status !== 'online' && (
          <p className="error" role="alert">
            Ship {visibleText(chosenShip.name)} went offline: choose another.
          </p>
        )}
        <label>
          Repo
          <select
            name="repo"
            value={repo}
            onChange={(e) => {
              setRepo(e.target.value);
              setIssue(null);
            }}
            required
          >
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
          <input
            name="name"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setNameTouched(true);
            }}
            onBlur={() => setNameTouched(true)}
            required
            aria-invalid={showNameProblem}
            aria-describedby="name-problem"
            autoComplete="off"
          />
        </label>
        <p
          id="name-problem"
          className={showNameProblem ? 'error field-note' : 'field-note muted'}
          aria-live="polite"
          data-testid="name-problem"
        >
          {showNameProblem
            ? `Name: ${nameProblem}`
            : 'Any name up to 128 bytes, without / or \\ or control characters.'}
        </p>
        <fieldset>
          <legend>From</legend>
          <label className="inline">
            <input
              type="radio"
              name="from"
              value="branch"
              checked={from === 'branch'}
              onChange={() => setFrom('branch')}
            />{' '}
            a branch
          </label>
          <label className="inline">
            <input
              type="radio"
              name="from"
              value="issue"
              checked={from === 'issue'}
              onChange={() => setFrom('issue')}
            />{' '}
            an issue
          </label>
        </fieldset>
        {from === 'branch' ? (
          <BranchCombobox
            label="Branch"
            name="branch"
            repo={repo}
            value={branch}
            onChange={setBranch}
            newBranchNote="will be created from the remote's default branch (and not pushed)"
            required
          />
        ) : (
          <>
            <IssuePicker repo={repo} value={issue} onChange={setIssue} />
            <label className="inline">
              <input
                name="ephemeral"
                type="checkbox"
                checked={ephemeral}
                onChange={(e) => setEphemeral(e.target.checked)}
              />{' '}
              ephemeral (removed once its pull request is merged or closed)
            </label>
          </>
        )}
        <button type="submit" disabled={action.pending || (chosenShip !== undefined && chosenShip.status !== 'online')}>
          {action.pending ? 'Creating…' : 'Create'}
        </button>
        <ErrorMessage error={action.error} />
      </form>
    </section>
  );
}
