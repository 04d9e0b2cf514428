// What an agent has done lately, as the bridge's stream showed it (docs/DECISIONS.md "The GUI as a cockpit"):
// since when it has been in its state, whether it went idle after working (a finished turn), whether its
// session ended on its own. The one rule both the bridge (GET /workspaces/agent-history) and the GUI's inbox
// advance it by, and the shape of the bridge's answer.
import { Type, type Static } from 'typebox';
import { AgentState, type AgentState as AgentStateName } from './agent.js';
import { Identifier } from './identifier.js';

export const AgentHistory = Type.Object({
  /** The agent's state (null: no agent) as last seen. */
  state: Type.Union([AgentState, Type.Null()]),
  /** When it entered that state (ISO 8601): the change's `at`, or when it was first seen. */
  since: Type.String(),
  /** Whether `since` is a change the stream showed, not the first sight of the workspace. */
  seenChange: Type.Boolean(),
  /** It went idle from planning, building or verifying and is idle still. */
  finishedWork: Type.Boolean(),
  /** Its session ended on its own (not a deactivate) and it has not been activated since. */
  sessionEnded: Type.Boolean(),
});
export type AgentHistory = Static<typeof AgentHistory>;

export const AgentHistoryEntry = Type.Object({ repoName: Identifier, name: Identifier, ...AgentHistory.properties });
export type AgentHistoryEntry = Static<typeof AgentHistoryEntry>;

/** GET /workspaces/agent-history: every workspace the bridge holds a history for. */
export const AgentHistoryList = Type.Object({ workspaces: Type.Array(AgentHistoryEntry) });
export type AgentHistoryList = Static<typeof AgentHistoryList>;

const WORKING: ReadonlySet<AgentStateName | null> = new Set(['planning', 'building', 'verifying']);

/** What a workspace looks like to the history: its agent's state and whether it is active. */
export interface HistorySubject {
  active: boolean;
  agent: { state: AgentStateName } | null;
}

/** The history after `workspace` was seen at `at`; `sessionEnded` when the frame said its session ended. */
export function advanceHistory(
  previous: AgentHistory | undefined,
  workspace: HistorySubject,
  at: string,
  sessionEnded = false,
): AgentHistory {
  const state = workspace.agent?.state ?? null;
  let next: AgentHistory;
  if (!previous) next = { state, since: at, seenChange: false, finishedWork: false, sessionEnded: false };
  else if (previous.state === state) next = { ...previous, sessionEnded: previous.sessionEnded && !workspace.active };
  else
    next = {
      state,
      since: at,
      seenChange: true,
      finishedWork: state === 'idle' && WORKING.has(previous.state),
      sessionEnded: previous.sessionEnded && !workspace.active,
    };
  if (sessionEnded) next = { ...next, since: at, seenChange: true, sessionEnded: true };
  return previous && sameHistory(previous, next) ? previous : next;
}

function sameHistory(a: AgentHistory, b: AgentHistory): boolean {
  return (
    a.state === b.state &&
    a.since === b.since &&
    a.seenChange === b.seenChange &&
    a.finishedWork === b.finishedWork &&
    a.sessionEnded === b.sessionEnded
  );
}
