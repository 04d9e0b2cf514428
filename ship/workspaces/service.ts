// The ship's workspace operations, as the spec's state table has them: create (always inactive), status,
// list, diff, branch switch, activate/deactivate (one tmux session each, with its MCP token), delete
// (unconditional or guarded), and agent status. Emits one event per change. Listing and status read git
// files and the session cache only: no process per workspace.
import { rename, rm } from 'node:fs/promises';
import {
  classifyCloneUrl,
  workspaceKey,
  type AgentInitRequest,
  type AgentStatus,
  type BranchOutcome,
  type CreateWorkspaceRequest,
  type DeactivationReason,
  type DiffQuery,
  type UpdateAgentStatusRequest,
  type WorkspaceEventType,
  type WorkspaceStatus,
  type WorkspaceSummary,
} from '../../protocol/index.js';
import {
  agentNotInitialized,
  alreadyActive,
  alreadyExists,
  emptyBranch,
  invalidCreateRequest,
  notActive,
  notFound,
  unpushedWork,
  WorkspaceError,
} from '../errors.js';
import type { AgentStatusStore } from '../agents/agent-status.js';
import type { McpTokenRegistry } from '../agents/mcp-tokens.js';
import type { EventBus } from '../events/event-bus.js';
import type { GitRunner } from '../git/runner.js';
import { readBranch } from '../git/head.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import { sessionName } from '../sessions/session-names.js';
import { TmuxCommandFailed, type Tmux } from '../sessions/tmux.js';
import { checkKey, type Fleet, type WorkspaceEntry } from './fleet.js';
import { cloneWorkspace, type CloneLimits } from './clone.js';
import type { RepoCache } from './repo-cache.js';
import { diffText } from './diff-text.js';
import { DiffNumbersReader } from './diff-numbers.js';
import { DiffNumbersReadings } from './diff-numbers-readings.js';
import { KeyLock } from './key-lock.js';
import { switchBranch } from './switch-branch.js';
import { findUnpushedWork } from './unpushed-work.js';
import { handOver, type SessionUser } from '../sessions/session-user.js';

export interface WorkspaceServiceDeps {
  shipName: string;
  /** The URL agents inside a session use to reach this ship. */
  shipUrl: () => string;
  allowLocalRepos: boolean;
  fleet: Fleet;
  git: GitRunner;
  tmux: Tmux;
  sessions: SessionRegistry;
  agents: AgentStatusStore;
  tokens: McpTokenRegistry;
  events: EventBus;
  /** Clone deadline and stall limit (default CLONE_LIMITS; tests shorten them). */
  cloneLimits?: CloneLimits;
  /** The per-repo object caches creates go through; absent, every create is a plain clone. */
  repoCache?: RepoCache;
  /** Sessions run as this user (`--session-user`): each clone is theirs before it enters the fleet (docs/security.md H24). */
  sessionUser?: SessionUser;
}

export class WorkspaceService {
  private readonly locks = new KeyLock();

  /** Status diff numbers, read live and shared only among concurrent calls (see diff-numbers-readings.ts). */
  private readonly diffNumbers: DiffNumbersReadings;
  private readonly diffReader: DiffNumbersReader;

  constructor(private readonly deps: WorkspaceServiceDeps) {
    const reader = new DiffNumbersReader(deps.git);
    this.diffReader = reader;
    this.diffNumbers = new DiffNumbersReadings((dir) => reader.read(dir));
  }

  /** Stops what the service runs beside its calls (the stat thread of status reads); sessions live on. */
  close(): void {
    this.diffReader.close();
  }

  private summary(entry: WorkspaceEntry): WorkspaceSummary {
    const key = workspaceKey(entry.repoName, entry.name);
    return {
      repoName: entry.repoName,
      name: entry.name,
      branch: entry.branch,
      active: this.deps.sessions.isLive(sessionName(entry.repoName, entry.name)),
      agent: this.deps.agents.get(key),
    };
  }

  private emit(type: WorkspaceEventType, summary: WorkspaceSummary, reason?: DeactivationReason): void {
    this.deps.events.publish(type, summary, reason);
  }

  private async require(repo: string, name: string): Promise<{ entry: WorkspaceEntry; dir: string }> {
    const entry = this.deps.fleet.read(repo, name);
    if (!entry) throw notFound(repo, name);
    return { entry, dir: this.deps.fleet.workspaceDir(repo, name) };
  }

  async list(active?: boolean): Promise<WorkspaceSummary[]> {
    const summaries = this.deps.fleet.list().map((entry) => this.summary(entry));
    return active === undefined ? summaries : summaries.filter((summary) => summary.active === active);
  }

