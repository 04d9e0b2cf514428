// The adapter of agent-staleness.ts: on an unref'd timer, while some agent status is planning, building or
// verifying (or stale), one `tmux list-windows -a` reads every session's last-activity second (tmux updates
// window_activity on pane output, monitor-activity or not; checked on tmux 3.3a), the pure core decides, and
// each status that gains or loses `stale` emits exactly one `workspace.agent_status_changed`. No process
// per session, no tmux call at all while no agent works.
import { workspaceKey, type WorkspaceSummary } from '../../protocol/index.js';
import type { EventBus } from '../events/event-bus.js';
import { sessionName } from '../sessions/session-names.js';
import type { Tmux } from '../sessions/tmux.js';
import type { AgentStatusStore } from './agent-status.js';
import { AgentStaleness, agentActivityPollMs, needsActivity, type WatchedStatus } from './agent-staleness.js';

export interface AgentActivityWatcherDeps {
  agents: AgentStatusStore;
  /** The active workspaces' summaries (WorkspaceService.list(true)). */
  activeWorkspaces: () => Promise<WorkspaceSummary[]>;
  tmux: Pick<Tmux, 'run'>;
  events: Pick<EventBus, 'publish'>;
  staleMs: number;
  pollMs?: number;
  clock?: () => number;
  onError?: (error: unknown) => void;
}

/** Last-activity second per tmux session, from one listing (the latest window of each). */
export function parseWindowActivity(stdout: string): Map<string, number> {
  const marks = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const session = line.slice(0, space);
    const mark = Number(line.slice(space + 1));
    if (Number.isFinite(mark)) marks.set(session, Math.max(mark, marks.get(session) ?? -Infinity));
  }
  return marks;
}

export class AgentActivityWatcher {
  private readonly core: AgentStaleness;
  private readonly clock: () => number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: AgentActivityWatcherDeps) {
    this.core = new AgentStaleness(deps.staleMs);
    this.clock = deps.clock ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // One check at a time: a slow tmux call is not stacked on.
      this.running ??= this.check()
        .catch((error: unknown) => this.deps.onError?.(error))
        .finally(() => {
          this.running = null;
        });
    }, this.deps.pollMs ?? agentActivityPollMs(this.deps.staleMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: read, decide, apply. Public for tests. */
  async check(): Promise<void> {
    const summaries = (await this.deps.activeWorkspaces()).filter((summary) => summary.agent !== null);
    const watched: (WatchedStatus & { summary: WorkspaceSummary; sequence: number; session: string })[] = [];
    for (const summary of summaries) {
      const key = workspaceKey(summary.repoName, summary.name);
      const report = this.deps.agents.lastReport(key);
      const agent = summary.agent;
      if (!report || !agent) continue;
      const session = sessionName(summary.repoName, summary.name);
      watched.push({
        key,
        state: agent.state,
        stale: agent.stale === true,
        reportedAt: report.at,
        sequence: report.sequence,
        summary,
        session,
      });
    }
    if (!needsActivity(watched)) {
      this.core.decide([], new Map(), this.clock());
      return;
    }
    const listed = await this.deps.tmux.run(['list-windows', '-a', '-F', '#{session_name} #{window_activity}']);
    const marks = listed.code === 0 ? parseWindowActivity(listed.stdout) : new Map<string, number>();
    const activity = new Map<string, number>();
    for (const status of watched) {
      const mark = marks.get(status.session);
      if (mark !== undefined) activity.set(status.key, mark);
    }
    const decision = this.core.decide(watched, activity, this.clock());
    const changes = [
      ...decision.stale.map(({ key, since }) => ({ key, stale: true, since: new Date(since) })),
      ...decision.fresh.map((key) => ({ key, stale: false, since: undefined })),
    ];
    for (const { key, stale, since } of changes) {
      const status = watched.find((candidate) => candidate.key === key);
      if (!status) continue;
      const next = this.deps.agents.setStale(key, stale, status.sequence, since);
      if (next) this.deps.events.publish('workspace.agent_status_changed', { ...status.summary, agent: next });
    }
  }
}
