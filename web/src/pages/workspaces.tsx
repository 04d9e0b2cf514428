// The workspace list, live from the bridge's event stream (state/live-fleet.tsx): the fleet overview above
// it, the active/inactive and text filters, and the per-workspace actions. Each row is a memoized component:
// an event replaces only its own workspace's object (state/workspace-list.ts), so at 100 events a second on
// 1,000 workspaces only the changed row renders again (bench/RESULTS.md, "GUI (issue #28)").
import { memo, useMemo, useState } from 'react';
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { FleetOverview } from '../components/fleet-overview.js';
import { Link } from '../components/link.js';
import { Text } from '../components/text.js';
import { AgentFacts, EphemeralFacts } from '../components/workspace-facts.js';
import { WorkspaceActions } from '../components/workspace-actions.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { filterWorkspaces, keyOf, type Activity } from '../state/workspace-list.js';

export function WorkspacesPage() {
  const { list, connected, problem } = useLiveFleet();
  const [activity, setActivity] = useState<Activity>('all');
  const [text, setText] = useState('');
  const shown = useMemo(() => filterWorkspaces(list, { activity, text }), [list, activity, text]);
  return (
    <section aria-label="workspaces">
      <header className="page-header">
        <h2>Workspaces</h2>
        <Link to={{ page: 'new-workspace' }} className="button">
          New workspace
        </Link>
      </header>
      <FleetOverview list={list} />
      <div className="filters">
        <label>
          Show
          <select name="activity" value={activity} onChange={(e) => setActivity(e.target.value as Activity)}>
            <option value="all">all</option>
            <option value="active">active</option>
            <option value="inactive">inactive</option>
          </select>
        </label>
        <label>
          Filter
          <input name="filter" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="repo, name, ship, branch, agent" />
        </label>
        <span className={connected ? 'live on' : 'live off'} data-testid="live">
          {connected ? 'live' : 'offline'}
        </span>
      </div>
      {problem && <p className="notice">{problem}</p>}
      {!list.synced ? (
        <p className="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p className="muted">No workspaces{list.byKey.size > 0 ? ' match the filter' : ''}.</p>
      ) : (
        <table className="workspaces">
          <thead>
            <tr>
              <th>Workspace</th>
              <th>Ship</th>
              <th>Branch</th>
              <th>State</th>
              <th>Agent</th>
              <th>Ephemeral</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((workspace) => (
              <WorkspaceRow key={keyOf(workspace)} workspace={workspace} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One row; it renders again only when its workspace's object is replaced (memo compares props by identity). */
const WorkspaceRow = memo(function WorkspaceRow({ workspace }: { workspace: BridgeWorkspaceSummary }) {
  return (
    <tr data-key={keyOf(workspace)}>
      <td className="workspace-name">
        <Link to={{ page: 'workspace', repo: workspace.repoName, name: workspace.name }}>
          <Text value={workspace.repoName} />/<Text value={workspace.name} />
        </Link>
      </td>
      <td>
        <Text value={workspace.ship} />
      </td>
      <td>
        <Text value={workspace.branch} />
      </td>
      <td className="state">{workspace.active ? 'active' : 'inactive'}</td>
      <td>
        <AgentFacts agent={workspace.agent} />
      </td>
      <td>
        <EphemeralFacts ephemeral={workspace.ephemeral} />
      </td>
      <td>
        <WorkspaceActions workspace={workspace} />
      </td>
    </tr>
  );
});