  async status(repo: string, name: string): Promise<WorkspaceStatus> {
    const { entry, dir } = await this.require(repo, name);
    if (!this.deps.sessions.isLive(sessionName(repo, name))) {
      return { state: 'inactive', repoName: repo, name, branch: entry.branch };
    }
    return {
      state: 'active',
      repoName: repo,
      name,
      branch: entry.branch,
      diff: await this.diffNumbers.get(dir),
      agent: this.deps.agents.get(workspaceKey(repo, name)),
      issue: null,
      mergeRequest: null,
      ship: this.deps.shipName,
    };
  }

  async diff(repo: string, name: string, query: DiffQuery): Promise<Buffer> {
    const { dir } = await this.require(repo, name);
    return diffText(this.deps.git, dir, query);
  }

  /** The new workspace's summary, and whether its branch was created here (not advertised by the remote). */
  async create(request: CreateWorkspaceRequest): Promise<{ summary: WorkspaceSummary } & BranchOutcome> {
    const { repoName, name } = request;
    checkKey(repoName, name);
    const branch = request.branch.trim();
    if (branch === '') throw emptyBranch();
    const url = classifyCloneUrl(request.url, { allowLocalRepos: this.deps.allowLocalRepos });
    if ('problem' in url) throw invalidCreateRequest(url.problem);
    return this.locks.run(workspaceKey(repoName, name), async () => {
      if (!(await this.deps.fleet.claim(repoName, name))) throw alreadyExists(repoName, name);
      const dir = this.deps.fleet.workspaceDir(repoName, name);
      // Clone beside the fleet and rename into the (empty) claimed directory: a ship killed mid-clone leaves
      // no half workspace, only an empty directory and a staging leftover that the next start clears.
      const staging = await this.deps.fleet.stagingPath();
      let outcome: BranchOutcome;
      try {
        // A local repository is already cloned with hard links by git itself: the cache is for remotes.
        const cache = url.transport === 'file' ? undefined : this.deps.repoCache;
        const user = this.deps.sessionUser;
        // Copied objects, not hard links, for a session user: a chown of a linked object would hand them the
        // cache's (or a local source's) file as well.
        outcome = await cloneWorkspace(this.deps.git, request.url, staging, branch, this.deps.cloneLimits, cache, {
          copyObjects: user !== undefined,
        });
        if (user) await handOver(staging, user);
        await rename(staging, dir);
      } catch (error) {
        await rm(staging, { recursive: true, force: true }).catch(() => undefined);
        await this.releaseFailedClaim(repoName, name, error);
        throw error;
      }
      const summary: WorkspaceSummary = {
        repoName,
        name,
        branch: readBranch(dir) ?? branch,
        active: false,
        agent: null,
      };
      this.emit('workspace.created', summary);
      return { summary, ...outcome };
    });
  }

  /** Removes a destination whose clone failed; if that fails too, the error names both (spec). */
  private async releaseFailedClaim(repo: string, name: string, cause: unknown): Promise<void> {
    try {
      await this.deps.fleet.remove(repo, name);
    } catch (cleanup) {
      const original = cause instanceof Error ? cause.message : String(cause);
      throw new WorkspaceError(
        500,
        `${original}; the destination ${this.deps.fleet.workspaceDir(repo, name)} could not be removed: ${(cleanup as Error).message}`,
      );
    }
  }

  async switchBranch(repo: string, name: string, requested: string): Promise<BranchOutcome> {
    checkKey(repo, name);
    const branch = requested.trim();
    if (branch === '') throw emptyBranch();
    return this.locks.run(workspaceKey(repo, name), async () => {
      const { entry, dir } = await this.require(repo, name);
      const outcome = await switchBranch(this.deps.git, dir, branch);
      this.emit('workspace.branch_changed', this.summary({ ...entry, branch: readBranch(dir) ?? branch }));
      return outcome;
    });
  }

  async activate(repo: string, name: string): Promise<void> {
    checkKey(repo, name);
    await this.locks.run(workspaceKey(repo, name), async () => {
      const { entry, dir } = await this.require(repo, name);
      const session = sessionName(repo, name);
      if (this.deps.sessions.isLive(session)) throw alreadyActive(repo, name);
      const key = workspaceKey(repo, name);
      const token = this.deps.tokens.mint();
      await this.deps.tmux.ensureServer();
      try {
        await this.deps.tmux.newSession(session, dir, {
          SVC_MCP_TOKEN: token,
          SVC_SHIP_URL: this.deps.shipUrl(),
          SVC_WORKSPACE: key,
        });
      } catch (error) {
        if (error instanceof TmuxCommandFailed && error.kind === 'duplicate-session') {
          await this.deps.sessions.refresh();
          throw alreadyActive(repo, name);
        }
        throw error;
      }
      this.deps.sessions.markStarted(session);
      this.deps.tokens.bind(key, token);
      this.emit('workspace.activated', this.summary(entry));
    });
  }

