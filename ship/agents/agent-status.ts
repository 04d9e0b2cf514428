// In-memory agent status per workspace (never persisted: dropped on deactivate, delete and restart).
// Initialization fixes model, provider and harness; updates change only state and description. Each entry
// remembers when the agent last reported (injected clock), the baseline of the ship's staleness check
// (agent-staleness.ts); `stale` is the ship's own observation, dropped by the next report.
import type { AgentInitRequest, AgentStatus, UpdateAgentStatusRequest } from '../../protocol/index.js';

/** When the agent reported (clock milliseconds), and which report it was (increasing, per store). */
export interface Report {
  at: number;
  sequence: number;
}

export class AgentStatusStore {
  private readonly statuses = new Map<string, AgentStatus>();
  private readonly reported = new Map<string, Report>();
  private sequence = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  get(key: string): AgentStatus | null {
    return this.statuses.get(key) ?? null;
  }

  /** The agent's latest initialization or update of this status, or null without one. */
  lastReport(key: string): Report | null {
    return this.reported.get(key) ?? null;
  }

  private report(key: string): void {
    this.reported.set(key, { at: this.clock(), sequence: ++this.sequence });
  }

  init(key: string, request: AgentInitRequest, now = new Date()): AgentStatus {
    const status: AgentStatus = {
      state: 'idle',
      description: `Created session at ${now.toISOString()}`,
      model: request.model,
      provider: request.provider,
      harness: request.harness,
    };
    this.statuses.set(key, status);
    this.report(key);
    return status;
  }

  /** Applies an update; null when the agent was never initialized. */
  update(key: string, request: UpdateAgentStatusRequest): AgentStatus | null {
    const current = this.statuses.get(key);
    if (!current) return null;
    // The link belongs to the update that carried it: an update without one drops the previous link. A
    // report is fresh news: it drops the ship's `stale` mark too.
    const { link: _previousLink, stale: _stale, quietSince: _quietSince, ...kept } = current;
    const next: AgentStatus = {
      ...kept,
      state: request.state,
      description: request.description,
      ...(request.link ? { link: request.link } : {}),
    };
    this.statuses.set(key, next);
    this.report(key);
    return next;
  }

  /**
   * Sets or clears the ship's `stale` mark (with `quietSince`, the last sign of life it knew of). `sequence` names the report the decision was made on: when the
   * agent reported since, the decision is out of date and nothing changes. The new status when it changed,
   * else null.
   */
  setStale(key: string, stale: boolean, sequence: number, quietSince?: Date): AgentStatus | null {
    const current = this.statuses.get(key);
    if (!current || this.reported.get(key)?.sequence !== sequence || (current.stale === true) === stale) return null;
    const { stale: _previous, quietSince: _since, ...rest } = current;
    const next: AgentStatus = stale
      ? { ...rest, stale: true, ...(quietSince ? { quietSince: quietSince.toISOString() } : {}) }
      : rest;
    this.statuses.set(key, next);
    return next;
  }

  clear(key: string): void {
    this.statuses.delete(key);
    this.reported.delete(key);
  }
}
