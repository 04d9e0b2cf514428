// The fleet at a glance (issue #28), pure: ships online and offline, active sessions, agents per state, and
// the repo × ship grid (workspaces, active ones, questions waiting in each cell), from the live list and the
// bridge's ship list.
import { AGENT_STATES, type AgentState } from '../../../protocol/agent.js';
import type { ShipInfo } from '../../../protocol/bridge.js';
import type { WorkspaceList } from './workspace-list.js';

export interface GridCell {
  total: number;
  active: number;
  awaiting: number;
}

export interface FleetOverview {
  shipsOnline: number;
  shipsOffline: number;
  workspaces: number;
  activeSessions: number;
  /** Every state, in the spec's order, with its count (zero included: the legend shows them all). */
  agents: { state: AgentState; count: number }[];
  /** Active workspaces with no agent status. */
  noAgent: number;
  repos: string[];
  ships: string[];
  cell(repo: string, ship: string): GridCell | undefined;
}

export function fleetOverview(list: WorkspaceList, ships: readonly ShipInfo[]): FleetOverview {
  const counts = new Map<AgentState, number>(AGENT_STATES.map((state) => [state, 0]));
  const cells = new Map<string, GridCell>();
  const repos = new Set<string>();
  const shipNames = new Set(ships.map((ship) => ship.name));
  let activeSessions = 0;
  let noAgent = 0;
  for (const workspace of list.byKey.values()) {
    repos.add(workspace.repoName);
    shipNames.add(workspace.ship);
    const key = `${workspace.repoName}\u0000${workspace.ship}`;
    const cell = cells.get(key) ?? { total: 0, active: 0, awaiting: 0 };
    cell.total++;
    if (workspace.active) {
      activeSessions++;
      cell.active++;
    }
    if (workspace.agent) counts.set(workspace.agent.state, counts.get(workspace.agent.state)! + 1);
    else if (workspace.active) noAgent++;
    if (workspace.agent?.state === 'awaiting') cell.awaiting++;
    cells.set(key, cell);
  }
  const online = ships.filter((ship) => ship.status === 'online').length;
  return {
    shipsOnline: online,
    shipsOffline: ships.length - online,
    workspaces: list.byKey.size,
    activeSessions,
    agents: AGENT_STATES.map((state) => ({ state, count: counts.get(state)! })),
    noAgent,
    repos: [...repos].sort(),
    ships: [...shipNames].sort(),
    cell: (repo, ship) => cells.get(`${repo}\u0000${ship}`),
  };
}
