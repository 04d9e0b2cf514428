// The workspace list, live from the bridge's event stream (state/live-fleet.tsx): the fleet overview above
// it, the active/inactive and text filters, and the per-workspace actions. Each row is a memoized component:
// an event replaces only its own workspace's object (state/workspace-list.ts), so at 100 events a second on
// 1,000 workspaces only the changed row renders again (bench/RESULTS.md, "GUI (issue #28)").
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useMemo, useRef, useState } from 'react';
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { FleetOverview } from '../components/fleet-overview.js';
import { Link } from '../components/link.js';
import { LiveIndicator } from '../components/live-indicator.js';
import { Text } from '../components/text.js';
import { AgentFacts, EphemeralFacts } from '../components/workspace-facts.js';
import { WorkspaceActions } from '../components/workspace-actions.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { filterWorkspaces, keyOf, type Activity } from '../state/workspace-list.js';
import { PageTitle } from '../components/page-title.js';

export function WorkspacesPage() {
  const { list, problem } = useLiveFleet();
  const [activity, setActivity] = useState<Activity>('all');
  const [text, setText] = useState('');
  const shown = useMemo(() => filterWorkspaces(list, { activity, text }), [list, activity, text]);
  return (
    <section aria-label="workspaces">
      <header className="page-header">
        <PageTitle>Workspaces</PageTitle>
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
          <input
            name="filter"
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="repo, name, ship, branch, agent"
          />
        </label>
        <LiveIndicator />
      </div>
      {problem && <p className="notice">{problem}</p>}
      {!list.synced ? (
        <p className="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p className="muted">No workspaces{list.byKey.size > 0 ? ' match the filter' : ''}.</p>
      ) : (
        <table className="workspaces" data-rows={shown.length}>
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
          <VisibleRows shown={shown} />
        </table>
      )}
    </section>
  );
}

/** Rows a window scrolled down past, or not yet reached, are never rendered beyond this many. */
const OVERSCAN = 12;
const ESTIMATED_ROW_PX = 42;

/**
 * Only the rows in (and near) the window's view are in the page, between two spacer rows that keep the
 * scroll height of them all (TanStack Virtual): with 1,000 workspaces a change re-lays out a screenful, not
 * the whole table (bench/RESULTS.md, "GUI"). Each row is measured once rendered, so a row that wraps (a long
 * description, the phone's card layout) keeps its own height.
 */
function VisibleRows({ shown }: { shown: BridgeWorkspaceSummary[] }) {
  const body = useRef<HTMLTableSectionElement>(null);
  const virtualizer = useWindowVirtualizer({
    count: shown.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: OVERSCAN,
    scrollMargin: body.current?.offsetTop ?? 0,
    getItemKey: (index) => keyOf(shown[index]!),
  });
  const items = virtualizer.getVirtualItems();
  const before = items.length > 0 ? items[0]!.start - virtualizer.options.scrollMargin : 0;
  const after =
    items.length > 0
      ? virtualizer.getTotalSize() - (items[items.length - 1]!.end - virtualizer.options.scrollMargin)
      : 0;
  return (
    <tbody ref={body}>
      {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: an empty spacer row, which nothing can focus */}
      {before > 0 && <tr aria-hidden="true" className="spacer" style={{ height: before }} />}
      {items.map((item) => (
        <WorkspaceRow
          key={item.key}
          workspace={shown[item.index]!}
          index={item.index}
          measure={virtualizer.measureElement}
        />
      ))}
      {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: an empty spacer row, which nothing can focus */}
      {after > 0 && <tr aria-hidden="true" className="spacer" style={{ height: after }} />}
    </tbody>
  );
}

/**
 * One row; it renders again only when its workspace's object is replaced or it moves (memo compares props by
 * identity). `measure` tells the virtualizer its height.
 */
const WorkspaceRow = memo(function WorkspaceRow({
  workspace,
  index,
  measure,
}: {
  workspace: BridgeWorkspaceSummary;
  index: number;
  measure: (row: HTMLTableRowElement | null) => void;
}) {
  return (
    <tr data-key={keyOf(workspace)} data-index={index} ref={measure}>
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
