// The bridge's memory of each agent's recent past (protocol/agent-history.ts), kept from its ships' streams
// so a GUI opened later still learns since when an agent has waited, which turns finished and which
// sessions ended on their own while no page was open (GET /workspaces/agent-history). In memory only, like
// the agents' status on the ships: a restarted bridge starts again from what the ships' syncs show.
import {
  advanceHistory,
  type AgentHistory,
  type AgentHistoryEntry,
  type WorkspaceEvent,
  type WorkspaceSummary,
  workspaceKey,
} from '../../protocol/index.js';

interface Held {
  ship: string;
  repoName: string;
  name: string;
  history: AgentHistory;
}

export class AgentHistories {
  private readonly byKey = new Map<string, Held>();

  /** A ship's full view at `at`: its workspaces advance, the ones it no longer reports are forgotten. */
  synced(ship: string, workspaces: readonly WorkspaceSummary[], at: string): void {
    const seen = new Set<string>();
    for (const workspace of workspaces) {
      const key = workspaceKey(workspace.repoName, workspace.name);
      seen.add(key);
      this.advance(ship, key, workspace, at, false);
    }
    for (const [key, held] of this.byKey) if (held.ship === ship && !seen.has(key)) this.byKey.delete(key);
  }

  /** A change the bridge relays at `at` (the time its own frame carries). */
  changed(ship: string, event: WorkspaceEvent, at: string): void {
    const key = workspaceKey(event.workspace.repoName, event.workspace.name);
    if (event.type === 'workspace.removed') this.byKey.delete(key);
    else
      this.advance(
        ship,
        key,
        event.workspace,
        at,
        event.type === 'workspace.deactivated' && event.reason === 'session-ended',
      );
  }

  shipRemoved(ship: string): void {
    for (const [key, held] of this.byKey) if (held.ship === ship) this.byKey.delete(key);
  }

  list(): AgentHistoryEntry[] {
    return [...this.byKey.values()].map(({ repoName, name, history }) => ({ repoName, name, ...history }));
  }

  private advance(ship: string, key: string, workspace: WorkspaceSummary, at: string, sessionEnded: boolean): void {
    const held = this.byKey.get(key);
    const previous = held?.ship === ship ? held.history : undefined;
    this.byKey.set(key, {
      ship,
      repoName: workspace.repoName,
      name: workspace.name,
      history: advanceHistory(previous, workspace, at, sessionEnded),
    });
  }
}
