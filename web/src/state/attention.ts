// Who needs a human (the inbox, issue #28), as pure functions of the live stream: the agent history each
// frame updates (protocol/agent-history.ts: when each agent entered its state, whether it went idle after
// working, whether its session ended on its own), what the bridge remembers of it from before this page
// connected, and the attention entries read from the list and that history, most urgent first. No I/O:
// state/live-fleet.tsx feeds it frames and the bridge's GET /workspaces/agent-history.
import { advanceHistory, type AgentHistory, type AgentHistoryEntry } from '../../../protocol/agent-history.js';
import type { BridgeWorkspaceEvent, BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { keyOf, type WorkspaceList } from './workspace-list.js';

export type AgentHistories = ReadonlyMap<string, AgentHistory>;

/** The histories after `event`. */
export function trackHistory(histories: AgentHistories, event: BridgeWorkspaceEvent): AgentHistories {
  if (event.type === 'sync') {
    const next = new Map<string, AgentHistory>();
    for (const workspace of event.workspaces)
      next.set(keyOf(workspace), advanceHistory(histories.get(keyOf(workspace)), workspace, event.at));
    return next;
  }
  const key = keyOf(event.workspace);
  const next = new Map(histories);
  if (event.type === 'workspace.removed') {
    next.delete(key);
    return next;
  }
  next.set(
    key,
    advanceHistory(
      histories.get(key),
      event.workspace,
      event.at,
      event.type === 'workspace.deactivated' && event.reason === 'session-ended',
    ),
  );
  return next;
}

/**
 * The bridge's histories (GET /workspaces/agent-history) where this page has only its first sight of an
 * agent in the same state: the bridge saw since when, and whether the turn finished or the session ended
 * before the page connected. What the page saw change itself is kept.
 */
export function withBridgeHistory(histories: AgentHistories, entries: readonly AgentHistoryEntry[]): AgentHistories {
  let next: Map<string, AgentHistory> | null = null;
  for (const { repoName, name, ...remembered } of entries) {
    const key = keyOf({ repoName, name });
    const local = histories.get(key);
    if (!local || local.seenChange || local.state !== remembered.state) continue;
    next ??= new Map(histories);
    next.set(key, remembered);
  }
  return next ?? histories;
}

export type AttentionReason = 'awaiting' | 'stale' | 'exited' | 'finished';

/** Most urgent first: a question blocks an agent, a stale one may be stuck, the others are done. */
const URGENCY: readonly AttentionReason[] = ['awaiting', 'stale', 'exited', 'finished'];

export interface AttentionEntry {
  key: string;
  workspace: BridgeWorkspaceSummary;
  reason: AttentionReason;
  /** Since when it has needed someone (ISO 8601). */
  since: string;
  /** Whether `since` is only a lower bound (first seen in a `sync`). */
  atLeast: boolean;
}

/** Entries someone dismissed: by key, the `since` they dismissed (a later occurrence comes back). */
export type Dismissals = ReadonlyMap<string, string>;

/** Only these may be dismissed: the others leave when the agent's state changes. */
export const DISMISSIBLE: ReadonlySet<AttentionReason> = new Set(['exited', 'finished']);

function reasonOf(workspace: BridgeWorkspaceSummary, history: AgentHistory | undefined): AttentionReason | null {
  const agent = workspace.agent;
  if (agent?.state === 'awaiting') return 'awaiting';
  if (agent?.stale) return 'stale';
  if (!workspace.active && history?.sessionEnded) return 'exited';
  if (agent?.state === 'idle' && history?.finishedWork) return 'finished';
  return null;
}

export function attentionEntries(
  list: WorkspaceList,
  histories: AgentHistories,
  dismissals: Dismissals = new Map(),
): AttentionEntry[] {
  const entries: AttentionEntry[] = [];
  for (const [key, workspace] of list.byKey) {
    const history = histories.get(key);
    const reason = reasonOf(workspace, history);
    if (!reason) continue;
    const since =
      reason === 'stale' && workspace.agent?.quietSince ? workspace.agent.quietSince : (history?.since ?? '');
    if (DISMISSIBLE.has(reason) && dismissals.get(key) === since) continue;
    entries.push({ key, workspace, reason, since, atLeast: reason !== 'stale' && !history?.seenChange });
  }
  return entries.sort(
    (a, b) =>
      URGENCY.indexOf(a.reason) - URGENCY.indexOf(b.reason) || compare(a.since, b.since) || compare(a.key, b.key),
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The keys whose agent has just started awaiting in this frame (a `sync` never counts: nothing changed live). */
export function newlyAwaiting(before: WorkspaceList, event: BridgeWorkspaceEvent): string[] {
  if (event.type === 'sync' || event.type === 'workspace.removed' || event.workspace.agent?.state !== 'awaiting')
    return [];
  const key = keyOf(event.workspace);
  return before.byKey.get(key)?.agent?.state === 'awaiting' ? [] : [key];
}
