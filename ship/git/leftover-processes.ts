// Git processes a killed ship left running. A ship killed outright (SIGKILL, a crash) cannot end its
// children: a clone goes on writing into the staging area, and git recreates the directories it writes
// into, so the next start could never clear that area while it ran. At start the ship finds every process
// whose command line names a path under a directory of its own, ends its process group (each git runs in
// one: see runner.ts) and waits until it is gone. Linux reads /proc; elsewhere `ps` lists the commands.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const HAS_PROC = existsSync('/proc/self/cmdline');

/** PIDs of processes (not this one) with a command-line argument inside `dir`. */
export function processesUsing(dir: string): number[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const mentions = (argument: string) => argument === dir || argument.includes(prefix);
  const found: number[] = [];
  if (HAS_PROC) {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      let commandLine: string;
      try {
        commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // gone meanwhile, or not ours to read
      }
      if (commandLine.split('\0').some(mentions)) found.push(pid);
    }
    return found;
  }
  let listing = '';
  try {
    listing = execFileSync('ps', ['-axww', '-o', 'pid=,command='], { encoding: 'utf8' });
  } catch {
    return found;
  }
  for (const line of listing.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match && Number(match[1]) !== process.pid && mentions(match[2]!)) found.push(Number(match[1]));
  }
  return found;
}

/** Whether `pid` still runs. A zombie does not: whoever adopted it reaps it in its own time (or never). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!HAS_PROC) return true;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Ends every process working in `dir` (with its process group) and waits until none runs, at most
 * `waitMs`. Returns the PIDs it ended.
 */
export async function endProcessesUsing(dir: string, waitMs = 5000): Promise<number[]> {
  const pids = processesUsing(dir);
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL'); // not a group leader (a helper of a git that is gone)
      } catch {
        // already gone
      }
    }
  }
  const deadline = Date.now() + waitMs;
  while (pids.some(isRunning) && Date.now() < deadline) await sleep(20);
  return pids;
}
