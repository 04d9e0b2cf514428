// One workspace, the page a supervisor reviews an agent's work on (issue #28): the agent's state, question
// (with the answer box), model and harness, link and stale time at the top; then the workspace's facts
// (ship, branch, diff counts, ephemeral record), its actions and branch switch (the create form's branch
// combobox over the repo's remote branches); then the review
// (review/review-panel.tsx, loaded on first use). Live: each change the bridge's stream brings for it
// invalidates its status and diff (state/live-fleet.tsx), and the status is re-read every 10 s while the page
// is visible so a change made on disk, which raises no event, shows as soon as the diff counts move.
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import { BranchCombobox } from '../components/branch-combobox.js';
import { Composer } from '../components/composer.js';
import { ErrorMessage } from '../components/error-message.js';
import { ExternalLink } from '../components/external-link.js';
import { Link } from '../components/link.js';
import { Text } from '../components/text.js';
import { AgentFacts, EphemeralFacts } from '../components/workspace-facts.js';
import { WorkspaceActions } from '../components/workspace-actions.js';
import { useAction } from '../hooks/use-action.js';
import { useNow } from '../hooks/use-now.js';
import { navigate } from '../hooks/use-route.js';
import { useLiveWorkspace } from '../hooks/use-live-workspace.js';
import { useWorkspaceStatus } from '../hooks/use-workspace.js';
import { elapsed } from '../lib/elapsed.js';
import { pathOf } from '../lib/routes.js';
import { queryKeys } from '../state/query-client.js';
import { useApi } from '../state/session.js';
import { PageTitle } from '../components/page-title.js';

const ReviewPanel = lazy(() => import('../review/review-panel.js'));
/** How often the page re-reads the status for diff counts that moved without an event. */
const STATUS_POLL_MS = 10_000;

export function WorkspaceDetailPage({ repo, name }: { repo: string; name: string }) {
  const api = useApi();
  const queries = useQueryClient();
  const status = useWorkspaceStatus(repo, name, true, STATUS_POLL_MS);
  const [branch, setBranch] = useState('');
  const switching = useAction();
  const live = useLiveWorkspace(repo, name);
  const workspace = live.gone ? undefined : status.data;
  const now = useNow();
  const counts =
    workspace?.state === 'active' ? `${workspace.diff.added}/${workspace.diff.removed}/${workspace.diff.commits}` : '';
  const seenCounts = useRef(counts);
  useEffect(() => {
    const before = seenCounts.current;
    seenCounts.current = counts;
    if (before && counts && before !== counts)
      void queries.invalidateQueries({ queryKey: queryKeys.diffs(repo, name) });
  }, [counts, queries, repo, name]);

  const switchBranch = (event: FormEvent) => {
    event.preventDefault();
    void switching
      .run(() => api.switchBranch(repo, name, branch))
      .then((ok) => {
        if (ok) {
          setBranch('');
          void queries.invalidateQueries({ queryKey: queryKeys.workspace(repo, name) });
        }
      });
  };
  const agent = workspace?.state === 'active' ? workspace.agent : null;
  // Opened from the command palette for its branch or its agent (keyboard/commands.ts): focus that field
  // once it is there, then drop the fragment so a reload does not do it again.
  const loaded = workspace !== undefined;
  const hasAgent = agent !== null;
  useEffect(() => {
    const wanted = window.location.hash.slice(1);
    if (!loaded || (wanted !== 'switch-branch' && wanted !== 'answer')) return;
    if (wanted === 'answer' && !hasAgent) return;
    const field = document.querySelector<HTMLElement>(
      wanted === 'answer' ? 'section[aria-label="agent"] textarea' : 'form[aria-label="switch branch"] input',
    );
    if (!field) return;
    field.focus();
    window.history.replaceState(window.history.state, '', window.location.pathname);
  }, [loaded, hasAgent]);

  return (
    <section aria-label="workspace">
      <p>
        <Link to={{ page: 'workspaces' }}>← Workspaces</Link>
      </p>
      <PageTitle>
        <Text value={repo} />/<Text value={name} />
      </PageTitle>
      <ErrorMessage error={status.error} />
      {live.gone && status.data && <p role="status">This workspace was removed.</p>}
      {live.problem && <p className="notice">{live.problem}</p>}
      {workspace && (
        <>
          {agent && (
            <section aria-label="agent" className={`agent-panel agent-${agent.state}`}>
              <p className="agent-line">
                <span className={`badge agent-${agent.state}`}>{agent.state}</span>
                {agent.stale && agent.quietSince && (
                  <span className="badge stale">no activity for {elapsed(agent.quietSince, now)}</span>
                )}
                <span className="muted">
                  <Text value={agent.model} /> · <Text value={agent.harness} />
                </span>
              </p>
              <p className={agent.state === 'awaiting' ? 'question' : 'description'} data-testid="agent-description">
                <Text value={agent.description} multiline />
              </p>
              {agent.link && (
                <p>
                  <ExternalLink url={agent.link} label="the agent's link" />
                </p>
              )}
              <Composer repo={repo} name={name} label={agent.state === 'awaiting' ? 'Answer' : 'Message the agent'} />
            </section>
          )}
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
                  +{workspace.diff.added} −{workspace.diff.removed}, {workspace.diff.commits} commit
                  {workspace.diff.commits === 1 ? '' : 's'} ahead
                </dd>
                {!workspace.agent && (
                  <>
                    <dt>Agent</dt>
                    <dd>
                      <AgentFacts agent={null} />
                    </dd>
                  </>
                )}
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
            <BranchCombobox
              label="Switch branch"
              name="branch"
              repo={repo}
              value={branch}
              onChange={setBranch}
              newBranchNote="will be created from the workspace's current commit (unless the workspace already has it locally)"
              required
            />
            <button type="submit" disabled={switching.pending}>
              Switch
            </button>
            <ErrorMessage error={switching.error} />
          </form>
        </>
      )}
      <h2>Review</h2>
      {workspace?.state === 'active' ? (
        <Suspense fallback={<p className="muted">Loading the diff…</p>}>
          <ReviewPanel repo={repo} name={name} />
        </Suspense>
      ) : (
        workspace && <p className="muted">Activate the workspace to review its changes.</p>
      )}
    </section>
  );
}
