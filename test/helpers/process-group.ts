// Signals to a process group a test started, and to no other. Linux hands out PIDs again once nothing holds
// the number (pid_max is 32,768 on this machine, and a full suite forks tens of thousands of gits), and a
// group's number is held only while its leader is unreaped or a member lives. A `kill(-pid)` sent after the
// whole group ended can reach a stranger that took the number and leads its own group: a tmux server of
// another test file (tmux daemonises with setsid), which SIGTERM ends with every session in it. The rule is
// the ship's own for its commands (`groupStillOurs`).
import type { ChildProcess } from 'node:child_process';
import { groupStillOurs } from '../../ship/processes/spawner.js';

/** Sends `signal` to the group `child` leads; false when the group is gone (or its number is someone else's). */
export function signalGroupOf(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (!groupStillOurs(child)) return false;
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false; // the whole group is gone
  }
}

/** Whether anything of the group `child` leads still runs. */
export const groupAlive = (child: ChildProcess): boolean => signalGroupOf(child, 0);