  async deactivate(repo: string, name: string): Promise<void> {
    checkKey(repo, name);
    await this.locks.run(workspaceKey(repo, name), async () => {
      const { entry } = await this.require(repo, name);
      const session = sessionName(repo, name);
      if (!this.deps.sessions.isLive(session)) throw notActive(repo, name);
      // Marked first: a concurrent re-listing must not report this session as having ended on its own.
      this.deps.sessions.markStopping(session);
      await this.deps.tmux.killSession(session).finally(() => this.deps.sessions.markStopped(session));
      this.forgetSession(workspaceKey(repo, name));
      this.emit('workspace.deactivated', this.summary(entry));
    });
  }

  /** Delete: `force` absent or true is unconditional; `false` refuses when the clone holds unpushed work. */
  async remove(repo: string, name: string, force: boolean | undefined): Promise<void> {
    checkKey(repo, name);
    await this.locks.run(workspaceKey(repo, name), async () => {
      const { dir } = await this.require(repo, name);
      if (force === false) {
        const findings = await findUnpushedWork(this.deps.git, dir);
        if (findings.length > 0) throw unpushedWork(repo, name, findings);
      }
      const branch = readBranch(dir) ?? '';
      const session = sessionName(repo, name);
      if (this.deps.sessions.isLive(session)) {
        this.deps.sessions.markStopping(session);
        await this.deps.tmux.killSession(session).finally(() => this.deps.sessions.markStopped(session));
      }
      this.forgetSession(workspaceKey(repo, name));
      await this.deps.fleet.remove(repo, name);
      this.emit('workspace.removed', { repoName: repo, name, branch, active: false, agent: null });
    });
  }

  private forgetSession(key: string): void {
    this.deps.agents.clear(key);
    this.deps.tokens.unbind(key);
  }

  /** A workspace session ended without the ship asking (shell exit, server death): it is inactive now. */
  async sessionEnded(session: string): Promise<void> {
    // Re-activated meanwhile: the new session owns the token and status now.
    if (this.deps.sessions.isLive(session)) return;
    for (const entry of this.deps.fleet.list()) {
      if (sessionName(entry.repoName, entry.name) !== session) continue;
      this.forgetSession(workspaceKey(entry.repoName, entry.name));
      this.emit('workspace.deactivated', this.summary(entry), 'session-ended');
      return;
    }
  }

  /** Re-binds the MCP tokens of sessions that outlived an earlier ship process (read from tmux, not argv). */
  async adoptSessions(): Promise<void> {
    for (const entry of this.deps.fleet.list()) {
      const session = sessionName(entry.repoName, entry.name);
      if (!this.deps.sessions.isLive(session)) continue;
      const token = (await this.deps.tmux.sessionVariables(session)).SVC_MCP_TOKEN;
      if (token) this.deps.tokens.bind(workspaceKey(entry.repoName, entry.name), token);
    }
  }

  /**
   * Types text into an active workspace's session (`POST …/input`). Not under the key lock: a paste must not
   * wait behind a branch switch; a session that ends meanwhile is the same 400 as one that was not active.
   */
  async sendInput(repo: string, name: string, text: string, enter: boolean): Promise<void> {
    checkKey(repo, name);
    await this.require(repo, name);
    const session = sessionName(repo, name);
    this.requireActive(repo, name);
    try {
      await this.deps.tmux.paste(session, text, enter);
    } catch (error) {
      if (error instanceof TmuxCommandFailed && error.kind === 'no-session') throw notActive(repo, name);
      throw error;
    }
  }

  /** The tmux session of an active workspace, or null when it is missing or inactive. */
  activeSession(repo: string, name: string): string | null {
    if (!this.deps.fleet.read(repo, name)) return null;
    const session = sessionName(repo, name);
    return this.deps.sessions.isLive(session) ? session : null;
  }

  private requireActive(repo: string, name: string): void {
    if (!this.deps.sessions.isLive(sessionName(repo, name))) throw notActive(repo, name);
  }

  async agentInit(repo: string, name: string, request: AgentInitRequest): Promise<AgentStatus> {
    const { entry } = await this.require(repo, name);
    this.requireActive(repo, name);
    const status = this.deps.agents.init(workspaceKey(repo, name), request);
    this.emit('workspace.agent_status_changed', this.summary(entry));
    return status;
  }

  async agentStatus(repo: string, name: string): Promise<AgentStatus | null> {
    await this.require(repo, name);
    return this.deps.agents.get(workspaceKey(repo, name));
  }

  async agentUpdate(repo: string, name: string, request: UpdateAgentStatusRequest): Promise<AgentStatus> {
    const { entry } = await this.require(repo, name);
    const status = this.deps.agents.update(workspaceKey(repo, name), request);
    if (!status) throw agentNotInitialized(repo, name);
    this.emit('workspace.agent_status_changed', this.summary(entry));
    return status;
  }
}
