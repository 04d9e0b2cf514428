// Signals to a process group a test started, and to no other. Linux hands out PIDs again once nothing holds
// the number (pid_max is 32,768 on this machine, and a full suite forks tens of thousands of gits), and a
// group's number is held only while its leader is unreaped or a member lives. A `kill(-pid)` sent after the
// whole group ended can reach a stranger that took the number and leads its own group: a tmux server of
// another test file (tmux daemonises with setsid), which SIGTERM ends with every session in it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Whether the group `child` leads is still ours to signal: its leader unreaped, or gone with no one in its number since. */
function groupIsOurs(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  if (child.exitCode === null && child.signalCode === null) return true;
  // The leader is reaped. Members left behind keep the number reserved as their group; a process now
  // holding the number itself is a newcomer.
  return !existsSync(`/proc/${child.pid}`);
}

/** Sends `signal` to the group `child` leads; false when the group is gone (or its number is someone else's). */
export function signalGroupOf(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (!groupIsOurs(child)) return false;
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false; // the whole group is gone
  }
}

/** Whether anything of the group `child` leads still runs. */
export const groupAlive = (child: ChildProcess): boolean => signalGroupOf(child, 0);
