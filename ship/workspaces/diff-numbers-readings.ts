// Shares the diff numbers of an active workspace's status among the calls that ask within a second of each
// other. Each reading costs two git processes, and a spawn blocks the ship's event loop for milliseconds
// (the fork copies the process's page tables): a GUI or bridge polling status at 100 req/s spent 45% of the
// ship's main thread forking, and every terminal on the ship stalled behind it (soak, 2026-11-23). Concurrent
// calls share one reading in flight; a finished reading serves for FRESH_MS; the service forgets a
// workspace's entry whenever it changes it (branch switch, activation, deactivation, delete).
import type { WorkspaceDiff } from '../../protocol/index.js';

export const DIFF_NUMBERS_FRESH_MS = 1000;

interface Entry {
  value: Promise<WorkspaceDiff>;
  /** When the reading finished (null while in flight). */
  finishedAt: number | null;
}

export class DiffNumbersCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly read: (dir: string) => Promise<WorkspaceDiff>,
    private readonly freshMs = DIFF_NUMBERS_FRESH_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(dir: string): Promise<WorkspaceDiff> {
    const cached = this.entries.get(dir);
    if (cached && (cached.finishedAt === null || this.now() - cached.finishedAt < this.freshMs)) return cached.value;
    const entry: Entry = { value: this.read(dir), finishedAt: null };
    this.entries.set(dir, entry);
    entry.value.then(
      () => {
        entry.finishedAt = this.now();
      },
      () => {
        if (this.entries.get(dir) === entry) this.entries.delete(dir);
      },
    );
    return entry.value;
  }

  /** The workspace changed (or is gone): the next call reads again. */
  forget(dir: string): void {
    this.entries.delete(dir);
  }
}
