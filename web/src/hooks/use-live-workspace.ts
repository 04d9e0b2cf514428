// One workspace as the bridge's `/events` stream sees it, for a page that shows it: calls `onChange` with the
// entry before and after each change the stream brings (never for the first `sync`, which the page's own
// load already covers, nor for a `sync` that leaves the entry as it was), and says when the workspace is gone.
import { useEffect, useRef } from 'react';
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { keyOf } from '../state/workspace-list.js';
import { useWorkspaces } from './use-workspaces.js';

export interface LiveWorkspace {
  /** A `sync` has arrived and the workspace is not in it (or a `workspace.removed` dropped it). */
  gone: boolean;
  /** Why the stream is down, while it is. */
  problem: string | null;
}

export function useLiveWorkspace(
  repo: string,
  name: string,
  onChange: (previous: BridgeWorkspaceSummary, next: BridgeWorkspaceSummary) => void,
): LiveWorkspace {
  const { list, problem } = useWorkspaces();
  const entry = list.byKey.get(keyOf({ repoName: repo, name }));
  const seen = useRef<{ entry: BridgeWorkspaceSummary; json: string } | undefined>(undefined);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    const previous = seen.current;
    if (entry === undefined) {
      seen.current = undefined;
      return;
    }
    const json = JSON.stringify(entry);
    seen.current = { entry, json };
    if (previous !== undefined && previous.json !== json) onChangeRef.current(previous.entry, entry);
  }, [entry]);

  return { gone: list.synced && entry === undefined, problem };
}
