// CPU time of processes by pid (Linux /proc), to see where a benchmark's cycles go.
import { readFileSync } from 'node:fs';
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

/** The pid of a tmux server by socket name, or null. */
export function tmuxServerPid(socket: string): number | null {
  try {
    return Number(execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim()) || null;
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
  const micros = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuMs(pid) - before[name]!) * 1000) / count]));
  return { result, micros };
}
