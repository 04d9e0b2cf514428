// CPU time of processes by pid (Linux /proc), to see where a benchmark's cycles go.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds a process has used so far (0 when it is gone). */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU milliseconds of the children `pid` has waited for (a `git clone` the benchmark ran, once it exited). */
export function reapedChildrenCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU milliseconds of a process and everything below it: each live descendant's own time and, for each, the
 * time of the children it has already waited for (a git process a spawn helper ran and reaped).
 */
export function treeCpuMs(pid: number): number {
  const stats = new Map<number, { parent: number; ms: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      stats.set(Number(entry), { parent: Number(fields[1]), ms: (ticks * 1000) / TICKS_PER_SECOND });
    } catch {
      // gone since the directory was read
    }
  }
  const inTree = (candidate: number): boolean => {
    for (let current: number | undefined = candidate; current && current > 1; current = stats.get(current)?.parent)
      if (current === pid) return true;
    return false;
  };
  let total = 0;
  for (const [candidate, stat] of stats) if (inTree(candidate)) total += stat.ms;
  return total;
}

/** The pid of a tmux server by socket name, or null. */
export function tmuxServerPid(socket: string): number | null {
  try {
    return (
      Number(execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim()) ||
      null
    );
  } catch {
    return null;
  }
}

/** CPU microseconds each process spent per request while `run` served `requests(result)` requests. */
export async function cpuPerRequest<T>(
  pids: Record<string, number>,
  run: () => Promise<T>,
  requests: (result: T) => number,
): Promise<{ result: T; micros: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const result = await run();
  const count = Math.max(1, requests(result));
  const micros = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, ((cpuMs(pid) - before[name]!) * 1000) / count]),
  );
  return { result, micros };
}
