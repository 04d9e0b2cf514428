// One workspace: its status from the bridge (state, branch, diff counts, agent, ephemeral record), its diff
// as text with the stat/staged toggles, switching its branch, and the workspace actions. Live: each change
// the bridge's event stream brings for it (activation, branch, agent status, from anywhere) reloads its
// status and its diff (state/live-fleet.tsx invalidates them); a workspace removed meanwhile says so.
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { Link } from '../components/link.js';
import { Text } from '../components/text.js';
import { AgentFacts, EphemeralFacts } from '../components/workspace-facts.js';
import { WorkspaceActions } from '../components/workspace-actions.js';
import { useAction } from '../hooks/use-action.js';
import { navigate } from '../hooks/use-route.js';
import { useLiveWorkspace } from '../hooks/use-live-workspace.js';
import { useDiff, useWorkspaceStatus } from '../hooks/use-workspace.js';
import { pathOf } from '../lib/routes.js';
import { useApi } from '../state/session.js';

export function WorkspaceDetailPage({ repo, name }: { repo: string; name: string }) {
  const api = useApi();
  const status = useWorkspaceStatus(repo, name);
  const [stat, setStat] = useState(false);
  const [staged, setStaged] = useState(false);
  const diff = useDiff(repo, name, { stat, staged });
  const [branch, setBranch] = useState('');
  const switching = useAction();
  const live = useLiveWorkspace(repo, name);
  const workspace = live.gone ? undefined : status.data;

  const switchBranch = (event: FormEvent) => {
    event.preventDefault();
    void switching.run(() => api.switchBranch(repo, name, branch)).then((ok) => {
      if (ok) {
        setBranch('');
        status.reload();
        diff.reload();
      }
    });
  };

  return (
    <section aria-label="workspace">
      <p>
        <Link to={{ page: 'workspaces' }}>← Workspaces</Link>
      </p>
      <h2>
        <Text value={repo} />/<Text value={name} />
      </h2>
      <ErrorMessage error={status.error} />
      {live.gone && status.data && <p role="status">This workspace was removed.</p>}
      {live.problem && <p className="notice">{live.problem}</p>}
      {workspace && (
        <>
          <dl className="facts">
            <dt>Ship</dt>
            <dd>
              <Text value={workspace.ship} />
            </dd>
            <dt>Branch</dt>
            <dd data-testid="branch">
              <Text value={workspace.branch} />
            </dd>
            <dt>State</dt>
            <dd data-testid="state">{workspace.state}</dd>
            {workspace.state === 'active' && (
              <>
                <dt>Changes</dt>
                <dd data-testid="diff-counts">
                  +{workspace.diff.added} −{workspace.diff.removed}, {workspace.diff.commits} commit{workspace.diff.commits === 1 ? '' : 's'} ahead
                </dd>
                <dt>Agent</dt>
                <dd>
                  <AgentFacts agent={workspace.agent} />
                </dd>
              </>
            )}
            <dt>Ephemeral</dt>
            <dd>
              <EphemeralFacts ephemeral={workspace.ephemeral} />
            </dd>
          </dl>
          <WorkspaceActions
            workspace={{ repoName: repo, name, active: workspace.state === 'active' }}
            onChanged={(what) => (what === 'deleted' ? navigate(pathOf({ page: 'workspaces' })) : status.reload())}
          />
          <form onSubmit={switchBranch} className="inline-form" aria-label="switch branch">
            <label>
              Switch branch
              <input name="branch" value={branch} onChange={(e) => setBranch(e.target.value)} required />
            </label>
            <button type="submit" disabled={switching.pending}>
              Switch
            </button>
            <ErrorMessage error={switching.error} />
          </form>
        </>
      )}
      <h3>Diff</h3>
      <div className="filters">
        <label className="inline">
          <input type="checkbox" name="stat" checked={stat} onChange={(e) => setStat(e.target.checked)} /> stat
        </label>
        <label className="inline">
          <input type="checkbox" name="staged" checked={staged} onChange={(e) => setStaged(e.target.checked)} /> staged
        </label>
        <button type="button" onClick={diff.reload}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={diff.error} />
      <pre className="diff" data-testid="diff">
        {diff.data === undefined ? '' : diff.data === '' ? '(no changes)' : diff.data}
      </pre>
    </section>
  );
}
