// In-memory agent status per workspace (never persisted: dropped on deactivate, delete and restart).
// Initialization fixes model, provider and harness; updates change only state and description.
import type { AgentInitRequest, AgentStatus, UpdateAgentStatusRequest } from '../../protocol/index.js';

export class AgentStatusStore {
  private readonly statuses = new Map<string, AgentStatus>();

  get(key: string): AgentStatus | null {
    return this.statuses.get(key) ?? null;
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
    return status;
  }

  /** Applies an update; null when the agent was never initialized. */
  update(key: string, request: UpdateAgentStatusRequest): AgentStatus | null {
    const current = this.statuses.get(key);
    if (!current) return null;
    const { link: _previousLink, ...kept } = current;
    // The link belongs to the update that carried it: an update without one drops the previous link.
    const next: AgentStatus = { ...kept, state: request.state, description: request.description, ...(request.link ? { link: request.link } : {}) };
    this.statuses.set(key, next);
    return next;
  }

  clear(key: string): void {
    this.statuses.delete(key);
  }
}
