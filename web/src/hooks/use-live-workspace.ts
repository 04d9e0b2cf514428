// One workspace as the live stream sees it (state/live-fleet.tsx), for a page that shows it: its entry, and
// whether it is gone. Its status and diff need no reload here: the stream invalidates them on each change.
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { keyOf } from '../state/workspace-list.js';

export interface LiveWorkspace {
  entry: BridgeWorkspaceSummary | undefined;
  /** A `sync` has arrived and the workspace is not in it (or a `workspace.removed` dropped it). */
  gone: boolean;
  /** Why the stream is down, while it is. */
  problem: string | null;
}

export function useLiveWorkspace(repo: string, name: string): LiveWorkspace {
  const { list, problem } = useLiveFleet();
  const entry = list.byKey.get(keyOf({ repoName: repo, name }));
  return { entry, gone: list.synced && entry === undefined, problem };
}
