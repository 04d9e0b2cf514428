// Shares readings of an active workspace's diff numbers among concurrent status calls, without ever
// answering from the past. The spec's WorkspaceDiff is "a numstat diff against HEAD" and the bridge's GET is
// "proxied live", so a call may only be given a reading that started after the call arrived: a call that
// arrives while a reading runs waits for the next one, which starts the moment the running one ends and is
// shared by every call that arrived meanwhile. No answer is kept here once it is handed out. Order of events
// alone decides who shares what: no clock.
//
// At most one reading per workspace runs at a time (plus one queued), so a burst of status calls costs a
// few readings, not one each. What one reading costs (no process for an untouched tree, one git for an
// edited one) is diff-numbers.ts's business.
import type { WorkspaceDiff } from '../../protocol/index.js';

interface Queued {
  promise: Promise<WorkspaceDiff>;
  resolve: (reading: Promise<WorkspaceDiff>) => void;
}

/** A workspace with a reading running, and the reading queued behind it (if anyone asked meanwhile). */
interface Workspace {
  queued: Queued | null;
}

export class DiffNumbersReadings {
  private readonly workspaces = new Map<string, Workspace>();

  constructor(private readonly read: (dir: string) => Promise<WorkspaceDiff>) {}

  get(dir: string): Promise<WorkspaceDiff> {
    const workspace = this.workspaces.get(dir);
    if (!workspace) {
      const started: Workspace = { queued: null };
      this.workspaces.set(dir, started);
      return this.begin(dir, started);
    }
    // A reading is running: it started before this call arrived, so this call waits for the next one.
    if (!workspace.queued) {
      let resolve!: Queued['resolve'];
      const promise = new Promise<WorkspaceDiff>((settle) => (resolve = settle));
      workspace.queued = { promise, resolve };
    }
    return workspace.queued.promise;
  }

  private begin(dir: string, workspace: Workspace): Promise<WorkspaceDiff> {
    let reading: Promise<WorkspaceDiff>;
    try {
      reading = this.read(dir);
    } catch (error) {
      reading = Promise.reject(error);
    }
    const ended = () => {
      const queued = workspace.queued;
      if (!queued) {
        this.workspaces.delete(dir);
        return;
      }
      workspace.queued = null;
      queued.resolve(this.begin(dir, workspace));
    };
    reading.then(ended, ended);
    return reading;
  }
}
