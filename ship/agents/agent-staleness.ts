// Ship-side truth about a working agent (issue #16): a planning, building or verifying status with no pane
// output for the stale time gains `stale: true`; the next output or report clears it. Pure: the adapter
// (agent-activity-watcher.ts) hands in the statuses, tmux's last-activity marks and the clock's now.
import type { AgentState } from '../../protocol/index.js';

/** States an agent claims to be working in: only these go stale (idle and awaiting wait by design). */
export const WORKING_STATES: ReadonlySet<AgentState> = new Set<AgentState>(['planning', 'building', 'verifying']);

/** Default stale time: 10 minutes without pane output. */
export const DEFAULT_AGENT_STALE_MS = 10 * 60_000;

export interface WatchedStatus {
  key: string;
  state: AgentState;
  stale: boolean;
  /** When the agent last reported (clock milliseconds): a report counts as a sign of life. */
  reportedAt: number;
}

export interface StalenessDecision {
  /** Keys to mark stale, each with its last sign of life (report or output, clock ms). */
  stale: { key: string; since: number }[];
  /** Keys whose stale mark goes. */
  fresh: string[];
}

/** Whether any status needs tmux's activity marks at all (the adapter skips the tmux call otherwise). */
export function needsActivity(statuses: readonly Pick<WatchedStatus, 'state' | 'stale'>[]): boolean {
  return statuses.some((status) => WORKING_STATES.has(status.state) || status.stale);
}

export class AgentStaleness {
  /** Per key: the activity mark last seen, and when output was last known to happen (clock ms). */
  private readonly seen = new Map<string, { mark: number; outputAt: number }>();

  constructor(readonly staleMs: number = DEFAULT_AGENT_STALE_MS) {}

  /**
   * `activity`: per key, tmux's last-activity time of the session's window in whole seconds (tmux's
   * `window_activity`), absent when unknown. A mark that changed since the last call means output happened
   * in between: it counts as output now (tmux's marks are whole seconds; the poll is the finer clock). A
   * mark seen first counts as output at that second.
   */
  decide(statuses: readonly WatchedStatus[], activity: ReadonlyMap<string, number>, now: number): StalenessDecision {
    const decision: StalenessDecision = { stale: [], fresh: [] };
    const watched = new Set<string>();
    for (const status of statuses) {
      const working = WORKING_STATES.has(status.state);
      let outputAt = -Infinity;
      const mark = activity.get(status.key);
      if (working && mark !== undefined) {
        watched.add(status.key);
        const previous = this.seen.get(status.key);
        outputAt = !previous ? mark * 1000 : previous.mark !== mark ? now : previous.outputAt;
        this.seen.set(status.key, { mark, outputAt });
      }
      const since = Math.max(status.reportedAt, outputAt);
      const stale = working && now - since >= this.staleMs;
      if (stale && !status.stale) decision.stale.push({ key: status.key, since });
      if (!stale && status.stale) decision.fresh.push(status.key);
    }
    // Keys no longer watched start afresh when they are again.
    for (const key of this.seen.keys()) if (!watched.has(key)) this.seen.delete(key);
    return decision;
  }
}

/** The stale time: the ship option, else SVC_AGENT_STALE_MS (milliseconds, > 0), else 10 minutes. */
export function agentStaleMs(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (option !== undefined && Number.isFinite(option) && option > 0) return option;
  const raw = env.SVC_AGENT_STALE_MS?.trim();
  const parsed = raw ? Number(raw) : NaN;
  return Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_AGENT_STALE_MS;
}

/** How often the watcher polls tmux: every 30 s, or a third of a shorter stale time (at least 50 ms). */
export function agentActivityPollMs(staleMs: number): number {
  return Math.min(30_000, Math.max(50, Math.floor(staleMs / 3)));
}
