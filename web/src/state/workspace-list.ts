// The live workspace list as a pure reducer over the bridge's `/events` stream (spec "Bridge stream"): a
// `sync` replaces everything (the stream's first frame, every reconnect, and every fleet-wide change), each
// `workspace.*` event upserts its workspace, `workspace.removed` drops it. Plus the list's filters. No I/O:
// hooks/use-workspaces.ts feeds it frames.
import type { BridgeWorkspaceEvent, BridgeWorkspaceSummary } from '../../../protocol/bridge.js';

export interface WorkspaceList {
  /** By `repo/name` key, in the order the bridge gave them. */
  readonly byKey: ReadonlyMap<string, BridgeWorkspaceSummary>;
  /** Whether a `sync` has been applied since the list was created. */
  readonly synced: boolean;
}

export const EMPTY_LIST: WorkspaceList = { byKey: new Map(), synced: false };

export const keyOf = (workspace: { repoName: string; name: string }) => `${workspace.repoName}/${workspace.name}`;

export function applyEvent(list: WorkspaceList, event: BridgeWorkspaceEvent): WorkspaceList {
  if (event.type === 'sync') {
    return { byKey: new Map(event.workspaces.map((workspace) => [keyOf(workspace), workspace])), synced: true };
  }
  const byKey = new Map(list.byKey);
  if (event.type === 'workspace.removed') byKey.delete(keyOf(event.workspace));
  else byKey.set(keyOf(event.workspace), event.workspace);
  return { byKey, synced: list.synced };
}

export type Activity = 'all' | 'active' | 'inactive';

export interface ListFilter {
  activity: Activity;
  /** Case-insensitive substring of repo, name, ship, branch or agent description. */
  text: string;
}

export function filterWorkspaces(list: WorkspaceList, filter: ListFilter): BridgeWorkspaceSummary[] {
  const needle = filter.text.trim().toLowerCase();
  return [...list.byKey.values()]
    .filter((workspace) => filter.activity === 'all' || workspace.active === (filter.activity === 'active'))
    .filter(
      (workspace) =>
        needle === '' ||
        [workspace.repoName, workspace.name, workspace.ship, workspace.branch, workspace.agent?.description ?? ''].some(
          (field) => field.toLowerCase().includes(needle),
        ),
    )
    .sort((a, b) => (a.repoName === b.repoName ? compare(a.name, b.name) : compare(a.repoName, b.repoName)));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A frame from the socket, or null when it is not a bridge event (ignored, never thrown). */
export function parseEvent(data: unknown): BridgeWorkspaceEvent | null {
  if (typeof data !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const frame = value as { type?: unknown; workspaces?: unknown; workspace?: unknown };
  if (frame.type === 'sync') return Array.isArray(frame.workspaces) ? (frame as BridgeWorkspaceEvent) : null;
  if (
    typeof frame.type === 'string' &&
    frame.type.startsWith('workspace.') &&
    frame.workspace &&
    typeof frame.workspace === 'object'
  ) {
    return frame as BridgeWorkspaceEvent;
  }
  return null;
}
