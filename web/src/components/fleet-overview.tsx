// The fleet overview above the workspace list (issue #28): ships online/offline, active sessions, agents per
// state (each state's colour, which is also the list's legend), and on wide screens the repo × ship grid.
import { useMemo } from 'react';
import { useShips } from '../hooks/use-fleet.js';
import { fleetOverview } from '../state/fleet-overview.js';
import type { WorkspaceList } from '../state/workspace-list.js';
import { Text } from './text.js';

export function FleetOverview({ list }: { list: WorkspaceList }) {
  const ships = useShips();
  const overview = useMemo(() => fleetOverview(list, ships.data ?? []), [list, ships.data]);
  return (
    <section aria-label="fleet overview" className="fleet-overview">
      <dl className="overview-numbers">
        <div>
          <dt>Ships</dt>
          <dd data-testid="ships-online">
            <span className="status online">{overview.shipsOnline} online</span>
            {overview.shipsOffline > 0 && <span className="status offline">, {overview.shipsOffline} offline</span>}
          </dd>
        </div>
        <div>
          <dt>Sessions</dt>
          <dd data-testid="active-sessions">
            {overview.activeSessions} active of {overview.workspaces}
          </dd>
        </div>
        <div>
          <dt>Agents</dt>
          <dd className="legend" data-testid="agents-per-state">
            {overview.agents.map(({ state, count }) => (
              <span
                key={state}
                className={`badge agent-${state}${count === 0 ? ' zero' : ''}`}
                title={`${count} ${state}`}
              >
                {state} {count}
              </span>
            ))}
            {overview.noAgent > 0 && <span className="muted"> · {overview.noAgent} active without an agent</span>}
          </dd>
        </div>
      </dl>
      {overview.repos.length > 0 && overview.ships.length > 0 && (
        <table className="fleet-grid" aria-label="workspaces per repo and ship">
          <thead>
            <tr>
              <th>Repo</th>
              {overview.ships.map((ship) => (
                <th key={ship}>
                  <Text value={ship} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {overview.repos.map((repo) => (
              <tr key={repo}>
                <th>
                  <Text value={repo} />
                </th>
                {overview.ships.map((ship) => {
                  const cell = overview.cell(repo, ship);
                  return (
                    <td key={ship} className={cell?.awaiting ? 'has-awaiting' : undefined}>
                      {cell ? `${cell.active}/${cell.total}` : ''}
                      {cell?.awaiting ? <span className="badge agent-awaiting">{cell.awaiting} asks</span> : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
