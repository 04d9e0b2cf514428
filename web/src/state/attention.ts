// Who needs a human (the inbox, issue #28), as pure functions of the live stream: the agent history each
// frame updates (when each agent entered its state, whether it went idle after working, whether its session
// ended on its own), and the attention entries read from the list and that history, most urgent first.
// No I/O: state/live-fleet.tsx feeds it frames.
import type { AgentState } from '../../../protocol/agent.js';
import type { BridgeWorkspaceEvent, BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { keyOf, type WorkspaceList } from './workspace-list.js';

export interface AgentHistory {
  /** The agent's state (null: no agent) as last seen. */
  readonly state: AgentState | null;
  /**
   * When it entered that state: the frame's `at` that showed the change, or the `sync` that first showed it
   * (then it has waited at least that long: the bridge does not say since when).
   */
  readonly since: string;
  /** Whether `since` is a change the stream showed, not the first sight of the workspace. */
  readonly seenChange: boolean;
  /** It went idle from planning, building or verifying (a finished turn), and is idle still. */
  readonly finishedWork: boolean;
  /** Its session ended on its own (shell exit, not a deactivate) and it has not been activated since. */
  readonly sessionEnded: boolean;
}

export type AgentHistories = ReadonlyMap<string, AgentHistory>;

const WORKING: ReadonlySet<AgentState | null> = new Set(['planning', 'building', 'verifying']);

function advance(previous: AgentHistory | undefined, workspace: BridgeWorkspaceSummary, at: string): AgentHistory {
  const state = workspace.agent?.state ?? null;
  if (!previous) return { state, since: at, seenChange: false, finishedWork: false, sessionEnded: false };
  const sessionEnded = previous.sessionEnded && !workspace.active;
  if (previous.state === state) return sessionEnded === previous.sessionEnded ? previous : { ...previous, sessionEnded };
  return { state, since: at, seenChange: true, finishedWork: state === 'idle' && WORKING.has(previous.state), sessionEnded };
}

/** The histories after `event`. */
export function trackHistory(histories: AgentHistories, event: BridgeWorkspaceEvent): AgentHistories {
  if (event.type === 'sync') {
    const next = new Map<string, AgentHistory>();
    for (const workspace of event.workspaces) next.set(keyOf(workspace), advance(histories.get(keyOf(workspace)), workspace, event.at));
    return next;
  }
  const key = keyOf(event.workspace);
  const next = new Map(histories);
  if (event.type === 'workspace.removed') {
    next.delete(key);
    return next;
  }
  const advanced = advance(histories.get(key), event.workspace, event.at);
  next.set(key, event.type === 'workspace.deactivated' && event.reason === 'session-ended' ? { ...advanced, since: event.at, seenChange: true, sessionEnded: true } : advanced);
  return next;
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

export function attentionEntries(list: WorkspaceList, histories: AgentHistories, dismissals: Dismissals = new Map()): AttentionEntry[] {
  const entries: AttentionEntry[] = [];
  for (const [key, workspace] of list.byKey) {
    const history = histories.get(key);
    const reason = reasonOf(workspace, history);
    if (!reason) continue;
    const since = reason === 'stale' && workspace.agent?.quietSince ? workspace.agent.quietSince : (history?.since ?? '');
    if (DISMISSIBLE.has(reason) && dismissals.get(key) === since) continue;
    entries.push({ key, workspace, reason, since, atLeast: reason !== 'stale' && !history?.seenChange });
  }
  return entries.sort((a, b) => URGENCY.indexOf(a.reason) - URGENCY.indexOf(b.reason) || compare(a.since, b.since) || compare(a.key, b.key));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The keys whose agent has just started awaiting in this frame (a `sync` never counts: nothing changed live). */
export function newlyAwaiting(before: WorkspaceList, event: BridgeWorkspaceEvent): string[] {
  if (event.type === 'sync' || event.type === 'workspace.removed' || event.workspace.agent?.state !== 'awaiting') return [];
  const key = keyOf(event.workspace);
  return before.byKey.get(key)?.agent?.state === 'awaiting' ? [] : [key];
}
