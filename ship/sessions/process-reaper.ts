// Ends every process a workspace session started. tmux only sends SIGHUP to a pane's foreground process
// group when it kills a session; a loop in the shell itself, or a background job, survives it and keeps
// running (and writing) forever. Each pane is a session leader (tmux forks it with setsid), so the ship
// collects all processes of those sessions from /proc, sends SIGTERM, and SIGKILL to what is left after a
// grace period. Where there is no /proc (macOS), only tmux's SIGHUP applies.
import { setTimeout as sleep } from 'node:timers/promises';
import { procPids, readProc } from '../processes/proc-table.js';

/** Pids of every process whose session id is one of `sessionIds`. */
export function processesInSessions(sessionIds: ReadonlySet<number>): number[] {
  return procPids().filter((pid) => {
    const stat = readProc(pid, 'stat');
    if (stat === null) return false;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return sessionIds.has(Number(fields[3]));
  });
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // already gone, or not ours
    }
  }
}

/** SIGTERM to every process of the given pane sessions, then SIGKILL to survivors after `graceMs`. */
export async function terminateSessions(leaders: number[], graceMs = 1000): Promise<void> {
  const ids = new Set(leaders.filter((pid) => pid > 1 && pid !== process.pid));
  if (ids.size === 0) return;
  const first = processesInSessions(ids);
  if (first.length === 0) return;
  signal(first, 'SIGTERM');
  for (let waited = 0; waited < graceMs; waited += 50) {
    await sleep(50);
    if (processesInSessions(ids).length === 0) return;
  }
  signal(processesInSessions(ids), 'SIGKILL');
}
