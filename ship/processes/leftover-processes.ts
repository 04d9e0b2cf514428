// Processes a killed ship left running. A ship killed outright (SIGKILL, a crash) cannot end its children:
// - a clone goes on writing into the staging area, and git recreates the directories it writes into, so the
//   next start could never clear that area while it ran;
// - a tmux control client can stay attached to the server with nobody reading it, and a server told to exit
//   then waits for it, refusing every new client ("server exited unexpectedly") meanwhile.
// At start the ship finds them by their command lines (a path under its staging area; `-C` on its tmux
// socket), ends each with its process group where it leads one (each git runs in one: see git/runner.ts) and
// waits until they are gone. Linux reads /proc; elsewhere `ps` lists the commands.
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_PROC, procPids, readProc } from './proc-table.js';

/** PIDs of processes (not this one) whose argument vector passes `matches`. */
export function processesWhere(matches: (args: string[]) => boolean): number[] {
  if (HAS_PROC) {
    return procPids().filter((pid) => {
      const commandLine = readProc(pid, 'cmdline');
      return commandLine !== null && commandLine !== '' && matches(commandLine.replace(/\0$/, '').split('\0'));
    });
  }
  const found: number[] = [];
  let listing = '';
  try {
    listing = execFileSync('ps', ['-axww', '-o', 'pid=,command='], { encoding: 'utf8' });
  } catch {
    return found;
  }
  for (const line of listing.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match && Number(match[1]) !== process.pid && matches(match[2]!.split(/\s+/))) found.push(Number(match[1]));
  }
  return found;
}

/** Processes with a command-line argument inside `dir` (a clone into the staging area). */
export function processesUsing(dir: string): number[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return processesWhere((args) => args.some((argument) => argument === dir || argument.includes(prefix)));
}

/** tmux control-mode clients (`-C`) on the server `socketName`. */
export function controlClientsOf(socketName: string): number[] {
  // `-L <name>`, or `-S <dir>/<name>` for a server of a session user (ship/sessions/session-user.ts).
  const named = (args: string[]) =>
    args[args.indexOf('-L') + 1] === socketName || basename(args[args.indexOf('-S') + 1] ?? '') === socketName;
  return processesWhere((args) => basename(args[0] ?? '') === 'tmux' && args.includes('-C') && named(args));
}

/** Whether `pid` still runs. A zombie does not: whoever adopted it reaps it in its own time (or never). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!HAS_PROC) return true;
  const stat = readProc(pid, 'stat');
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}

/** Ends `pids` (each with the process group it leads, if any) and waits until none runs, at most `waitMs`. */
export async function endProcesses(pids: number[], waitMs = 5000): Promise<number[]> {
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL'); // leads no group (a helper of a git that is gone, a tmux client)
      } catch {
        // already gone
      }
    }
  }
  const deadline = Date.now() + waitMs;
  while (pids.some(isRunning) && Date.now() < deadline) await sleep(20);
  return pids;
}

/** Ends every process working in `dir` and waits until none runs. Returns the PIDs it ended. */
export const endProcessesUsing = (dir: string, waitMs?: number) => endProcesses(processesUsing(dir), waitMs);
