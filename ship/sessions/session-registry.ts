// The ship's knowledge of which workspace sessions are live, kept true without a tmux call per request:
// filled by one listing at start, changed by the ship's own activate/deactivate, and re-listed whenever the
// tmux watcher reports a session created or gone. A session that disappears on its own (the shell exited,
// someone killed it, the server died) is reported through `onEnded`.
import { isWorkspaceSessionName } from './session-names.js';
import type { Tmux } from './tmux.js';

export class SessionRegistry {
  private live = new Set<string>();
  /** Sessions the ship is killing: never live again, never reported as having ended on their own. */
  private readonly stopping = new Set<string>();
  /** Bumped by every local change, so a listing that raced with one is not trusted. */
  private generation = 0;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private closed = false;

  constructor(
    private readonly tmux: Tmux,
    private readonly onEnded: (session: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.tmux.ensureServer();
    this.watch();
    await this.refresh();
  }

  private watch(): void {
    // A refresh that fails (tmux gone for a moment, or the ship shutting down mid-call) is retried by the
    // next notification; it must not surface as an unhandled rejection.
    this.tmux.watch(
      () => void this.refresh().catch(() => undefined),
      () => {
        if (this.closed) return;
        // Server or keeper gone: whatever is still live gets reported, then watching resumes on a fresh server.
        void this.refresh()
          .catch(() => undefined)
          .then(() => this.restartAfterLoss());
      },
    );
  }

  private async restartAfterLoss(): Promise<void> {
    if (this.closed) return;
    try {
      await this.tmux.ensureServer();
      if (!this.closed) this.watch();
    } catch {
      // tmux unavailable; the next activation tries again through ensureServer().
    }
  }

  isLive(session: string): boolean {
    return this.live.has(session);
  }

  markStarted(session: string): void {
    this.generation++;
    this.live.add(session);
  }

  /** The ship is about to kill `session`: from now on it is not live, and its end is not news. */
  markStopping(session: string): void {
    this.generation++;
    this.stopping.add(session);
    this.live.delete(session);
  }

  /** The kill of `session` has completed. */
  markStopped(session: string): void {
    this.generation++;
    this.stopping.delete(session);
    this.live.delete(session);
  }

  /** Re-lists sessions and reports the workspace sessions that ended. Calls during a refresh coalesce. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const before = this.generation;
        const listed = await this.tmux.listSessions();
        if (this.generation !== before) {
          this.refreshAgain = true;
          continue;
        }
        const current = new Set(
          [...listed].filter((session) => isWorkspaceSessionName(session) && !this.stopping.has(session)),
        );
        const ended = [...this.live].filter((session) => !current.has(session));
        this.live = current;
        for (const session of ended) this.onEnded(session);
      } while (this.refreshAgain && !this.closed);
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.tmux.stopWaiting();
    this.tmux.unwatch();
    await this.refreshing?.catch(() => undefined);
  }
}
